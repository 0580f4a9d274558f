// Group `state`, continued: the sparse Merkle state tree and its RocksDB
// commits (docs/performance.md, "state").

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "groups.hpp"
#include "sion/bench/cores.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"
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

// Objects as a genesis holds them: accounts and coins, 40 bytes of data
// each (a 32-byte id and a u64), under random ids; encoded here, outside
// the clock.
struct EncodedObjects {
  std::vector<Hash> ids;
  codec::EncodingBatch encodings;
  std::vector<base::ByteView> views;
};

std::unique_ptr<EncodedObjects> random_objects(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto objects = std::make_unique<EncodedObjects>();
  objects->ids.reserve(count);
  state::Object object;
  object.version = 1;
  object.data.resize(40);
  for (std::size_t i = 0; i < count; ++i) {
    objects->ids.push_back(random_hash(rng));
    object.type = 1 + static_cast<std::uint32_t>(i % 2);
    for (auto& byte : object.data) byte = static_cast<std::uint8_t>(rng());
    objects->encodings.add(object);
  }
  objects->views = objects->encodings.views();
  return objects;
}

// The caller's arrays for the object hashes and the tree's entries: reused
// from call to call by the warm rows, new in a first call.
struct RootBuffers {
  std::vector<Hash> hashes;
  std::vector<commit::StateEntry> entries;
  commit::TreeScratch scratch;  // the tree's sort and hash arrays
};

// What a genesis does with its objects' encodings: hash each (0x40 tag, in
// Keccak lanes, as state::state_changes does), then sort the ids, build
// and hash every node of the tree.
base::Result<Hash> root_from_encodings(const EncodedObjects& objects, base::Executor* executor, RootBuffers& buffers) {
  const std::size_t count = objects.views.size();
  buffers.hashes.resize(count);
  commit::tagged_hashes(commit::Domain::object, objects.views, buffers.hashes.data(), executor);
  buffers.entries.resize(count);
  for (std::size_t i = 0; i < count; ++i) buffers.entries[i] = {objects.ids[i], buffers.hashes[i]};
  return commit::state_root(buffers.entries, executor, &buffers.scratch);
}

Stats time_root(const EncodedObjects& objects, base::Executor* executor, const Context& context) {
  RootBuffers buffers;
  const auto measure = [&] {
    auto root = root_from_encodings(objects, executor, buffers);
    do_not_optimize(root);
  };
  return objects.ids.size() <= 10000 ? time_per_call(measure, context.measure_options())
                                     : time_each_call(measure, context.measure_options());
}

// One call in a process that has made none: a forked child runs it with
// new buffers, so every page it writes is new to it (fresh or
// copy-on-write) and no allocator holds warm pages of an earlier call. On
// the child's one thread: a thread pool does not survive fork().
// Seconds, or nullopt if the child could not run or report.
std::optional<double> first_call_seconds(const EncodedObjects& objects) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return std::nullopt;
  const pid_t child = fork();
  if (child < 0) {
    close(pipe_ends[0]);
    close(pipe_ends[1]);
    return std::nullopt;
  }
  if (child == 0) {
    close(pipe_ends[0]);
    double seconds = -1;
    {
      const auto start = std::chrono::steady_clock::now();
      RootBuffers buffers;
      auto root = root_from_encodings(objects, nullptr, buffers);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!root) seconds = -1;
      do_not_optimize(root);
    }
    const bool sent = write(pipe_ends[1], &seconds, sizeof seconds) == static_cast<ssize_t>(sizeof seconds);
    _exit(sent ? 0 : 1);
  }
  close(pipe_ends[1]);
  double seconds = -1;
  const bool got = read(pipe_ends[0], &seconds, sizeof seconds) == static_cast<ssize_t>(sizeof seconds);
  close(pipe_ends[0]);
  int wait_status = 0;
  const bool exited =
      waitpid(child, &wait_status, 0) == child && WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
  if (!got || !exited || !(seconds > 0)) return std::nullopt;
  return seconds;
}

