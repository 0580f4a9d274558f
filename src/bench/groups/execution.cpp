// Group `execution`: the state transition (src/exec, docs/ledger.md) on
// Pulses of 512 transfers between dual-key (ML-DSA-44 + SLH-DSA-SHA2-128f)
// accounts, seed 000's rows. Each sender spends its one coin to the next
// sender and gets its change back: three objects read, four written per
// transfer. Targets (issue 5): client signing <= 5 ms per transfer; the
// state machine >= 200,000 tx/s on one core; with signature checks >= 2,500
// tx/s on one core and >= 4,500 on two.

#include <fmt/format.h>

#include <chrono>
#include <thread>
#include <vector>

#include "groups.hpp"
#include "sion/exec/pulse.hpp"
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

  // The state machine alone: the signatures' verdicts come from an earlier
  // check (as a proposer's, made while it built the Pulse).
  const auto verdicts = exec::precheck_signatures(txs, workload->params, exec::PulseOptions{0});
  exec::PulseOptions machine{1};
  machine.verdicts = &verdicts;
  auto state_machine = time_pulse(*workload, txs, machine, context.quick() ? 5 : 21);
  if (!state_machine) return base::fail(std::move(state_machine).error());
  report_pulse(context, pulse + ", state machine only", *state_machine, transfers,
               "one core, post-state root included (target >= 200000 tx/s)");
  return {};
}

}  // namespace

Group execution() {
  return {"execution", "transactions: client signing, Pulse execution with and without signature checks", &run};
}

}  // namespace sion::bench::groups
