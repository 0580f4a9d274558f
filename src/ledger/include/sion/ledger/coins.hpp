#pragma once
// Spending coins of the sender, for every kind that takes them
// (docs/ledger.md, step 8 of "Applying a transaction"; docs/agents.md,
// "Paying with coins").

#include <optional>
#include <span>

#include "sion/base/result.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/receipt.hpp"

namespace sion::ledger {

struct CoinsCheck {
  // success, or the first of duplicate_input, unknown_coin, not_owner
  // (each checked over the whole list before the next).
  TxStatus status = TxStatus::success;
  std::optional<Amount> total;  // on success: their sum; nullopt when it passes 2^64 - 1
};

// Whether `inputs` are distinct coins owned by `owner`, and what they hold.
// An error is a read failure, or a coin that does not decode.
base::Result<CoinsCheck> check_coins(const Overlay& state, std::span<const Id> inputs, const Id& owner);

// Deletes the inputs and, if change is above 0, creates Coin{owner, change}
// at change_id; returns the coins created (0 or 1).
std::uint32_t spend_coins(Overlay& state, std::span<const Id> inputs, const Id& owner, Amount change,
                          const Id& change_id);

}  // namespace sion::ledger
