#include "sion/state/object_store.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sion/base/endian.hpp"
#include "sion/commit/smt_partial.hpp"
#include "sion/state/kv_store.hpp"

namespace sion::state {
namespace {

using commit::ChildRef;
using commit::Hash;
using commit::Node;
using commit::NodeKey;

// ---- Key layouts (docs/state.md, "On disk") ----------------------------------

constexpr std::size_t kNodeKeyBytes = 32 + 2 + 8;

std::array<std::uint8_t, 8> version_key(std::uint64_t version) noexcept {
  std::array<std::uint8_t, 8> key;
  base::store_be<std::uint64_t>(key.data(), version);
  return key;
}

// path (32) || depth (2, big-endian) || version (8, big-endian): a node's
// versions lie next to each other on disk.
std::array<std::uint8_t, kNodeKeyBytes> node_key_bytes(const NodeKey& key) noexcept {
  std::array<std::uint8_t, kNodeKeyBytes> out;
  std::copy(key.path.begin(), key.path.end(), out.begin());
  base::store_be<std::uint16_t>(out.data() + 32, key.depth);
  base::store_be<std::uint64_t>(out.data() + 34, key.version);
  return out;
}

// The nodes a version made stale, as one record under that version: their
// node keys concatenated. One put per version (not one per node) keeps the
// batch, the memtable and pruning's scan small.
base::Bytes stale_list_bytes(std::span<const NodeKey> keys) {
  base::Bytes out;
  out.reserve(keys.size() * kNodeKeyBytes);
  for (const NodeKey& key : keys) {
    const auto node = node_key_bytes(key);
    out.insert(out.end(), node.begin(), node.end());
  }
  return out;
}

constexpr std::string_view kLatestKey = "latest";
constexpr std::string_view kOldestKey = "oldest";

std::string hex_id(const ObjectId& id) { return base::to_hex(id); }

base::Failure corrupt(std::string reason) { return base::fail(base::Errc::corrupt_store, std::move(reason)); }

base::Result<std::uint64_t> read_meta(const KvStore& kv, std::string_view name) {
  SION_TRY(const auto bytes, kv.get(Column::meta, base::as_bytes(name)));
  if (!bytes.has_value()) return corrupt("meta '" + std::string(name) + "' is missing");
  if (bytes->size() != 8) return corrupt("meta '" + std::string(name) + "' is not 8 bytes");
  return base::load_be<std::uint64_t>(bytes->data());
}

class StoredNodes final : public commit::NodeReader {
 public:
  explicit StoredNodes(const KvStore& kv) : kv_(kv) {}
  base::Result<std::optional<Node>> read_node(const NodeKey& key) const override {
    SION_TRY(const auto bytes, kv_.get(Column::nodes, node_key_bytes(key)));
    if (!bytes.has_value()) return std::optional<Node>{};
    auto node = codec::decode<Node>(*bytes);
    if (!node) {
      return corrupt("tree node at depth " + std::to_string(key.depth) + ", version " + std::to_string(key.version) +
                     " does not decode: " + node.error().reason);
    }
    return std::optional<Node>(std::move(*node));
  }

 private:
  const KvStore& kv_;
};

}  // namespace

commit::Hash object_hash(const Object& object) {
  return commit::tagged_hash(commit::Domain::object, codec::encode(object));
}

namespace {

// The tree changes of `writes`, given the encodings of their objects (one
// per write that holds an object, in order), hashed in Keccak lanes.
std::vector<commit::StateChange> changes_from(std::span<const ObjectWrite> writes,
                                              std::span<const base::ByteView> encodings,
                                              base::Executor* executor = nullptr) {
  std::vector<commit::Hash> hashes(encodings.size());
  commit::tagged_hashes(commit::Domain::object, encodings, hashes.data(), executor);
  std::vector<commit::StateChange> changes;
  changes.reserve(writes.size());
  std::size_t next = 0;
  for (const ObjectWrite& write : writes) {
    changes.push_back({write.id, write.object ? std::optional{hashes[next++]} : std::nullopt});
  }
  return changes;
}

}  // namespace

std::vector<commit::StateChange> state_changes(std::span<const ObjectWrite> writes) {
  codec::EncodingBatch objects;
  for (const ObjectWrite& write : writes) {
    if (write.object) objects.add(*write.object);
  }
  return changes_from(writes, objects.views());
}

struct ObjectStore::Impl {
  std::unique_ptr<KvStore> kv;
  ObjectStoreOptions options;
  commit::SparseMerkleTree tree;
  std::uint64_t latest = 0;
  std::uint64_t oldest = 0;
  bool failed = false;  // a write failed: memory is ahead of disk
  mutable std::shared_mutex mutex;

