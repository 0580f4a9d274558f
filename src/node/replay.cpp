#include "sion/node/replay.hpp"

#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sion/exec/pulse_header.hpp"

namespace sion::node {
namespace {

base::Failure mismatch(std::uint64_t height, const std::string& what) {
  return base::fail(base::Errc::corrupt_store, "replay: height " + std::to_string(height) + ": " + what);
}

std::string describe(const exec::Receipt& receipt) {
  return "status " + std::string(exec::status_name(receipt.status)) + ", fee_paid " + std::to_string(receipt.fee_paid) +
         ", coins_created " + std::to_string(receipt.coins_created) + ", tx " + base::to_hex(receipt.tx_id);
}

// The stored receipts and index entries of height h against the replayed
// receipts of its body.
base::Status check_receipts(const ChainStore& store, std::uint64_t height, std::span<const exec::Transaction> body,
                            std::span<const exec::Receipt> replayed) {
  SION_TRY_CONTEXT(const auto stored, "replay: height " + std::to_string(height), store.receipts(height));
  if (stored.size() != replayed.size()) {
    return mismatch(height, "receipts: " + std::to_string(stored.size()) + " stored for " +
                                std::to_string(replayed.size()) + " transactions");
  }
  for (std::size_t i = 0; i < stored.size(); ++i) {
    if (stored[i] != replayed[i]) {
      return mismatch(height, "receipts: receipt " + std::to_string(i) + " differs from re-execution: stored " +
                                  describe(stored[i]) + "; replayed " + describe(replayed[i]));
    }
  }
  for (std::size_t i = 0; i < body.size(); ++i) {
    const exec::Id id = exec::tx_id(body[i].payload);
    SION_TRY_CONTEXT(const auto record, "replay: height " + std::to_string(height), store.find_transaction(id));
    const TxLocation expected{height, static_cast<std::uint32_t>(i)};
    if (!record) {
      return mismatch(height,
                      "tx_index: transaction " + std::to_string(i) + " (" + base::to_hex(id) + ") is not in the index");
    }
    if (record->location != expected) {
      return mismatch(height, "tx_index: transaction " + std::to_string(i) + " (" + base::to_hex(id) +
                                  ") is indexed at height " + std::to_string(record->location.height) + ", position " +
                                  std::to_string(record->location.position));
    }
  }
  return {};
}

// Every stored object against the replayed state, both in ascending id
// order (RocksDB's byte order and commit::HashOrder agree).
base::Status check_objects(const ChainStore& store, std::uint64_t height, const exec::MemoryState& replayed) {
  const auto& objects = replayed.objects();
  auto next = objects.begin();
  std::optional<base::Failure> differs;
  const auto visit = [&](const exec::Id& id, const state::Object& object) {
    if (next != objects.end() && commit::HashOrder{}(next->first, id)) {
      differs = mismatch(height, "state: object " + base::to_hex(next->first) + " of the replay is not stored");
    } else if (next == objects.end() || next->first != id) {
      differs = mismatch(height, "state: object " + base::to_hex(id) + " is stored but not in the replay");
    } else if (next->second != object) {
      differs = mismatch(height, "state: object " + base::to_hex(id) + " differs from the replayed one");
    }
    ++next;
    return !differs;
  };
  SION_TRY_STATUS_CONTEXT("replay: height " + std::to_string(height), store.state().for_each(visit));
  if (differs) return std::move(*differs);
  if (next != objects.end()) {
    return mismatch(height, "state: object " + base::to_hex(next->first) + " of the replay is not stored");
  }
  return {};
}

// The coins-by-owner index against the replayed state, for every account
// and every owner of a coin.
base::Status check_coin_index(const ChainStore& store, std::uint64_t height, const exec::MemoryState& replayed) {
  std::map<exec::Id, std::vector<std::pair<exec::Id, exec::Amount>>, commit::HashOrder> owners;
  for (const auto& [id, object] : replayed.objects()) {
    if (object.type == static_cast<std::uint32_t>(exec::ObjectType::account)) {
      owners[id];
    } else if (object.type == static_cast<std::uint32_t>(exec::ObjectType::coin)) {
      if (auto coin = exec::coin_from(object)) owners[coin->owner].emplace_back(id, coin->amount);
    }
  }
  for (const auto& [owner, coins] : owners) {
    SION_TRY_CONTEXT(const auto listed, "replay: height " + std::to_string(height), store.coins_of(owner));
    if (listed != coins) {
      return mismatch(height, "coins_by_owner: the index lists " + std::to_string(listed.size()) +
                                  " coins of account " + base::to_hex(owner) + ", the replayed state holds " +
                                  std::to_string(coins.size()));
    }
  }
  return {};
}

}  // namespace

base::Result<ReplayReport> replay_chain(const ChainStore& store, const exec::Genesis& genesis,
                                        const ReplayOptions& options) {
  const exec::ChainParams& params = genesis.params;
  if (!store.initialized()) return base::fail(base::Errc::not_found, "replay: the chain store is not initialized");
  if (store.params() != params) {
    return base::fail(base::Errc::invalid_value,
                      "replay: height 0: params: the chain's parameters are not the genesis file's (params hash " +
                          base::to_hex(exec::params_hash(store.params())) + ", not " +
                          base::to_hex(exec::params_hash(params)) + "): another chain");
  }
  SION_TRY(const commit::Hash genesis_root, exec::genesis_state_root(genesis));
  SION_TRY_CONTEXT(exec::PulseHeader parent, "replay: height 0", store.header(0));
  if (parent != exec::genesis_header(genesis_root, params)) {
    return base::fail(base::Errc::invalid_value, "replay: height 0: state_root: the chain's genesis state root " +
                                                     base::to_hex(parent.state_root) + " is not the genesis file's " +
                                                     base::to_hex(genesis_root) + ": another chain");
  }
  SION_TRY(exec::MemoryState state, exec::MemoryState::from_writes(exec::genesis_writes(genesis)));

  ReplayReport report;
  const std::uint64_t latest = store.height();
  exec::PulseOptions pulse_options;
  pulse_options.executor = options.executor;
  for (std::uint64_t height = 1; height <= latest; ++height) {
    const std::string where = "replay: height " + std::to_string(height);
    exec::Pulse pulse;
    SION_TRY_CONTEXT(pulse.header, where, store.header(height));
    SION_TRY_CONTEXT(auto body, where, store.body(height));
    pulse.body.assign(std::make_move_iterator(body.begin()), std::make_move_iterator(body.end()));
    auto checked = exec::check_pulse(exec::MemoryPreState(state), parent, pulse, params, pulse_options);
    if (!checked) {
      // invalid_value: the stored Pulse is not what its body gives.
      if (checked.error().code == base::Errc::invalid_value) return mismatch(height, checked.error().reason);
      return base::fail(base::Error(std::move(checked).error()).with_context(where));
    }
    SION_TRY_STATUS(check_receipts(store, height, pulse.body, checked->outcome.receipts));
    SION_TRY_CONTEXT(const commit::Hash root, where, state.apply(checked->outcome.writes));
    if (root != pulse.header.state_root) {
      return mismatch(height, "state_root: the replayed state's root " + base::to_hex(root) + " is not the header's " +
                                  base::to_hex(pulse.header.state_root));
    }
    report.transactions += pulse.body.size();
    ++report.pulses;
    parent = std::move(pulse.header);
    if (options.progress) options.progress(height, latest);
  }

  if (store.head() != parent) return mismatch(latest, "the latest header is not the stored header of its height");
  if (store.state().root() != state.root()) {
    return mismatch(latest, "state: the stored state's root " + base::to_hex(store.state().root()) +
                                " is not the replayed " + base::to_hex(state.root()));
  }
  SION_TRY_STATUS(check_objects(store, latest, state));
  SION_TRY_STATUS(check_coin_index(store, latest, state));
  report.objects = state.objects().size();
  report.state_root = state.root();
  return report;
}

}  // namespace sion::node
