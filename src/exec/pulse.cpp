#include "sion/exec/pulse.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "sion/base/checked.hpp"
#include "sion/base/executor.hpp"
#include "sion/exec/apply.hpp"
#include "sion/exec/precheck_batch.hpp"

namespace sion::exec {
std::vector<TxPrecheck> precheck_transactions(std::span<const Transaction> transactions, const ChainParams& params,
                                              const PulseOptions& options) {
  // Sequential and cheap (docs/ledger.md, "Pulse execution"): pick the
  // transactions that can reach step 4, those of this chain with well-formed
  // keys. Budget (step 3) before signatures: `bound` counts every one picked
  // so far, at least what the sequential pass will have counted (it counts
  // nothing for those it rejects at step 2), so all picked here fit. Past
  // the point where the bound no longer fits, signatures are left to the
  // sequential pass, which checks only those still within the budget: no
  // proposer can make a node verify more than a Pulse's worth of signatures.
  const std::vector<std::uint8_t> verify = pick_within_limits(transactions, params, PulseUsage{});
  const auto picked = static_cast<std::size_t>(std::count(verify.begin(), verify.end(), 1));

  // Parallel: every pre-check is a pure function of its transaction, and
  // each task writes only its own transactions' results. The ids first, a
  // contiguous slice per task hashed in lanes; then the signatures, task t
  // taking the transactions t, t + n, ... so that the picked prefix is
  // shared evenly.
  std::vector<TxPrecheck> out(transactions.size());
  const unsigned slices = transactions.size() < 64 ? 1 : base::concurrency(options.executor);
  base::for_slices(options.executor, transactions.size(), slices, [&](unsigned, std::size_t first, std::size_t last) {
    auto ids = precheck_ids_batch(transactions.subspan(first, last - first));
    std::move(ids.begin(), ids.end(), out.begin() + static_cast<std::ptrdiff_t>(first));
  });
  const auto tasks = static_cast<unsigned>(
      std::min<std::size_t>(base::concurrency(options.executor), std::max<std::size_t>(picked, 1)));
  base::run_parallel(options.executor, tasks, [&](unsigned t) {
    for (std::size_t i = t; i < transactions.size(); i += tasks) {
      if (verify[i] == 0) continue;
      out[i].signature_ok = verify_signatures(transactions[i], options.cache);
    }
  });
  precheck_walks(transactions, verify, out, options.executor);
  return out;
}

bool verify_signatures(const Transaction& tx, crypto::VerifyCache* cache) {
  const base::Bytes message = codec::encode(tx.payload);
  const auto context = base::as_bytes(kTxSignatureContext);
  const crypto::KeyBundleRef keys(tx.keys);
  return cache != nullptr ? crypto::verify_bundle_cached(*cache, keys, message, context, tx.auth,
                                                         crypto::VerifyCache::signature_digest(tx.auth))
                          : crypto::verify_bundle(keys, message, context, tx.auth);
}

base::Status check_encodable(std::span<const Transaction> transactions) {
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    if (!codec::valid(transactions[i])) {
      return base::fail(base::Errc::invalid_argument,
                        "transaction " + std::to_string(i) + ": a length or count exceeds its field's maximum");
    }
  }
  return {};
}

base::Result<const std::vector<TxPrecheck>*> given_or_fresh_prechecks(std::span<const Transaction> transactions,
                                                                      const ChainParams& params,
                                                                      const PulseOptions& options,
                                                                      std::string_view caller,
                                                                      std::vector<TxPrecheck>& fresh) {
  if (options.prechecked == nullptr) {
    fresh = precheck_transactions(transactions, params, options);
    return &fresh;
  }
  if (options.prechecked->size() != transactions.size()) {
    return base::fail(base::Errc::invalid_argument,
                      std::string(caller) + ": " + std::to_string(options.prechecked->size()) + " pre-checks for " +
                          std::to_string(transactions.size()) + " transactions");
  }
  return options.prechecked;
}

base::Result<PulseOutcome> execute_pulse(const StateView& pre, std::span<const Transaction> transactions,
                                         const ChainParams& params, std::uint64_t height, const PulseOptions& options) {
  SION_TRY_STATUS(check_encodable(transactions));
  std::vector<TxPrecheck> fresh;
  SION_TRY(const auto prechecks, given_or_fresh_prechecks(transactions, params, options, "execute_pulse", fresh));

  PulseOutcome outcome;
  outcome.receipts.reserve(transactions.size());
  Overlay state(pre);
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    SION_TRY(const auto receipt,
             apply_transaction(state, transactions[i], (*prechecks)[i], params, height, outcome.usage));
    // Fees come out of coins, whose total is the genesis supply (at most
    // 2^64 - 1, docs/ledger.md "Value"), so this sum cannot overflow.
    const auto fees = base::checked_add(outcome.fees, receipt.fee_paid);
    if (!fees) return base::fail(base::Errc::internal, "the Pulse's fees pass 2^64 - 1");
    outcome.fees = *fees;
    outcome.receipts.push_back(receipt);
  }
  outcome.writes = state.write_set();
  outcome.receipts_root = receipts_root(outcome.receipts);
  return outcome;
}

base::Result<commit::Hash> commit_pulse(state::ObjectStore& store, const PulseOutcome& outcome) {
  SION_TRY_STATUS(store.apply(outcome.writes));
  return store.root();
}

base::Result<commit::Hash> commit_pulse(MemoryState& state, const PulseOutcome& outcome) {
  return state.apply(outcome.writes);
}

}  // namespace sion::exec
