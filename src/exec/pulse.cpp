#include "sion/exec/pulse.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "sion/commit/merkle_log.hpp"
#include "sion/exec/transfer.hpp"

namespace sion::exec {

namespace {

struct Signer {
  crypto::KeyBundle keys;
  crypto::Hash256 bundle_id{};
};

// What the pre-state and the Pulse's reveals tell about one sender's keys.
struct SenderKeys {
  std::optional<Signer> signer;
  bool in_pre = false;  // an account in the pre-state: a reveal is bad_reveal
};

bool reveal_matches(const crypto::KeyBundle& reveal, const Id& sender) {
  return crypto::check_key_bundle(reveal).ok() && account_id(reveal) == sender;
}

// Runs work(t) for t in [0, threads) on that many threads, this one
// included. A thread that cannot be started has its share done here, so
// the results never depend on how many threads ran.
template <class Work>
void run_parallel(unsigned threads, const Work& work) {
  std::vector<std::thread> pool;
  unsigned started = 1;
  try {
    for (; started < threads; ++started) pool.emplace_back(work, started);
  } catch (const std::system_error&) {
  }
  for (unsigned t = started; t < threads; ++t) work(t);
  work(0u);
  for (auto& thread : pool) thread.join();
}

}  // namespace

base::Result<std::vector<std::optional<bool>>> precheck_signatures(const StateView& pre,
                                                                   std::span<const Transaction> transactions,
                                                                   const ChainParams& params,
                                                                   const PulseOptions& options) {
  // Sequential and cheap: find each transaction's keys (docs/ledger.md,
  // "Pulse execution"): the pre-state account's, else a reveal hashing to
  // the sender (the transaction's own or an earlier one; account_id binds
  // the keys, so any such reveal is the same bundle).
  std::map<Id, SenderKeys> senders;  // stable nodes: jobs point into it
  std::vector<std::pair<std::size_t, const Signer*>> jobs;
  PulseUsage bound;
  bool within_budget = true;
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    const TxPayload& payload = transactions[i].payload;
    if (payload.chain_id != params.chain_id) continue;  // wrong_chain: never reaches step 4
    auto [it, fresh] = senders.try_emplace(payload.sender);
    SenderKeys& sender = it->second;
    if (fresh) {
      auto stored = pre.get(payload.sender);
      if (!stored) return base::fail(std::move(stored).error());
      if (*stored) {
        auto account = account_from(**stored);
        if (!account) return base::fail(std::move(account).error());
        sender.signer = Signer{account->keys, crypto::bundle_id(account->keys)};
        sender.in_pre = true;
      }
    }
    // A reveal for a pre-state account, or one that does not hash to the
    // sender, is bad_reveal: no signature to check.
    if (payload.reveal && (sender.in_pre || !reveal_matches(*payload.reveal, payload.sender))) continue;
    if (!sender.signer && payload.reveal) {
      sender.signer = Signer{*payload.reveal, crypto::bundle_id(*payload.reveal)};
    }
    if (!sender.signer) continue;
    // Budget (step 3) before signatures: `bound` counts every transaction
    // checked so far, at least what the sequential pass will have used, so
    // all checked here fit. Past the point where the bound no longer fits,
    // signatures are left to the sequential pass, which checks only those
    // that are still within the budget: no proposer can make a node verify
    // more than a Pulse's worth of signatures.
    const PulseUsage usage = tx_usage(transactions[i], sender.signer->keys);
    if (!within_budget || !bound.fits(usage, params.limits)) {
      within_budget = false;
      continue;
    }
    bound.add(usage);
    jobs.emplace_back(i, &*sender.signer);
  }

  // Parallel: every job is pure; each thread takes the jobs t, t + n, ...
  // and writes only its own results.
  std::vector<std::uint8_t> verdicts(transactions.size(), 2);  // 2: not checked
  unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(jobs.size(), 1)));
  run_parallel(threads, [&](unsigned t) {
    for (std::size_t k = t; k < jobs.size(); k += threads) {
      const auto [i, signer] = jobs[k];
      const Transaction& tx = transactions[i];
      const base::Bytes message = codec::encode(tx.payload);
      const auto context = base::as_bytes(kTxSignatureContext);
      const bool ok = options.cache != nullptr
                          ? crypto::verify_bundle_cached(*options.cache, signer->keys, signer->bundle_id, message,
                                                         context, tx.auth,
                                                         crypto::VerifyCache::signature_digest(tx.auth))
                          : crypto::verify_bundle(signer->keys, signer->bundle_id, message, context, tx.auth);
      verdicts[i] = ok ? 1 : 0;
    }
  });

  std::vector<std::optional<bool>> out(transactions.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (verdicts[i] != 2) out[i] = verdicts[i] == 1;
  }
  return out;
}

base::Result<PulseOutcome> execute_pulse(const StateView& pre, std::span<const Transaction> transactions,
                                         const ChainParams& params, const PulseOptions& options) {
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    if (!codec::valid(transactions[i])) {
      return base::fail(base::Errc::invalid_argument,
                        "transaction " + std::to_string(i) + ": a length or count exceeds its field's maximum");
    }
  }
  std::vector<std::optional<bool>> checked;
  const std::vector<std::optional<bool>>* verdicts = options.verdicts;
  if (verdicts == nullptr) {
    auto fresh = precheck_signatures(pre, transactions, params, options);
    if (!fresh) return base::fail(std::move(fresh).error());
    checked = std::move(fresh).value();
    verdicts = &checked;
  } else if (verdicts->size() != transactions.size()) {
    return base::fail(base::Errc::invalid_argument, "execute_pulse: " + std::to_string(verdicts->size()) +
                                                        " verdicts for " + std::to_string(transactions.size()) +
                                                        " transactions");
  }

  PulseOutcome outcome;
  outcome.receipts.reserve(transactions.size());
  Overlay state(pre);
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    auto receipt = apply_transaction(state, transactions[i], (*verdicts)[i], params, outcome.usage);
    if (!receipt) return base::fail(std::move(receipt).error());
    // Fees come out of coins, whose total is the genesis supply (at most
    // 2^64 - 1, docs/ledger.md "Value"), so this sum cannot overflow.
    const auto fees = checked_add(outcome.fees, receipt->fee_paid);
    if (!fees) return base::fail(base::Errc::internal, "the Pulse's fees pass 2^64 - 1");
    outcome.fees = *fees;
    outcome.receipts.push_back(*receipt);
  }
  outcome.writes = state.write_set();
  outcome.receipts_root = receipts_root(outcome.receipts);
  return outcome;
}

commit::Hash receipts_root(std::span<const Receipt> receipts) {
  std::vector<commit::Hash> leaves;
  leaves.reserve(receipts.size());
  for (const Receipt& receipt : receipts) leaves.push_back(kReceiptHasher.leaf(codec::encode(receipt)));
  commit::MerkleLog tree(kReceiptHasher);
  tree.append_leaf_hashes(leaves);
  return tree.root();
}

base::Result<commit::Hash> commit_pulse(state::ObjectStore& store, const PulseOutcome& outcome) {
  if (auto version = store.apply(outcome.writes); !version) return base::fail(std::move(version).error());
  return store.root();
}

base::Result<commit::Hash> commit_pulse(MemoryState& state, const PulseOutcome& outcome) {
  return state.apply(outcome.writes);
}

}  // namespace sion::exec
