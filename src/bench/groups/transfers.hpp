#pragma once
// The transfer workload of group `execution` (docs/performance.md,
// "execution"): dual-key (ML-DSA-44 + SLH-DSA-SHA2-128f) senders, each with
// one coin, and a Pulse in which sender i pays sender i + 1 and gets its
// change back: three objects read, four written per transfer.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/state/object_store.hpp"

namespace sion::bench::groups {

struct TransferWorkload {
  exec::ChainParams params;
  std::vector<crypto::SigningBundle> senders;
  std::vector<exec::Id> coins;             // coins[i] belongs to senders[i]
  std::vector<state::ObjectWrite> writes;  // the senders' accounts and coins
};

// `count` senders with keys from fixed seeds; coin i is genesis_coin_id(i).
base::Result<TransferWorkload> make_senders(std::size_t count);

// Transfer i pays 1000 to sender i + 1, from the sender's one coin.
base::Result<std::vector<exec::Transaction>> sign_transfers(const TransferWorkload& w);

// Step 4's verdict of each transaction, as the pre-check computed them.
using Verdicts = std::vector<std::optional<bool>>;
Verdicts verdicts_of(const std::vector<exec::TxPrecheck>& prechecks);

// What a validator computes per transaction besides verifying signatures:
// the ids, coin ids and usage of every transaction (exec::precheck_ids_batch,
// on this thread, Keccak lanes across transactions), with the verdicts
// copied in.
std::vector<exec::TxPrecheck> ids_with_verdicts(const std::vector<exec::Transaction>& txs, const Verdicts& verdicts);

// One timed Pulse: execute_pulse of `txs` on `pre` under `options`, then
// commit_pulse into `post` (a MemoryState or an ObjectStore); internal
// unless every transfer succeeded. The post-state root goes to `root`;
// with `commit_seconds`, the time commit_pulse took goes there.
template <class Post>
base::Status execute_and_commit(const exec::StateView& pre, Post& post, const std::vector<exec::Transaction>& txs,
                                const exec::ChainParams& params, const exec::PulseOptions& options, commit::Hash& root,
                                double* commit_seconds = nullptr);

// internal unless every receipt is a success (the workload is all valid
// transfers: anything else means the row measured something else).
base::Status check_all_succeeded(const exec::PulseOutcome& outcome);

// 1000000 -> "1,000,000", for row names and notes.
std::string with_commas(std::size_t n);

template <class Post>
base::Status execute_and_commit(const exec::StateView& pre, Post& post, const std::vector<exec::Transaction>& txs,
                                const exec::ChainParams& params, const exec::PulseOptions& options, commit::Hash& root,
                                double* commit_seconds) {
  SION_TRY(const auto outcome, exec::execute_pulse(pre, txs, params, 1, options));
  const auto start = std::chrono::steady_clock::now();
  auto committed = exec::commit_pulse(post, outcome);
  if (commit_seconds != nullptr) {
    *commit_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (!committed) return base::fail(std::move(committed).error());
  root = *committed;
  return check_all_succeeded(outcome);
}

}  // namespace sion::bench::groups
