// Group `execution`: the state transition (src/exec, docs/ledger.md) on
// Pulses of 512 transfers (groups/transfers.hpp). What each row times, what
// is prepared outside the clock, and its target: docs/performance.md,
// "execution".

#include <fmt/format.h>

#include <span>
#include <string>
#include <vector>

#include "groups.hpp"
#include "sion/bench/cores.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/trace.hpp"
#include "transfers.hpp"

namespace sion::bench::groups {
namespace {

constexpr std::size_t kTransfers = 512;

struct Workload {
  TransferWorkload transfers;
  std::vector<exec::Transaction> txs;
  exec::MemoryState pre;
  std::string pre_note;  // "pre-state of N objects in memory"
};

// Times one Pulse on a fresh copy of the pre-state (the copy is made
// outside the clock): the pre-checks `options` asks for, or with `verdicts`
// the ids computed inside the clock on this thread, then execute_pulse, then
// the post-state root. Fails unless every transfer succeeded.
base::Result<Stats> time_pulse(const Workload& w, const exec::PulseOptions& options, const Verdicts* verdicts,
                               const Context& context) {
  exec::MemoryState post;
  base::Status status;
  const Stats stats = time_each_call_after([&] { post = w.pre; },
                                           [&] {
                                             if (!status) return;
                                             exec::PulseOptions run = options;
                                             std::vector<exec::TxPrecheck> prechecks;
                                             if (verdicts != nullptr) {
                                               prechecks = ids_with_verdicts(w.txs, *verdicts);
                                               run.prechecked = &prechecks;
                                             }
                                             commit::Hash root{};
                                             status =
                                                 execute_and_commit(w.pre, post, w.txs, w.transfers.params, run, root);
                                             do_not_optimize(root);
                                           },
                                           context.measure_options());
  if (!status) return base::fail(std::move(status).error());
  return stats;
}

void report_pulse(Context& context, const std::string& name, const Stats& stats, std::size_t transfers,
                  const std::string& how) {
  context.report_rate(name, stats, static_cast<double>(transfers), "tx/s",
                      fmt::format("{:.1f} ms per Pulse, {}", stats.median * 1e3, how));
}

// Traced execution and the stateless replay of every chunk, one core.
base::Status report_tracing(Context& context, const Workload& w, const std::vector<exec::TxPrecheck>& prechecks) {
  const OneCore core;
  exec::TraceOptions options;  // on this thread
  options.prechecked = &prechecks;
  exec::TracedPulse traced;
  base::Status status;
  const Stats trace = time_each_call(
      [&] {
        auto result = exec::trace_pulse(w.pre, w.txs, w.transfers.params, 1, options);
        if (!result) {
          status = base::fail(std::move(result).error());
          return;
        }
        traced = std::move(result).value();
      },
      context.measure_options());
  if (!status) return status;
  std::size_t witness_bytes = 0;
  for (const auto& chunk : traced.chunks) witness_bytes += codec::encoded_size(chunk.witness);
  const double chunks = static_cast<double>(traced.chunks.size());
  context.report_time(fmt::format("traced execution of {} transfers", w.txs.size()), trace, TimeUnit::ms,
                      fmt::format("{} chunks of <= {}, state machine with witnesses and proofs; signature "
                                  "verdicts and ids supplied by the all-cores pre-check outside the clock; {}; {}",
                                  traced.chunks.size(), options.max_txs_per_chunk, core.note(), w.pre_note));

  SION_TRY(const auto with_checks, time_replay(context, traced, w.txs, w.transfers.params, 1, true));
  SION_TRY(const auto without_checks, time_replay(context, traced, w.txs, w.transfers.params, 1, false));
  context.report_time("stateless replay of every chunk (stack A)", with_checks, TimeUnit::ms,
                      fmt::format("signature checks, ids and proofs included, {}; {:.1f} ms without signature "
                                  "checks; witnesses {:.1f} KiB in all, {:.1f} KiB per chunk",
                                  core.note(), without_checks.median * 1e3, static_cast<double>(witness_bytes) / 1024.0,
                                  static_cast<double>(witness_bytes) / 1024.0 / chunks));
  return {};
}

base::Result<Workload> make_workload(std::size_t transfers) {
  Workload w;
  SION_TRY(w.transfers, make_senders(transfers));
  SION_TRY(w.pre, exec::MemoryState::from_writes(w.transfers.writes));
  w.pre_note = fmt::format("pre-state of {} objects in memory", with_commas(w.pre.objects().size()));
  return w;
}

base::Status run(Context& context) {
  const std::size_t transfers = context.quick() ? 64 : kTransfers;
  SION_TRY(Workload w, make_workload(transfers));

  // Client signing: hedged, as a wallet signs, one transaction at a time.
  base::Status status;
  MeasureOptions rounds = context.measure_options();  // a round signs every transfer
  rounds.warmup = {};
  rounds.budget = {};
  rounds.min_samples = rounds.max_samples = context.quick() ? 1 : 3;
  Stats signing = time_each_call(
      [&] {
        auto signed_txs = sign_transfers(w.transfers);
        if (!signed_txs) {
          status = base::fail(std::move(signed_txs).error());
          return;
        }
        w.txs = std::move(signed_txs).value();
      },
      rounds);
  if (!status) return status;
  signing.median /= static_cast<double>(transfers);
  signing.p95 /= static_cast<double>(transfers);
  context.report("client signing (ML-DSA-44 + SLH-DSA-128f)", seconds_in(TimeUnit::us, signing.median), "µs/tx",
                 fmt::format("{} transfers, fee computed, hedged signing, one thread", transfers),
                 seconds_in(TimeUnit::us, signing.p95));

  const std::string pulse = fmt::format("Pulse of {} transfers", transfers);
  base::Executor all_cores(0);
  {
    const OneCore core;
    SION_TRY(const Stats one_core, time_pulse(w, exec::PulseOptions{}, nullptr, context));
    report_pulse(context, pulse + ", with signature checks", one_core, transfers,
                 fmt::format("{}; {}", core.note(), w.pre_note));
  }
  SION_TRY(const Stats on_all_cores, time_pulse(w, exec::PulseOptions{&all_cores}, nullptr, context));
  report_pulse(context, pulse + ", with signature checks, all cores", on_all_cores, transfers,
               fmt::format("signature checks on {}; {}", cores_note(&all_cores), w.pre_note));

  // The verdicts (and, for the `ids given` row, the ids) of an earlier
  // pre-check, as a proposer's made on all cores while it built the Pulse.
  const auto prechecks = exec::precheck_transactions(w.txs, w.transfers.params, exec::PulseOptions{&all_cores});
  const Verdicts verdicts = verdicts_of(prechecks);
  {
    const OneCore core;
    SION_TRY(const Stats machine, time_pulse(w, exec::PulseOptions{}, &verdicts, context));
    report_pulse(context, pulse + ", state machine only", machine, transfers,
                 fmt::format("{}; tx, key-bundle and coin ids and usage computed inside the clock, post-state "
                             "root included; signature verdicts from the pre-check; {}",
                             core.note(), w.pre_note));

    exec::PulseOptions given;
    given.prechecked = &prechecks;
    SION_TRY(const Stats ids_given, time_pulse(w, given, nullptr, context));
    report_pulse(context, pulse + ", state machine only, ids given", ids_given, transfers,
                 fmt::format("{}; ids, usage and verdicts from the all-cores pre-check outside the clock, "
                             "post-state root included; {}",
                             core.note(), w.pre_note));
  }
  if (auto large = report_large_state(context, w.transfers, w.txs, verdicts); !large) return large;
  if (auto stored = report_chain_store(context, w.transfers, w.txs, verdicts); !stored) return stored;
  return report_tracing(context, w, prechecks);
}

}  // namespace

Group execution() {
  return {"execution", "transactions: client signing, Pulse execution with and without signature checks", &run};
}

}  // namespace sion::bench::groups
