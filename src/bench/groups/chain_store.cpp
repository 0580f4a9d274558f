// Group `execution`, continued: storing one executed Pulse through the
// node's ChainStore (docs/performance.md, "execution"): the body appended
// to its body file and synced, then objects, tree nodes, header, body
// reference, receipts and the transaction index in one synced RocksDB write
// batch.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <vector>

#include "groups.hpp"
#include "sion/bench/cores.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/node/chain_store.hpp"
#include "transfers.hpp"

namespace sion::bench::groups {

base::Status report_chain_store(Context& context, const TransferWorkload& transfers,
                                const std::vector<exec::Transaction>& txs, const Verdicts& verdicts) {
  const exec::ChainParams& params = transfers.params;
  SION_TRY(const auto genesis, exec::MemoryState::from_writes(transfers.writes));
  std::vector<state::ObjectWrite> genesis_writes = transfers.writes;
  std::sort(genesis_writes.begin(), genesis_writes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });

  // The Pulse and its outcome, once, outside the clock (a follower has them
  // from check_pulse, a proposer from propose_pulse).
  const auto prechecks = ids_with_verdicts(txs, verdicts);
  exec::PulseOptions options;
  options.prechecked = &prechecks;
  exec::Id proposer{};
  proposer.fill(0x77);
  SION_TRY(const auto proposed,
           exec::propose_pulse(exec::MemoryPreState(genesis), exec::genesis_header(genesis.root(), params), txs,
                               1'767'225'600'000, proposer, params, options));
  if (proposed.pulse.body.size() != txs.size()) {
    return base::fail(base::Errc::internal, "chain store bench: a transfer of the workload was rejected");
  }

  std::random_device entropy;
  const auto directory =
      std::filesystem::temp_directory_path() / fmt::format("sion-bench-chain-{}-{}", entropy(), entropy());
  std::unique_ptr<node::ChainStore> store;
  base::Status status;
  std::error_code ignored;
  const OneCore core;
  // Each sample stores the Pulse at height 1 of a fresh store holding the
  // genesis state (opened and initialized outside the clock).
  const Stats stats = time_each_call_after(
      [&] {
        store.reset();
        std::filesystem::remove_all(directory, ignored);
        if (!status) return;
        auto opened = node::ChainStore::open(directory.string());
        if (!opened) {
          status = base::fail(std::move(opened).error());
          return;
        }
        store = std::move(*opened);
        status = store->initialize(genesis_writes, genesis.root(), params);
      },
      [&] {
        if (!status) return;
        status = store->commit(proposed.pulse, proposed.outcome);
      },
      context.measure_options());
  store.reset();
  std::filesystem::remove_all(directory, ignored);
  if (!status) return status;
  context.report_time(
      fmt::format("store a Pulse of {} transfers", txs.size()), stats, TimeUnit::ms,
      fmt::format("ChainStore::commit, {}: {} object writes and their tree nodes, header, body ({:.1f} MB, "
                  "appended to a body file and synced), receipts, tx index, one synced RocksDB batch; on a fresh "
                  "store of {} objects (the senders' "
                  "accounts and coins), opened and initialized outside the clock",
                  core.note(), proposed.outcome.writes.size(),
                  static_cast<double>(codec::encoded_size(proposed.pulse.body)) / 1e6, genesis_writes.size()));
  return {};
}

}  // namespace sion::bench::groups
