#pragma once
// Applying one transaction of any kind (docs/ledger.md, "Applying a
// transaction") to the state a Pulse has reached: its pre-state plus the
// writes of the transactions before it. The shared steps are
// ledger::authorize(); the kind's own rules are reached by one std::visit
// over TxBody.

#include <cstdint>
#include <optional>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::exec {

// What execution needs of a transaction that its bytes alone decide: a
// Pulse computes these for all its transactions in parallel before the
// state machine runs (docs/ledger.md, "Pulse execution").
struct TxPrecheck {
  Id tx_id{};                              // tx_id(payload)
  std::optional<crypto::Hash256> keys_id;  // bundle_id(keys); nullopt: malformed keys (step 2 rejects)
  PulseUsage usage;                        // tx_usage(tx)
  std::vector<Id> coin_ids;                // coin_id(tx_id, i) for every object its kind may create
  std::optional<bool> signature_ok;        // step 4's verdict; nullopt: not checked yet
  std::optional<Id> body_digest;           // ledger::BodyFeeRequest::body_digest; nullopt: not computed
  bool operator==(const TxPrecheck&) const = default;
};

// The ids and usage of `tx`, its signature not checked.
TxPrecheck precheck_ids(const Transaction& tx);

// Applies `tx`, whose ids `precheck` holds (the caller's promise), in the
// Pulse of `height`. A given signature verdict is used as is; nullopt
// verifies here. `usage` holds the Pulse's running totals and grows by the
// transaction's usage from step 3 on. An error is a read failure of the
// pre-state; the Pulse fails with it.
base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, const TxPrecheck& precheck,
                                        const ChainParams& params, std::uint64_t height, PulseUsage& usage);
// As above with the ids computed here and the given verdict.
base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, std::optional<bool> signature_ok,
                                        const ChainParams& params, std::uint64_t height, PulseUsage& usage);

}  // namespace sion::exec
