#pragma once
// The object store (docs/state.md): typed, versioned objects under 32-byte
// ids, with the sparse Merkle state tree (commit/smt.hpp) over their hashes,
// persisted in RocksDB.
//
// Every apply() is one store version and one RocksDB write batch: the
// objects it writes, the tree nodes it creates, the index of nodes it made
// stale, the version's root and the new latest version go to disk together
// or not at all. A killed process therefore reopens at the last version
// whose batch was written, complete. Versions older than the retention
// window are pruned: their stale nodes and roots are deleted.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/smt.hpp"
#include "sion/commit/smt_proof.hpp"
#include "sion/state/kv_store.hpp"

namespace sion::state {

using ObjectId = commit::Hash;

// The largest object the store accepts.
inline constexpr std::size_t kMaxObjectBytes = std::size_t{1} << 20;

struct Object {
  std::uint32_t type = 0;     // what the bytes are; meaning belongs to exec
  std::uint64_t version = 0;  // the object's own version, bumped by exec
  codec::VarBytes<kMaxObjectBytes> data;

  static constexpr std::string_view codec_name = "Object";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("type", &Object::type), codec::field("version", &Object::version),
                      codec::field("data", &Object::data)};
  }
  bool operator==(const Object&) const = default;
};

// The value hash the state tree holds for an object:
// SHA3-256(0x40 || codec encoding of the object) (docs/commit.md).
commit::Hash object_hash(const Object& object);

// Sets `id` to `object`, or deletes it (nullopt).
struct ObjectWrite {
  ObjectId id{};
  std::optional<Object> object;
};

// Each write as a change of the state tree: its object's hash, or a
// deletion. The hashes are taken in Keccak lanes (commit::tagged_hashes).
std::vector<commit::StateChange> state_changes(std::span<const ObjectWrite> writes);

struct ObjectStoreOptions {
  // Versions kept readable (roots and proofs): the latest and the
  // retain_versions - 1 before it. At least 1.
  std::uint64_t retain_versions = 64;
  bool sync_writes = true;             // fsync each version's batch
  base::Executor* executor = nullptr;  // tree hashing; nullptr: the calling thread. Must outlive the store
  // The caller's own columns (KvOptions::extra_columns): records a higher
  // layer writes in the same batch as a version (apply's `extra`).
  std::vector<std::string> extra_columns = {};
  // Test hook: KvOptions::write_fault. Empty in production.
  std::function<base::Status()> write_fault = {};
  // KvOptions::read_only: an existing store, read without changing it
  // (apply fails with invalid_argument; a store never written is not_found).
  bool read_only = false;
};

// An object (or its absence) with the proof that ties it to a root.
struct ProvenObject {
  std::uint64_t store_version = 0;
  commit::Hash root{};
  std::optional<Object> object;
  commit::StateProof proof;
};

class ObjectStore {
 public:
  // Opens the store in `directory`, creating it empty (version 0, the empty
  // root) if there is none, and loads the latest version's tree into memory,
  // checking every node against the stored root.
  static base::Result<std::unique_ptr<ObjectStore>> open(const std::string& directory,
                                                         const ObjectStoreOptions& options = {});
  ~ObjectStore();
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  std::uint64_t version() const noexcept;         // the latest committed version
  commit::Hash root() const noexcept;             // its state root
  std::uint64_t oldest_version() const noexcept;  // the oldest still readable
  std::size_t size() const noexcept;              // objects held

  // The latest version of an object; nullopt if absent. Bytes on disk that
  // do not decode, or do not hash to what the tree holds, are corrupt_store.
  base::Result<std::optional<Object>> get(const ObjectId& id) const;
  base::Result<ProvenObject> get_with_proof(const ObjectId& id) const;

  // Applies writes (ids distinct) as version version() + 1, atomically.
  // Invalid writes (duplicate ids, an oversized object) change nothing. A
  // failed disk write leaves the store unusable (every later call fails)
  // until reopened, since memory would be ahead of disk.
  base::Result<std::uint64_t> apply(std::span<const ObjectWrite> writes);
  // The same, with `extra` (operations on the caller's columns only, else
  // invalid_argument) written in the version's batch: both reach disk
  // together or not at all.
  base::Result<std::uint64_t> apply(std::span<const ObjectWrite> writes, KvBatch&& extra);

  // The root the latest version would have after `writes`, without applying
  // them (commit::root_after). Invalid writes fail as apply's do.
  base::Result<commit::Hash> root_after(std::span<const ObjectWrite> writes) const;

  // Reads of the caller's columns (invalid_argument for the store's own).
  base::Result<std::optional<base::Bytes>> read_extra(Column column, base::ByteView key) const;
  base::Status scan_extra(Column column, base::ByteView first, base::ByteView last,
                          const KvStore::Visitor& visit) const;

  // The root of a retained version, and a proof read from its stored nodes.
  base::Result<commit::Hash> root_at(std::uint64_t version) const;
  base::Result<commit::StateProof> prove_at(const ObjectId& id, std::uint64_t version) const;

  // Visits every object of the latest version in ascending id order (a
  // snapshot's content) until `visit` returns false.
  using Visitor = std::function<bool(const ObjectId& id, const Object& object)>;
  base::Status for_each(const Visitor& visit) const;

 private:
  struct Impl;
  explicit ObjectStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sion::state