  base::Status check_usable() const {
    if (failed) {
      return base::fail(base::Errc::io_error, "the store failed an earlier write; reopen it to continue");
    }
    return {};
  }

  base::Result<std::optional<ChildRef>> stored_root(std::uint64_t version) const {
    if (version < oldest || version > latest) {
      return base::fail(base::Errc::not_found, "version " + std::to_string(version) + " is not retained (retained: " +
                                                   std::to_string(oldest) + " to " + std::to_string(latest) + ")");
    }
    SION_TRY(const auto bytes, kv->get(Column::roots, version_key(version)));
    if (!bytes.has_value()) return corrupt("the root of version " + std::to_string(version) + " is missing");
    auto root = codec::decode<std::optional<ChildRef>>(*bytes);
    if (!root) {
      return corrupt("the root of version " + std::to_string(version) + " does not decode: " + root.error().reason);
    }
    return std::move(*root);
  }

  // The object stored under id, checked against the tree's value hash.
  base::Result<std::optional<Object>> read_object(const ObjectId& id) const {
    SION_TRY(const auto bytes, kv->get(Column::objects, id));
    const std::optional<Hash> expected = tree.get(id);
    if (!bytes.has_value()) {
      if (expected) return corrupt("object " + hex_id(id) + " is in the state tree but not on disk");
      return std::optional<Object>{};
    }
    auto object = codec::decode<Object>(*bytes);
    if (!object) return corrupt("object " + hex_id(id) + " does not decode: " + object.error().reason);
    if (!expected) return corrupt("object " + hex_id(id) + " is on disk but not in the state tree");
    if (object_hash(*object) != *expected) {
      return corrupt("object " + hex_id(id) + " does not match its hash in the state tree");
    }
    return std::optional<Object>(std::move(*object));
  }
};

ObjectStore::ObjectStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ObjectStore::~ObjectStore() = default;

base::Result<std::unique_ptr<ObjectStore>> ObjectStore::open(const std::string& directory,
                                                             const ObjectStoreOptions& options) {
  if (options.retain_versions == 0) {
    return base::fail(base::Errc::invalid_argument, "retain_versions must be at least 1");
  }
  KvOptions kv_options;
  kv_options.sync_writes = options.sync_writes;
  kv_options.extra_columns = options.extra_columns;
  kv_options.write_fault = options.write_fault;
  kv_options.read_only = options.read_only;
  SION_TRY(auto kv, KvStore::open(directory, kv_options));

  auto impl = std::make_unique<Impl>();
  impl->kv = std::move(kv);
  impl->options = options;

  SION_TRY(const auto latest_bytes, impl->kv->get(Column::meta, base::as_bytes(kLatestKey)));
  if (!latest_bytes.has_value()) {
    if (options.read_only) return base::fail(base::Errc::not_found, "the store in " + directory + " holds no state");
    // A new store: version 0 is the empty tree.
    KvBatch batch;
    batch.put(Column::roots, version_key(0), codec::encode(std::optional<ChildRef>{}));
    batch.put(Column::meta, base::as_bytes(kLatestKey), version_key(0));
    batch.put(Column::meta, base::as_bytes(kOldestKey), version_key(0));
    SION_TRY_STATUS(impl->kv->write(std::move(batch)));
    return std::unique_ptr<ObjectStore>(new ObjectStore(std::move(impl)));
  }

  SION_TRY(const auto latest, read_meta(*impl->kv, kLatestKey));
  SION_TRY(const auto oldest, read_meta(*impl->kv, kOldestKey));
  if (oldest > latest) return corrupt("meta: oldest version exceeds latest");
  impl->latest = latest;
  impl->oldest = oldest;

  SION_TRY(const auto root, impl->stored_root(impl->latest));
  SION_TRY(impl->tree, commit::SparseMerkleTree::load(StoredNodes(*impl->kv), root));
  return std::unique_ptr<ObjectStore>(new ObjectStore(std::move(impl)));
}

std::uint64_t ObjectStore::version() const noexcept {
  std::shared_lock lock(impl_->mutex);
  return impl_->latest;
}

commit::Hash ObjectStore::root() const noexcept {
  std::shared_lock lock(impl_->mutex);
  return impl_->tree.root_hash();
}

std::uint64_t ObjectStore::oldest_version() const noexcept {
  std::shared_lock lock(impl_->mutex);
  return impl_->oldest;
}

std::size_t ObjectStore::size() const noexcept {
  std::shared_lock lock(impl_->mutex);
  return impl_->tree.size();
}

base::Result<std::optional<Object>> ObjectStore::get(const ObjectId& id) const {
  std::shared_lock lock(impl_->mutex);
  SION_TRY_STATUS(impl_->check_usable());
  return impl_->read_object(id);
}

base::Result<ProvenObject> ObjectStore::get_with_proof(const ObjectId& id) const {
  std::shared_lock lock(impl_->mutex);
  SION_TRY_STATUS(impl_->check_usable());
  SION_TRY(auto object, impl_->read_object(id));
  ProvenObject proven;
  proven.store_version = impl_->latest;
  proven.root = impl_->tree.root_hash();
  proven.object = std::move(object);
  proven.proof = impl_->tree.prove(id);
  return proven;
}

base::Result<std::uint64_t> ObjectStore::apply(std::span<const ObjectWrite> writes) { return apply(writes, KvBatch{}); }

base::Result<std::uint64_t> ObjectStore::apply(std::span<const ObjectWrite> writes, KvBatch&& extra) {
  std::unique_lock lock(impl_->mutex);
  SION_TRY_STATUS(impl_->check_usable());
  if (impl_->options.read_only) return base::fail(base::Errc::invalid_argument, "the store is open read-only");
  const std::uint64_t version = impl_->latest + 1;

  // Everything that can reject the input happens before the tree changes.
  if (!extra.only_extra_columns()) {
    return base::fail(base::Errc::invalid_argument, "apply's extra batch writes a column of the object store");
  }
  KvBatch batch = std::move(extra);
  std::vector<base::Bytes> encodings;  // each object encoded once: stored and hashed
  for (const ObjectWrite& write : writes) {
    if (!write.object) {
      batch.erase(Column::objects, write.id);
      continue;
    }
    auto bytes = codec::encode_checked(*write.object);
    if (!bytes) {
      return base::fail(base::Errc::invalid_value, "object " + hex_id(write.id) + ": " + bytes.error().reason);
    }
    batch.put(Column::objects, write.id, *bytes);
    encodings.push_back(std::move(bytes).value());
  }
  const std::vector<base::ByteView> views(encodings.begin(), encodings.end());
  const std::vector<commit::StateChange> changes = changes_from(writes, views, impl_->options.executor);

  commit::UpdateOptions update_options;
  update_options.executor = impl_->options.executor;
  update_options.collect = true;
  // Fails on duplicate ids; the tree is then unchanged.
  SION_TRY(const auto update, impl_->tree.update(changes, version, update_options));

  for (const auto& [key, node] : update.new_nodes) {
    batch.put(Column::nodes, node_key_bytes(key), codec::encode(node));
  }
  if (!update.stale_nodes.empty()) {
    batch.put(Column::stale, version_key(version), stale_list_bytes(update.stale_nodes));
  }
  batch.put(Column::roots, version_key(version), codec::encode(update.root));

  // Prune in the same batch: versions below the window lose their roots,
  // and nodes made stale at or before the new oldest version are needed by
  // no retained version.
  const std::uint64_t retain = impl_->options.retain_versions;
  const std::uint64_t oldest = version >= retain ? version - retain + 1 : 0;
  for (std::uint64_t old = impl_->oldest; old < oldest; ++old) {
    batch.erase(Column::roots, version_key(old));
  }
  if (oldest > impl_->oldest) {
    // Stale records at or below the previous oldest version went in earlier
    // prunes; starting there, not at 0, keeps the seek from stepping over
    // the tombstones of every prune before (a cost that grew with the chain).
    base::Status malformed;
    auto status = impl_->kv->scan_range(Column::stale, version_key(impl_->oldest), version_key(oldest + 1),
                                        [&](base::ByteView key, base::ByteView nodes) {
                                          if (key.size() != 8 || nodes.size() % kNodeKeyBytes != 0) {
                                            malformed = corrupt(
                                                "a stale record is not a version (8 bytes) and a "
                                                "list of 42-byte node keys");
                                            return false;
                                          }
                                          batch.erase(Column::stale, key);
                                          for (std::size_t at = 0; at < nodes.size(); at += kNodeKeyBytes) {
                                            batch.erase(Column::nodes, nodes.subspan(at, kNodeKeyBytes));
                                          }
                                          return true;
                                        });
    if (status && !malformed) status = std::move(malformed);
    if (!status) {
      impl_->failed = true;
      return base::fail(std::move(status).error());
    }
  }
  batch.put(Column::meta, base::as_bytes(kLatestKey), version_key(version));
  batch.put(Column::meta, base::as_bytes(kOldestKey), version_key(oldest));

  if (auto status = impl_->kv->write(std::move(batch)); !status) {
    impl_->failed = true;
    return base::fail(std::move(status).error());
  }
  impl_->latest = version;
  impl_->oldest = oldest;
  return version;
}

base::Result<commit::Hash> ObjectStore::root_after(std::span<const ObjectWrite> writes) const {
  std::shared_lock lock(impl_->mutex);
  SION_TRY_STATUS(impl_->check_usable());
  for (const ObjectWrite& write : writes) {
    if (!write.object) continue;
    if (auto bytes = codec::encode_checked(*write.object); !bytes) {
      return base::fail(base::Errc::invalid_value, "object " + hex_id(write.id) + ": " + bytes.error().reason);
    }
  }
  return commit::root_after(impl_->tree, state_changes(writes));
}

base::Result<std::optional<base::Bytes>> ObjectStore::read_extra(Column column, base::ByteView key) const {
  if (!is_extra_column(column)) return base::fail(base::Errc::invalid_argument, "read_extra of a store column");
  std::shared_lock lock(impl_->mutex);
  return impl_->kv->get(column, key);
}

base::Status ObjectStore::scan_extra(Column column, base::ByteView first, base::ByteView last,
                                     const KvStore::Visitor& visit) const {
  if (!is_extra_column(column)) return base::fail(base::Errc::invalid_argument, "scan_extra of a store column");
  std::shared_lock lock(impl_->mutex);
  return impl_->kv->scan_range(column, first, last, visit);
}

base::Result<commit::Hash> ObjectStore::root_at(std::uint64_t version) const {
  std::shared_lock lock(impl_->mutex);
  SION_TRY(const auto root, impl_->stored_root(version));
  return root.has_value() ? root->hash : commit::Hash{};
}

base::Result<commit::StateProof> ObjectStore::prove_at(const ObjectId& id, std::uint64_t version) const {
  std::shared_lock lock(impl_->mutex);
  SION_TRY(const auto root, impl_->stored_root(version));
  return commit::prove_stored(StoredNodes(*impl_->kv), root, id);
}

base::Status ObjectStore::for_each(const Visitor& visit) const {
  std::shared_lock lock(impl_->mutex);
  if (auto status = impl_->check_usable(); !status) return status;
  base::Status decode_status;
  auto status = impl_->kv->scan_prefix(Column::objects, {}, [&](base::ByteView key, base::ByteView value) {
    if (key.size() != 32) {
      decode_status = corrupt("an object key is " + std::to_string(key.size()) + " bytes, not 32");
      return false;
    }
    ObjectId id;
    std::copy(key.begin(), key.end(), id.begin());
    auto object = codec::decode<Object>(value);
    if (!object) {
      decode_status = corrupt("object " + hex_id(id) + " does not decode: " + object.error().reason);
      return false;
    }
    return visit(id, *object);
  });
  if (!status) return status;
  return decode_status;
}

}  // namespace sion::state