base::Status report_first_call(Context& context, const EncodedObjects& objects) {
  std::vector<double> seconds;
  const std::size_t children = context.quick() ? 1 : 3;
  for (std::size_t i = 0; i < children; ++i) {
    const auto call = first_call_seconds(objects);
    if (!call) return base::fail(base::Errc::internal, "state tree: the first-call child process failed");
    seconds.push_back(*call);
  }
  context.report_time(fmt::format("state root of {} objects, first call", objects.ids.size()), summarize(seconds),
                      TimeUnit::ms,
                      fmt::format("as the row without \"first call\" (its arrays new too), once in each of {} "
                                  "forked child processes that had made no call (no scratch or warm pages from an "
                                  "earlier one); {}",
                                  children, cores_note(nullptr)));
  return {};
}

// Versions of 10,000 new 100-byte objects each, applied to an object store
// in a fresh folder: tree update, encoding, one synced RocksDB write batch.
base::Status report_rocksdb_commit(Context& context) {
  std::random_device entropy;
  const auto directory =
      std::filesystem::temp_directory_path() / fmt::format("sion-bench-state-{}-{}", entropy(), entropy());
  base::Status status;
  {
    SION_TRY(const auto store, state::ObjectStore::open(directory.string()));
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
          auto version = store->apply(writes);
          if (!version) status = base::fail(std::move(version).error());
        },
        context.measure_options());
    if (status) {
      context.report_time(
          "commit 10000 objects to RocksDB", commit, TimeUnit::ms,
          fmt::format("100-byte objects, one synced write batch, {} objects at the end", store->size()));
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  return status;
}

}  // namespace

base::Status report_state_tree(Context& context) {
  base::Executor two_cores(2);
  // --quick keeps the 1,000,000-object rows out (about 300 MB and seconds
  // of setup) and measures the update and proofs on 100,000 objects.
  const std::size_t big = context.quick() ? 100000 : 1000000;
  const auto small = random_objects(1000, 1);
  const auto medium = random_objects(100000, 2);
  const auto large = random_objects(big, 3);

  // First, while this process has built no state tree yet.
  if (auto status = report_first_call(context, *medium); !status) return status;
  if (!context.quick()) {
    if (auto status = report_first_call(context, *large); !status) return status;
  }

  const std::string from_encodings = "from the objects' encodings: object hashes, sort, every node";
  context.report_time("state root of 1000 objects", time_root(*small, nullptr, context), TimeUnit::ms,
                      fmt::format("{}; {}", from_encodings, cores_note(nullptr)));
  context.report_time("state root of 100000 objects", time_root(*medium, nullptr, context), TimeUnit::ms,
                      fmt::format("{}; {}", from_encodings, cores_note(nullptr)));
  if (!context.quick()) {
    context.report_time("state root of 1000000 objects", time_root(*large, &two_cores, context), TimeUnit::ms,
                        fmt::format("{}; {}", from_encodings, cores_note(&two_cores)));
  }

  std::vector<commit::StateEntry> entries;
  entries.reserve(big);
  for (std::size_t i = 0; i < big; ++i) {
    entries.push_back({large->ids[i], commit::tagged_hash(commit::Domain::object, large->views[i])});
  }
  SION_TRY(auto tree, commit::SparseMerkleTree::from_entries(entries, 1, &two_cores));

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
        auto result = tree.update(batches[version % kBatches], version, {&two_cores, false});
        if (!result) failed = base::fail(std::move(result).error());
        do_not_optimize(result);
      },
      context.measure_options());
  if (!failed) return failed;
  context.report_time(fmt::format("update 10000 of {} objects", big), update, TimeUnit::ms,
                      fmt::format("{}, new values for existing objects", cores_note(&two_cores)));

  std::size_t next = 0;
  const Stats prove = time_per_call(
      [&] {
        auto proof = tree.prove(entries[next++ % big].key);
        do_not_optimize(proof);
      },
      context.measure_options());
  const Hash& key = entries[7].key;
  const commit::StateProof proof = tree.prove(key);
  const std::optional<Hash> value = tree.get(key);
  context.report_time("proof of one object", prove, TimeUnit::us,
                      fmt::format("{} B encoded, {} objects", codec::encode(proof).size(), big));

  const Hash root = tree.root_hash();
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
