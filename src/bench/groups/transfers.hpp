#pragma once
// The transfer workload of group `execution` (docs/performance.md,
// "execution"): dual-key (ML-DSA-44 + SLH-DSA-SHA2-128f) senders, each with
// one coin, and a Pulse in which sender i pays sender i + 1 and gets its
// change back: three objects read, four written per transfer. Then what the
// groups that build and run Pulses share (seeds, timing per item, stateless
// replay, display prices).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/bench/group.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/trace.hpp"
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

// internal unless every receipt is a success (a workload is all valid
// transactions: anything else means the row measured something else).
base::Status check_all_succeeded(const exec::PulseOutcome& outcome);

// 1000000 -> "1,000,000", for row names and notes.
std::string with_commas(std::size_t n);

// A key seed of a group's own: n in its first 8 bytes, the group's tag in
// its last, so that no two groups sign with the same keys.
crypto::KeySeed group_seed(std::uint64_t n, std::uint8_t tag);

// Seconds per call as seconds per item, for a call that handles `count`.
Stats per(Stats stats, std::size_t count);

// µUSD at the devnet's display price (exec::kDevnetNanoUsdPerUnit): for
// printed figures only.
double micro_usd(exec::Amount units);

// Times the stateless replay of `traced`, the Pulse of `txs` at `height`:
// replay_chunk of every chunk from its witness alone, in order, on this
// thread, with or without the signature checks. Fails, with replay_chunk's
// error, unless every chunk reaches its claimed post-state root.
base::Result<Stats> time_replay(const Context& context, const exec::TracedPulse& traced,
                                std::span<const exec::Transaction> txs, const exec::ChainParams& params,
                                std::uint64_t height, bool check_signatures);

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
