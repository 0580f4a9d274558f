#pragma once
// The native transaction kind: a transfer of coins (docs/ledger.md,
// "Transactions" and step 8 of "Applying a transaction"). Every other kind
// pays its fee in the coins this kind moves.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/ledger/authorize.hpp"
#include "sion/ledger/kind.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/receipt.hpp"

namespace sion::ledger {

inline constexpr std::size_t kMaxTransferInputs = 64;
inline constexpr std::size_t kMaxTransferOutputs = 64;

struct Output {
  Id owner{};
  Amount amount = 0;
  static constexpr std::string_view codec_name = "Output";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("owner", &Output::owner), codec::field("amount", &Output::amount)};
  }
  bool operator==(const Output&) const = default;
};

// Spends coins of the sender and pays outputs. inputs[0] is the fee coin:
// the fee comes out of it even when the transfer fails. What the inputs hold
// beyond the outputs and the fee returns to the sender as one change coin.
struct Transfer {
  codec::List<Id, kMaxTransferInputs> inputs;
  codec::List<Output, kMaxTransferOutputs> outputs;
  static constexpr std::string_view codec_name = "Transfer";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("inputs", &Transfer::inputs), codec::field("outputs", &Transfer::outputs)};
  }
  bool operator==(const Transfer&) const = default;
};

// inputs[0], or nullopt for no inputs.
std::optional<Id> fee_coin(const Transfer& transfer) noexcept;
// A coin per output and one for change (or, failing, for what the fee coin
// keeps).
std::uint32_t max_created_objects(const Transfer& transfer) noexcept;
// Step 8: the checks over the inputs and outputs, then the coins spent and
// created. new_ids holds max_created_objects(transfer) ids (the caller's
// promise). An error is a read failure; the Pulse fails with it.
base::Result<Receipt> apply_body(Overlay& state, const Transfer& transfer, const Authorized& tx,
                                 std::span<const Id> new_ids);

static_assert(TxKind<Transfer>);

}  // namespace sion::ledger
