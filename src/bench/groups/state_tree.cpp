// Group `state`, continued: the sparse Merkle state tree and its RocksDB
// commits.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <vector>

#include "groups.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/smt.hpp"
#include "sion/state/object_store.hpp"

namespace sion::bench::groups {
namespace {

using commit::Hash;

Hash random_hash(std::mt19937_64& rng) {
  Hash h;
  for (std::size_t i = 0; i < h.size(); i += 8) {
    const std::uint64_t word = rng();
    for (std::size_t j = 0; j < 8; ++j) h[i + j] = static_cast<std::uint8_t>(word >> (8 * j));
  }
  return h;
}

std::vector<commit::StateEntry> random_entries(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<commit::StateEntry> entries(count);
  for (auto& e : entries) e = {random_hash(rng), random_hash(rng)};
  return entries;
}

// From scratch: sort, build and hash every node.
Stats time_root(const std::vector<commit::StateEntry>& entries, unsigned threads, const Context& context) {
  const auto measure = [&] {
    auto root = commit::state_root(entries, threads);
    do_not_optimize(root);
  };
  return entries.size() <= 10000 ? time_per_call(measure, context.measure_options())
                                 : time_each_call(measure, context.measure_options());
}

// Versions of 10,000 new 100-byte objects each, applied to an object store
// in a fresh folder: tree update, encoding, one synced RocksDB write batch.
base::Status report_rocksdb_commit(Context& context) {
  std::random_device entropy;
  const auto directory = std::filesystem::temp_directory_path() /
                         fmt::format("sion-bench-state-{}-{}", entropy(), entropy());
  base::Status status;
  {
    auto store = state::ObjectStore::open(directory.string());
    if (!store) return base::fail(std::move(store).error());
    std::mt19937_64 rng(5);
    std::vector<state::ObjectWrite> writes(10000);
    const Stats commit = time_each_call(
        [&] {
          for (auto& write : writes) {
            write.id = random_hash(rng);
            state::Object object;
            object.type = 1;
            object.version = 1;
            object.data.resize(100, static_cast<std::uint8_t>(rng()));
            write.object = std::move(object);
          }
          auto version = (*store)->apply(writes);
          if (!version) status = base::fail(std::move(version).error());
        },
        context.measure_options());
    if (status) {
      context.report_time("commit 10000 objects to RocksDB", commit, TimeUnit::ms,
                          fmt::format("100-byte objects, one synced write batch, {} objects at the end",
                                      (*store)->size()));
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  return status;
}

}  // namespace

base::Status report_state_tree(Context& context) {
  const unsigned both = 2;
  context.report_time("state root of 1000 objects", time_root(random_entries(1000, 1), 1, context), TimeUnit::ms,
                      "one core");
  context.report_time("state root of 100000 objects", time_root(random_entries(100000, 2), 1, context),
                      TimeUnit::ms, "one core");

  // --quick keeps the 1,000,000-object rows out (about 300 MB and seconds
  // of setup) and measures the update and proofs on 100,000 objects.
  const std::size_t big = context.quick() ? 100000 : 1000000;
  const auto entries = random_entries(big, 3);
  if (!context.quick()) {
    context.report_time("state root of 1000000 objects", time_root(entries, both, context), TimeUnit::ms,
                        "two cores");
  }

  auto tree = commit::SparseMerkleTree::from_entries(entries, 1, both);
  if (!tree) return base::fail(std::move(tree).error());

  // Batches of 10,000 new values for existing objects, made ahead.
  std::mt19937_64 rng(4);
  constexpr std::size_t kBatches = 8;
  std::vector<std::vector<commit::StateChange>> batches(kBatches);
  for (auto& batch : batches) {
    for (std::size_t i = 0; i < 10000; ++i) batch.push_back({entries[rng() % big].key, random_hash(rng)});
    std::sort(batch.begin(), batch.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    batch.erase(std::unique(batch.begin(), batch.end(), [](const auto& a, const auto& b) { return a.key == b.key; }),
                batch.end());
  }
  std::uint64_t version = 1;
  base::Status failed;
  const Stats update = time_each_call(
      [&] {
        ++version;
        auto result = tree->update(batches[version % kBatches], version, {both, false});
        if (!result) failed = base::fail(std::move(result).error());
        do_not_optimize(result);
      },
      context.measure_options());
  if (!failed) return failed;
  context.report_time(fmt::format("update 10000 of {} objects", big), update, TimeUnit::ms,
                      "two cores, new values for existing objects");

  std::size_t next = 0;
  const Stats prove = time_per_call(
      [&] {
        auto proof = tree->prove(entries[next++ % big].key);
        do_not_optimize(proof);
      },
      context.measure_options());
  const Hash& key = entries[7].key;
  const commit::StateProof proof = tree->prove(key);
  const std::optional<Hash> value = tree->get(key);
  context.report_time("proof of one object", prove, TimeUnit::us,
                      fmt::format("{} B encoded, {} objects", codec::encode(proof).size(), big));

  const Hash root = tree->root_hash();
  bool ok = true;
  const Stats verify = time_per_call(
      [&] {
        ok = commit::verify_state_proof(root, key, value, proof) && ok;
        do_not_optimize(ok);
      },
      context.measure_options());
  if (!ok) return base::fail(base::Errc::internal, "state tree: a valid proof did not verify");
  context.report_time("verify one proof", verify, TimeUnit::us,
                      fmt::format("{} siblings, depth {}", proof.siblings.size(), proof.depth));
  return report_rocksdb_commit(context);
}

}  // namespace sion::bench::groups
