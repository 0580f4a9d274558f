// Group `execution`, continued: a Pulse on a large state held in a RocksDB
// ObjectStore on disk (docs/performance.md, "execution"), so that the tree
// depth, the reads and the commit are those of a real node.

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <vector>

#include "groups.hpp"
#include "sion/bench/cores.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/transaction.hpp"
#include "transfers.hpp"

namespace sion::bench::groups {
namespace {

// Writes per apply() while the store is built: large batches (few tree
// versions and synced writes), each a bounded amount of memory.
constexpr std::size_t kBuildBatch = 250'000;

// Filler account i: no keys exist for it (none are needed, it never
// sends), so its keys id is SHA3-256 of its index; its coin follows the
// senders' coins.
void add_filler(std::vector<state::ObjectWrite>& writes, std::size_t senders, std::size_t i) {
  std::uint8_t index[8];
  for (std::size_t b = 0; b < 8; ++b) index[b] = static_cast<std::uint8_t>(i >> (8 * b));
  const exec::Id keys_id = crypto::sha3_256(base::ByteView(index, sizeof index));
  const exec::Id account = exec::account_id_from_keys_id(keys_id);
  writes.push_back({account, exec::to_object(exec::Account{keys_id, 0}, 1)});
  writes.push_back({exec::genesis_coin_id(static_cast<std::uint32_t>(senders + i)),
                    exec::to_object(exec::Coin{account, 1'000'000'000}, 1)});
}

// `accounts` accounts with one coin each: the senders', then fillers.
base::Status build_state(state::ObjectStore& store, const TransferWorkload& transfers, std::size_t accounts) {
  std::vector<state::ObjectWrite> writes = transfers.writes;
  const std::size_t senders = transfers.senders.size();
  for (std::size_t i = 0; senders + i < accounts; ++i) {
    add_filler(writes, senders, i);
    if (writes.size() >= kBuildBatch || senders + i + 1 == accounts) {
      SION_TRY_STATUS(store.apply(writes));
      writes.clear();
    }
  }
  if (!writes.empty()) {
    SION_TRY_STATUS(store.apply(writes));
  }
  return {};
}

base::Status measure(Context& context, state::ObjectStore& store, const TransferWorkload& transfers,
                     const std::vector<exec::Transaction>& txs, const Verdicts& verdicts, std::size_t accounts,
                     double build_seconds) {
  const exec::StoreView view(store);
  const exec::ChainParams& params = transfers.params;

  // A run outside the clock finds what the Pulse writes; writing back those
  // objects' pre-state values (between samples, outside the clock) returns
  // the store to the same root, so every sample runs the same Pulse on the
  // same state.
  std::vector<state::ObjectWrite> restore;
  {
    const auto prechecks = ids_with_verdicts(txs, verdicts);
    exec::PulseOptions options;  // on this thread
    options.prechecked = &prechecks;
    SION_TRY(const auto dry, exec::execute_pulse(view, txs, params, 1, options));
    if (auto status = check_all_succeeded(dry); !status) return status;
    for (const state::ObjectWrite& write : dry.writes) {
      SION_TRY(auto before, store.get(write.id));
      restore.push_back({write.id, std::move(before)});
    }
  }
  const commit::Hash pre_root = store.root();
  const std::size_t pre_objects = store.size();
  SION_TRY(const auto sender, store.get_with_proof(transfers.writes.front().id));
  const std::size_t depth = sender.proof.depth;

  const OneCore core;
  std::vector<double> commit_seconds;
  bool dirty = false;
  base::Status status;
  const Stats stats = time_each_call_after(
      [&] {
        if (!dirty || !status) return;
        auto version = store.apply(restore);
        if (!version) {
          status = base::fail(std::move(version).error());
        } else if (store.root() != pre_root) {
          status = base::fail(base::Errc::internal, "execution bench: the restored store has another root");
        }
        dirty = false;
      },
      [&] {
        if (!status) return;
        auto prechecks = ids_with_verdicts(txs, verdicts);
        exec::PulseOptions options;  // on this thread
        options.prechecked = &prechecks;
        commit::Hash root{};
        double committing = 0;
        status = execute_and_commit(view, store, txs, params, options, root, &committing);
        commit_seconds.push_back(committing);
        dirty = true;
        do_not_optimize(root);
      },
      context.measure_options());
  if (!status) return status;
  context.report_rate(
      fmt::format("Pulse of {} transfers on a {}-account state", txs.size(), with_commas(accounts)), stats,
      static_cast<double>(txs.size()), "tx/s",
      fmt::format("{:.1f} ms per Pulse, {}; ids inside the clock, signature verdicts from the pre-check; reads "
                  "from a RocksDB ObjectStore on disk; commit (tree update, post-state root, one synced write "
                  "batch) {:.1f} ms of it (median, warm-up included); pre-state of {} objects ({} accounts with "
                  "one coin each, {} of them senders), a sender's proof depth {}; store built in {:.1f} s",
                  stats.median * 1e3, core.note(), summarize(commit_seconds).median * 1e3, with_commas(pre_objects),
                  with_commas(accounts), transfers.senders.size(), depth, build_seconds));
  return {};
}

}  // namespace

base::Status report_large_state(Context& context, const TransferWorkload& transfers,
                                const std::vector<exec::Transaction>& txs, const Verdicts& verdicts) {
  // --quick builds a tenth of the state, under its own row name.
  const std::size_t accounts = context.quick() ? 100'000 : 1'000'000;
  std::random_device entropy;
  const auto directory =
      std::filesystem::temp_directory_path() / fmt::format("sion-bench-execution-{}-{}", entropy(), entropy());
  base::Status status;
  {
    state::ObjectStoreOptions options;
    // No executor: the commit's tree hashing runs on this thread, inside the
    // one-core clock.
    SION_TRY(const auto store, state::ObjectStore::open(directory.string(), options));
    const auto start = std::chrono::steady_clock::now();
    status = build_state(*store, transfers, accounts);
    const double build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status) status = measure(context, *store, transfers, txs, verdicts, accounts, build_seconds);
  }
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  return status;
}

}  // namespace sion::bench::groups
