// Group `execution`: the state transition (src/exec, docs/ledger.md) on
// Pulses of 512 transfers between dual-key (ML-DSA-44 + SLH-DSA-SHA2-128f)
// accounts, seed 000's rows. Each sender spends its one coin to the next
// sender and gets its change back: three objects read, four written per
// transfer. Targets (issue 5): client signing <= 5 ms per transfer; the
// state machine >= 200,000 tx/s on one core; with signature checks >= 2,500
// tx/s on one core and >= 4,500 on two. Tracing and stateless replay (issue
// 7): chunks of 64 transfers; replaying every chunk from its witness <= 40 ms
// plus the signature checks, witnesses <= 400 KiB in all.

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "groups.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/trace.hpp"
#include "sion/exec/tx_builder.hpp"

namespace sion::bench::groups {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kTransfers = 512;

struct Workload {
  exec::ChainParams params;
  std::vector<crypto::SigningBundle> senders;
  std::vector<exec::Id> coins;  // coins[i] belongs to senders[i]
  exec::MemoryState pre;
};

base::Result<Workload> make_workload(std::size_t count) {
  Workload w;
  w.params.chain_id = 1;
  std::vector<state::ObjectWrite> writes;
  for (std::size_t i = 0; i < count; ++i) {
    crypto::KeySeed seed{};
    for (std::size_t b = 0; b < 8; ++b) seed[b] = static_cast<std::uint8_t>(i >> (8 * b));
    auto signer = crypto::SigningBundle::from_seed(crypto::Profile::dual, seed);
    if (!signer) return base::fail(std::move(signer).error());
    const exec::Id account = exec::account_id(signer->public_bundle());
    exec::Id coin = exec::coin_id(exec::Id{}, static_cast<std::uint32_t>(i));
    writes.push_back({account, exec::to_object(exec::Account{signer->id(), 0}, 1)});
    writes.push_back({coin, exec::to_object(exec::Coin{account, 1'000'000'000}, 1)});
    w.senders.push_back(std::move(signer).value());
    w.coins.push_back(coin);
  }
  auto pre = exec::MemoryState::from_writes(writes);
  if (!pre) return base::fail(std::move(pre).error());
  w.pre = std::move(pre).value();
  return w;
}

// Transfer i pays 1000 to sender i + 1, from the sender's one coin.
base::Result<std::vector<exec::Transaction>> sign_transfers(const Workload& w) {
  std::vector<exec::Transaction> txs;
  txs.reserve(w.senders.size());
  for (std::size_t i = 0; i < w.senders.size(); ++i) {
    const exec::Output pay{exec::account_id(w.senders[(i + 1) % w.senders.size()].public_bundle()), 1000};
    auto tx = exec::make_transfer(w.senders[i], w.params, 0, {&w.coins[i], 1}, {&pay, 1});
    if (!tx) return base::fail(std::move(tx).error());
    txs.push_back(std::move(tx).value());
  }
  return txs;
}

// Times execute_pulse plus the post-state root on a fresh copy of the
// pre-state each time (the copy is not timed), and checks every transfer
// succeeded.
base::Result<Stats> time_pulse(const Workload& w, const std::vector<exec::Transaction>& txs,
                               const exec::PulseOptions& options, std::size_t samples) {
  std::vector<double> seconds;
  for (std::size_t s = 0; s < samples; ++s) {
    exec::MemoryState post = w.pre;
    const auto start = Clock::now();
    auto outcome = exec::execute_pulse(w.pre, txs, w.params, options);
    if (!outcome) return base::fail(std::move(outcome).error());
    auto root = exec::commit_pulse(post, *outcome);
    if (!root) return base::fail(std::move(root).error());
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    do_not_optimize(*root);
    for (const exec::Receipt& receipt : outcome->receipts) {
      if (receipt.status != exec::TxStatus::success) {
        return base::fail(base::Errc::internal, fmt::format("execution bench: a transfer ended with {}",
                                                            exec::status_name(receipt.status)));
      }
    }
  }
  return summarize(seconds);
}

void report_pulse(Context& context, const std::string& name, const Stats& stats, std::size_t transfers,
                  std::string_view how) {
  context.report(name, static_cast<double>(transfers) / stats.median, "tx/s",
                 fmt::format("{:.1f} ms per Pulse, {}", stats.median * 1e3, how));
}

// Traced execution (state machine, pre-checks given, as the row above) and
// the stateless replay of every chunk, one core.
base::Status report_tracing(Context& context, const Workload& w, const std::vector<exec::Transaction>& txs,
                            const std::vector<exec::TxPrecheck>& prechecks) {
  exec::TraceOptions options;
  options.threads = 1;
  options.prechecked = &prechecks;
  const std::size_t samples = context.quick() ? 3 : 9;
  std::vector<double> trace_seconds;
  exec::TracedPulse traced;
  for (std::size_t s = 0; s < samples; ++s) {
    const auto start = Clock::now();
    auto result = exec::trace_pulse(w.pre, txs, w.params, options);
    if (!result) return base::fail(std::move(result).error());
    trace_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    traced = std::move(result).value();
  }
  std::size_t witness_bytes = 0;
  for (const auto& chunk : traced.chunks) witness_bytes += codec::encoded_size(chunk.witness);
  const double chunks = static_cast<double>(traced.chunks.size());
  context.report(fmt::format("traced execution of {} transfers", txs.size()), summarize(trace_seconds).median * 1e3,
                 "ms", fmt::format("{} chunks of <= {}, state machine with witnesses and proofs, one core",
                                   traced.chunks.size(), options.max_txs_per_chunk));

  // Replays every chunk; fails unless each reaches its claimed root.
  const auto replay_all = [&](bool check_signatures) -> base::Result<Stats> {
    std::vector<double> seconds;
    for (std::size_t s = 0; s < samples; ++s) {
      const auto start = Clock::now();
      auto at = exec::ReplayPoint::start(traced.chunks.front().witness.pre_root);
      for (const auto& chunk : traced.chunks) {
        const std::span<const exec::Transaction> part =
            std::span<const exec::Transaction>(txs).subspan(chunk.first_tx, chunk.tx_count);
        auto next = exec::replay_chunk(at, chunk, part, w.params, check_signatures);
        if (!next) return base::fail(std::move(next).error());
        at = *next;
        do_not_optimize(at.root);
      }
      seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return summarize(seconds);
  };
  auto with_checks = replay_all(true);
  if (!with_checks) return base::fail(std::move(with_checks).error());
  auto without_checks = replay_all(false);
  if (!without_checks) return base::fail(std::move(without_checks).error());
  context.report("stateless replay of every chunk (stack A)", with_checks->median * 1e3, "ms",
                 fmt::format("signature checks included, one core; {:.1f} ms without them (target <= 40); "
                             "witnesses {:.1f} KiB in all (target <= 400), {:.1f} KiB per chunk",
                             without_checks->median * 1e3, static_cast<double>(witness_bytes) / 1024.0,
                             static_cast<double>(witness_bytes) / 1024.0 / chunks));
  return {};
}

base::Status run(Context& context) {
  const std::size_t transfers = context.quick() ? 64 : kTransfers;
  auto workload = make_workload(transfers);
  if (!workload) return base::fail(std::move(workload).error());

  // Client signing: hedged, as a wallet signs.
  std::vector<double> per_tx;
  std::vector<exec::Transaction> txs;
  for (int round = 0; round < (context.quick() ? 1 : 3); ++round) {
    const auto start = Clock::now();
    auto signed_txs = sign_transfers(*workload);
    if (!signed_txs) return base::fail(std::move(signed_txs).error());
    per_tx.push_back(std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(transfers));
    txs = std::move(signed_txs).value();
  }
  context.report("client signing (ML-DSA-44 + SLH-DSA-128f)", summarize(per_tx).median * 1e6, "µs/tx",
                 fmt::format("{} transfers, fee computed, hedged signing (target <= 5000 µs)", transfers));

  const std::string pulse = fmt::format("Pulse of {} transfers", transfers);
  const std::size_t samples = context.quick() ? 3 : 7;
  auto one_core = time_pulse(*workload, txs, exec::PulseOptions{1}, samples);
  if (!one_core) return base::fail(std::move(one_core).error());
  report_pulse(context, pulse + ", with signature checks", *one_core, transfers, "one core (target >= 2500 tx/s)");

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  auto all_cores = time_pulse(*workload, txs, exec::PulseOptions{0}, samples);
  if (!all_cores) return base::fail(std::move(all_cores).error());
  report_pulse(context, pulse + ", with signature checks, all cores", *all_cores, transfers,
               fmt::format("{} cores (target >= 4500 tx/s on two)", cores));

  // The state machine alone: the signatures' verdicts and the transactions'
  // ids come from an earlier pre-check (as a proposer's, made on all cores
  // while it built the Pulse).
  const auto prechecks = exec::precheck_transactions(txs, workload->params, exec::PulseOptions{0});
  exec::PulseOptions machine{1};
  machine.prechecked = &prechecks;
  auto state_machine = time_pulse(*workload, txs, machine, context.quick() ? 5 : 21);
  if (!state_machine) return base::fail(std::move(state_machine).error());
  // What the pre-check spends on ids alone (no signatures), for the note.
  std::vector<double> ids_seconds;
  for (int round = 0; round < 7; ++round) {
    const auto start = Clock::now();
    for (const auto& tx : txs) do_not_optimize(exec::precheck_ids(tx));
    ids_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                          static_cast<double>(transfers));
  }
  report_pulse(context, pulse + ", state machine only", *state_machine, transfers,
               fmt::format("one core, post-state root included; ids and verdicts from the parallel pre-check "
                           "(its ids cost {:.1f} µs/tx on one core) (target >= 200000 tx/s)",
                           summarize(ids_seconds).median * 1e6));
  return report_tracing(context, *workload, txs, prechecks);
}

}  // namespace

Group execution() {
  return {"execution", "transactions: client signing, Pulse execution with and without signature checks", &run};
}

}  // namespace sion::bench::groups
