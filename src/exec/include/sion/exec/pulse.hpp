#pragma once
// Executing a Pulse: an ordered list of transactions applied to one
// pre-state (docs/ledger.md, "Pulse execution").

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"
#include "sion/crypto/verify_cache.hpp"
#include "sion/exec/apply.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/state/object_store.hpp"

namespace sion::exec {

struct PulseOptions {
  base::Executor* executor = nullptr;    // signature checks on it; nullptr: the calling thread
  crypto::VerifyCache* cache = nullptr;  // skips bundles verified before (mempool)
  // precheck_transactions() of the same transactions under the same
  // params, done earlier (a proposer checks while it builds the Pulse):
  // execution is then the state machine alone. The pre-checks do not depend
  // on the state; those of other transactions would decide wrongly, and the
  // caller owns that.
  const std::vector<TxPrecheck>* prechecked = nullptr;
};

struct PulseOutcome {
  std::vector<Receipt> receipts;           // one per transaction, in order
  std::vector<state::ObjectWrite> writes;  // sorted by id, one per touched id
  commit::Hash receipts_root{};
  Amount fees = 0;  // burned
  PulseUsage usage;
};

// Checks every signature first, in parallel, then applies the transactions
// in order, as the Pulse of `height`. Fails only if the pre-state cannot be read (io_error,
// corrupt_store) or a transaction is not encodable (invalid_argument: it
// did not come from the decoder); invalid transactions get receipts.
base::Result<PulseOutcome> execute_pulse(const StateView& pre, std::span<const Transaction> transactions,
                                         const ChainParams& params, std::uint64_t height,
                                         const PulseOptions& options = {});

// What execute_pulse knows of each transaction before the state machine
// runs, computed in parallel without reading any state: every
// transaction's ids (precheck_ids), and step 4's verdict for each
// transaction of this chain with well-formed keys, in order, while the
// usage of all such transactions so far fits params.limits; no verdict for
// the others (they never reach step 4, or verify inline if they do); and
// for each such settlement its walk's end (body_digest), all walked
// together in Keccak lanes.
std::vector<TxPrecheck> precheck_transactions(std::span<const Transaction> transactions, const ChainParams& params,
                                              const PulseOptions& options = {});

// Whether `tx` carries a signature to check: every transaction but a batch
// member, whose place in its batch stands for one (docs/agents.md).
inline bool carries_signature(const Transaction& tx) noexcept { return !ledger::is_batch_member(tx.keys); }

// Step 4 alone: whether tx.auth verifies under tx.keys over the payload's
// encoding (context kTxSignatureContext), through `cache` when given (a
// mempool verifies on admission; the Pulse then hits the cache).
bool verify_signatures(const Transaction& tx, crypto::VerifyCache* cache = nullptr);

// invalid_argument naming the first transaction with a length or count over
// its field's maximum (one no decoder could have produced; encode()'s
// precondition).
base::Status check_encodable(std::span<const Transaction> transactions);

// options.prechecked (checked to hold one per transaction; `caller` names
// the function in the error) or, without it, precheck_transactions() kept
// in `fresh`.
base::Result<const std::vector<TxPrecheck>*> given_or_fresh_prechecks(std::span<const Transaction> transactions,
                                                                      const ChainParams& params,
                                                                      const PulseOptions& options,
                                                                      std::string_view caller,
                                                                      std::vector<TxPrecheck>& fresh);

// Applies the outcome's write set; returns the post-state root.
base::Result<commit::Hash> commit_pulse(state::ObjectStore& store, const PulseOutcome& outcome);
base::Result<commit::Hash> commit_pulse(MemoryState& state, const PulseOutcome& outcome);

}  // namespace sion::exec
