#pragma once
// The sparse Merkle state tree (docs/state-tree.md): 256 levels over 32-byte
// keys, bits taken most significant first from key[0].
//
//   empty subtree        = 32 zero bytes, at every height
//   subtree of one leaf  = H(0x10 || key || value_hash)    (collapsed, as in
//                          Diem/Aptos's Jellyfish Merkle tree)
//   subtree of >= 2      = H(0x11 || left || right)
//
// The root is a function of the set of (key, value hash) pairs only, so it
// does not depend on the order of insertion, and building it costs O(n)
// hashes plus the one-child chains above branch points, never 2^256.
//
// Persistence seam (for the `state` layer): every node sits at a stable
// position (depth, path prefix) and carries the version that last wrote it;
// NodeKey names it, Node is its codec encoding, and an update reports the
// nodes it wrote and the nodes it made stale, ready for one write batch per
// version. A stored version is reopened with SparseMerkleTree::load through
// a NodeReader, and proofs can be read straight from one (prove_stored).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/detail/large_allocator.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/smt_proof.hpp"

namespace sion::commit {

// One object in the tree.
struct StateEntry {
  Hash key{};
  Hash value_hash{};
};

// One change of a batch: set key's value hash, or delete the key (nullopt).
// Deleting an absent key changes nothing.
struct StateChange {
  Hash key{};
  std::optional<Hash> value_hash;
};

// ---- Stored form --------------------------------------------------------------

// Where a node sits and which version wrote it. `path` holds the first
// `depth` bits of every key below the node; the other bits are zero.
struct NodeKey {
  std::uint64_t version = 0;
  std::uint16_t depth = 0;  // 0 (the root) .. 256
  Hash path{};
  static constexpr std::string_view codec_name = "NodeKey";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("version", &NodeKey::version), codec::field("depth", &NodeKey::depth),
                      codec::field("path", &NodeKey::path)};
  }
  bool operator==(const NodeKey&) const = default;
};

// A parent's reference to a non-empty child: its hash, the version that
// wrote it (with the child's depth and path, its NodeKey) and its kind.
struct ChildRef {
  Hash hash{};
  std::uint64_t version = 0;
  bool leaf = false;
  static constexpr std::string_view codec_name = "ChildRef";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("hash", &ChildRef::hash), codec::field("version", &ChildRef::version),
                      codec::field("leaf", &ChildRef::leaf)};
  }
  bool operator==(const ChildRef&) const = default;
};

struct InternalNode {
  std::optional<ChildRef> left;  // none: an empty subtree
  std::optional<ChildRef> right;
  static constexpr std::string_view codec_name = "InternalNode";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("left", &InternalNode::left), codec::field("right", &InternalNode::right)};
  }
  bool operator==(const InternalNode&) const = default;
};

using Node = std::variant<InternalNode, StateLeaf>;

// Reads stored nodes: the `state` layer implements it over RocksDB; tests
// over a map. nullopt: no node under that key.
class NodeReader {
 public:
  virtual ~NodeReader() = default;
  virtual base::Result<std::optional<Node>> read_node(const NodeKey& key) const = 0;
};

// The first `depth` bits of key, the rest zero.
Hash key_prefix(const Hash& key, unsigned depth) noexcept;

// What one update wrote: the new root and, when asked for
// (UpdateOptions::collect), every node written at `version` and every node
// it replaced or removed. Applying new_nodes and deleting stale_nodes turns
// the stored version before into this one; keeping stale nodes until a
// version is pruned keeps the older versions readable.
struct TreeUpdate {
  std::uint64_t version = 0;
  std::optional<ChildRef> root;  // none: the empty tree
  std::vector<std::pair<NodeKey, Node>> new_nodes;
  std::vector<NodeKey> stale_nodes;
};

struct UpdateOptions {
  base::Executor* executor = nullptr;  // hashing and sorting on it (at most 8 tasks); nullptr: this thread
  bool collect = false;                // fill TreeUpdate::new_nodes and stale_nodes
};

// Arrays that batch operations (an update, state_root) sort and hash in:
// tens of megabytes for a million objects, and fresh pages cost more than
// the sort, so whoever builds trees one after another keeps one of these.
// A copy starts empty: scratch is not state.
class TreeScratch {
 public:
  TreeScratch() noexcept;
  ~TreeScratch();
  TreeScratch(const TreeScratch&) noexcept : TreeScratch() {}
  TreeScratch& operator=(const TreeScratch&) noexcept { return *this; }
  TreeScratch(TreeScratch&&) noexcept;
  TreeScratch& operator=(TreeScratch&&) noexcept;

  // Frees the arrays.
  void release() noexcept;

  struct Arrays;
  Arrays& arrays();

 private:
  std::unique_ptr<Arrays> arrays_;
};

// ---- The tree in memory ----------------------------------------------------------

class SparseMerkleTree {
 public:
  SparseMerkleTree() = default;

  // The tree holding `entries` (keys distinct, any order) at `version`.
  static base::Result<SparseMerkleTree> from_entries(std::span<const StateEntry> entries, std::uint64_t version = 1,
                                                     base::Executor* executor = nullptr);

  // Reads the whole tree of a stored root (nullopt: the empty tree) and
  // checks it: structure, and the recomputed root against root->hash.
  static base::Result<SparseMerkleTree> load(const NodeReader& reader, const std::optional<ChildRef>& root);

  Hash root_hash() const noexcept;
  std::optional<ChildRef> root_ref() const noexcept;
  std::uint64_t version() const noexcept { return version_; }  // of the last update
  std::size_t size() const noexcept { return size_; }          // objects held

  std::optional<Hash> get(const Hash& key) const noexcept;

  // The largest key present below `key` and the smallest present above it
  // (`key` itself need not be present). A prover adds both for every key a
  // batch deletes, so that a PartialStateTree can re-collapse the tree
  // (docs/state-tree.md, "Updating from a multi-proof").
  std::pair<std::optional<Hash>, std::optional<Hash>> neighbours(const Hash& key) const;

  // Applies a batch (keys distinct, any order) as version `version`, which
  // must exceed version(). Rejects duplicate keys and stale versions; the
  // tree is unchanged on error.
  base::Result<TreeUpdate> update(std::span<const StateChange> changes, std::uint64_t version,
                                  const UpdateOptions& options = {});

  StateProof prove(const Hash& key) const;
  // One proof for many keys (any order; duplicates are proven once).
  StateMultiProof prove_many(std::span<const Hash> keys) const;

  // Empties the tree (version 0), keeping its memory for the next build.
  void clear() noexcept;

  // Every node of the current tree as TreeUpdate::new_nodes would list it
  // (no stale nodes): for a first commit of a tree built from entries.
  TreeUpdate all_nodes() const;

 private:
  friend class HashSchedule;
  friend class TreeBuilder;
  friend class TreeLoader;

  static constexpr std::uint32_t kNone = 0xffffffffu;

  struct MemNode {
    Hash hash{};
    std::uint64_t version = 0;
    std::uint32_t left = kNone;  // leaf: index into entries_
    std::uint32_t right = kNone;
    std::uint16_t depth = 0;
    bool leaf = false;
  };

  std::optional<ChildRef> ref_of(std::uint32_t node) const;
  Node stored_form(std::uint32_t node) const;
  void list_nodes(std::uint32_t node, const Hash& path, TreeUpdate& out) const;
  void prove_range(std::uint32_t node, unsigned depth, const Hash* begin, const Hash* end, StateMultiProof& proof,
                   std::vector<bool>& shape, std::size_t& empty_siblings) const;

  detail::LargeVector<MemNode> nodes_;
  detail::LargeVector<StateEntry> entries_;
  std::vector<std::uint32_t> free_nodes_;
  std::vector<std::uint32_t> free_entries_;
  std::uint32_t root_ = kNone;
  std::uint64_t version_ = 0;
  std::size_t size_ = 0;
  TreeScratch scratch_;  // an update's sorted batch, kept for the next
};

// The root of a set of objects (keys distinct, any order), without keeping
// the tree, on `executor` (nullptr: this thread). The arrays come from
// `scratch` when given (kept for the next call), else are freed on return.
base::Result<Hash> state_root(std::span<const StateEntry> entries, base::Executor* executor = nullptr,
                              TreeScratch* scratch = nullptr);

// The proof for `key` read from stored nodes under `root`.
base::Result<StateProof> prove_stored(const NodeReader& reader, const std::optional<ChildRef>& root, const Hash& key);

}  // namespace sion::commit
