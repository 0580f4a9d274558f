#include "sion/commit/smt_partial.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "sion/base/bytes.hpp"
#include "sion/commit/detail/multiproof_walk.hpp"

namespace sion::commit {

namespace {

constexpr Hash kEmptyHash{};

std::string hex(const Hash& hash) { return base::to_hex(hash); }

}  // namespace

// The nodes of the proof walk: leaves and internal nodes on the proven
// paths, opaque hashes off them. Refuses nodes not in canonical form (a
// one-child node over a leaf or over nothing), which no real root contains
// and which the collapsing in apply() could not treat right.
class PartialStateTree::Builder {
 public:
  using Ref = std::uint32_t;

  Builder(PartialStateTree& tree, std::span<const Hash> keys) noexcept : tree_(tree), keys_(keys) {}

  const Hash& key(std::size_t i) const noexcept { return keys_[i]; }

  std::optional<Ref> empty(unsigned, std::size_t, std::size_t) const noexcept { return Ref{0}; }

  std::optional<Ref> leaf(unsigned, std::size_t, std::size_t, const StateLeaf& leaf) {
    return tree_.add_leaf(leaf.key, leaf.value_hash);
  }

  // Never zero: the walk refuses a zero non-empty sibling.
  Ref sibling(unsigned, const Hash& hash) {
    Node node;
    node.kind = Kind::opaque;
    node.hash = hash;
    return tree_.add(node);
  }

  Ref empty_sibling(unsigned) const noexcept { return 0; }

  std::optional<Ref> node(unsigned depth, Ref left, Ref right) {
    const Kind left_kind = tree_.nodes_[left].kind;
    const Kind right_kind = tree_.nodes_[right].kind;
    if (left_kind == Kind::empty || right_kind == Kind::empty) {
      const Ref only = left_kind == Kind::empty ? right : left;
      switch (tree_.nodes_[only].kind) {
        case Kind::empty:
          fault = "the internal node at depth " + std::to_string(depth) + " has two empty children";
          return std::nullopt;
        case Kind::leaf:
          fault =
              "the internal node at depth " + std::to_string(depth) + " holds a single leaf (it should have collapsed)";
          return std::nullopt;
        case Kind::opaque:
          // Canonical form: a one-child node's child holds two or more entries.
          tree_.nodes_[only].several = true;
          break;
        case Kind::internal: break;
      }
    }
    return tree_.add_internal(left, right);
  }

  std::string fault;

 private:
  PartialStateTree& tree_;
  std::span<const Hash> keys_;
};

PartialStateTree::PartialStateTree() { nodes_.emplace_back(); }

base::Result<PartialStateTree> PartialStateTree::from_multiproof(const Hash& root, std::span<const Hash> keys,
                                                                 const StateMultiProof& proof) {
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (!(keys[i - 1] < keys[i])) {
      return base::fail(base::Errc::invalid_value, "StateMultiProof: the proven keys are not strictly increasing (" +
                                                       hex(keys[i - 1]) + ", " + hex(keys[i]) + ")");
    }
  }
  PartialStateTree tree;
  tree.keys_.assign(keys.begin(), keys.end());
  if (keys.empty()) {
    // Nothing proven: the tree knows its root only.
    if (!proof.shape.empty() || !proof.siblings.empty() || !proof.leaves.empty()) {
      return base::fail(base::Errc::invalid_value, "StateMultiProof: an empty key set takes an empty proof");
    }
    if (root != kEmptyHash) {
      Node node;
      node.kind = Kind::opaque;
      node.hash = root;
      tree.root_ = tree.add(node);
    }
    tree.compacted_size_ = tree.nodes_.size();
    return tree;
  }
  Builder builder(tree, keys);
  detail::MultiProofWalk walk(proof, builder, keys.size());
  const auto top = walk.subtree(0, 0, keys.size());
  if (!top || !walk.finished()) {
    return base::fail(base::Errc::invalid_value,
                      "StateMultiProof: " + (walk.fault() != nullptr ? std::string(walk.fault()) : builder.fault));
  }
  if (tree.nodes_[*top].hash != root) {
    return base::fail(base::Errc::invalid_value, "StateMultiProof: the proof shows root " +
                                                     hex(tree.nodes_[*top].hash) + ", expected " + hex(root));
  }
  tree.root_ = *top;
  tree.compacted_size_ = tree.nodes_.size();
  return tree;
}

bool PartialStateTree::covers(const Hash& key) const noexcept {
  return std::binary_search(keys_.begin(), keys_.end(), key);
}

base::Result<std::optional<Hash>> PartialStateTree::get(const Hash& key) const {
  if (!covers(key)) {
    return base::fail(base::Errc::invalid_value, "state tree: " + hex(key) + " is outside the proven set");
  }
  std::uint32_t node = root_;
  for (unsigned depth = 0;; ++depth) {
    const Node& n = nodes_[node];
    switch (n.kind) {
      case Kind::empty: return std::optional<Hash>{};
      case Kind::leaf: return n.key == key ? std::optional<Hash>{n.value_hash} : std::optional<Hash>{};
      case Kind::opaque:
        // Unreachable: every proven key's path ends at a known node.
        return base::fail(base::Errc::internal, "state tree: the path of " + hex(key) + " is not known");
      case Kind::internal: node = key_bit(key, depth) ? n.right : n.left; break;
    }
  }
}

base::Result<Hash> PartialStateTree::apply(std::span<const StateChange> changes) {
  std::vector<StateChange> sorted(changes.begin(), changes.end());
  std::sort(sorted.begin(), sorted.end(), [](const StateChange& a, const StateChange& b) { return a.key < b.key; });
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i - 1].key == sorted[i].key) {
      return base::fail(base::Errc::invalid_argument, "state tree: key " + hex(sorted[i].key) + " changes twice");
    }
    if (!covers(sorted[i].key)) {
      return base::fail(base::Errc::invalid_value,
                        "state tree: changing " + hex(sorted[i].key) + ", which is outside the proven set");
    }
  }
  if (sorted.empty()) return root();
  // New nodes only, so a failure leaves the tree as it was.
  const std::size_t before = nodes_.size();
  auto top = rebuild(root_, 0, sorted);
  if (!top) {
    nodes_.resize(before);
    return base::fail(std::move(top).error());
  }
  root_ = *top;
  // Replaced nodes stay in the arena until it doubles (amortised O(1) a node).
  if (nodes_.size() > 2 * compacted_size_ + 256) compact();
  return root();
}

std::uint32_t PartialStateTree::add(const Node& node) {
  nodes_.push_back(node);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

std::uint32_t PartialStateTree::add_leaf(const Hash& key, const Hash& value_hash) {
  Node node;
  node.kind = Kind::leaf;
  node.key = key;
  node.value_hash = value_hash;
  node.hash = state_leaf_hash(key, value_hash);
  return add(node);
}

std::uint32_t PartialStateTree::add_internal(std::uint32_t left, std::uint32_t right) {
  Node node;
  node.kind = Kind::internal;
  node.left = left;
  node.right = right;
  node.hash = hash_node(Domain::state_node, nodes_[left].hash, nodes_[right].hash);
  return add(node);
}

// The canonical subtree at `depth` of sorted entries sharing its path:
// split on bit `depth` until a side holds at most one entry, so two keys
// sharing a long prefix get the chain of one-child nodes above their parting.
std::uint32_t PartialStateTree::build(unsigned depth, std::span<const StateEntry> entries) {
  if (entries.empty()) return 0;
  if (entries.size() == 1) return add_leaf(entries[0].key, entries[0].value_hash);
  const auto middle =
      static_cast<std::size_t>(std::partition_point(entries.begin(), entries.end(),
                                                    [depth](const StateEntry& e) { return !key_bit(e.key, depth); }) -
                               entries.begin());
  const std::uint32_t left = build(depth + 1, entries.first(middle));
  const std::uint32_t right = build(depth + 1, entries.subspan(middle));
  return add_internal(left, right);
}

// The subtree replacing `node` (at `depth`) once `changes` (sorted, all on
// its path) are made.
base::Result<std::uint32_t> PartialStateTree::rebuild(std::uint32_t node, unsigned depth,
                                                      std::span<const StateChange> changes) {
  const Node n = nodes_[node];  // a copy: adding nodes moves the arena
  switch (n.kind) {
    case Kind::internal: {
      const auto middle = static_cast<std::size_t>(
          std::partition_point(changes.begin(), changes.end(),
                               [depth](const StateChange& c) { return !key_bit(c.key, depth); }) -
          changes.begin());
      std::uint32_t left = n.left;
      std::uint32_t right = n.right;
      if (middle > 0) {
        auto built = rebuild(n.left, depth + 1, changes.first(middle));
        if (!built) return built;
        left = *built;
      }
      if (middle < changes.size()) {
        auto built = rebuild(n.right, depth + 1, changes.subspan(middle));
        if (!built) return built;
        right = *built;
      }
      if (left == n.left && right == n.right) return node;
      return join(left, right, changes);
    }
    case Kind::empty:
    case Kind::leaf: {
      // The entries of this subtree after the changes; a leaf's own entry
      // stays unless a change names its key.
      std::vector<StateEntry> entries;
      entries.reserve(changes.size() + 1);
      bool leaf_kept = n.kind == Kind::leaf;
      bool changed = false;
      for (const StateChange& change : changes) {
        if (leaf_kept && n.key < change.key) {
          entries.push_back({n.key, n.value_hash});
          leaf_kept = false;
        }
        if (n.kind == Kind::leaf && change.key == n.key) {
          leaf_kept = false;
          changed = true;
        }
        if (change.value_hash) {
          entries.push_back({change.key, *change.value_hash});
          changed = true;
        }
      }
      if (leaf_kept) entries.push_back({n.key, n.value_hash});
      if (!changed) return node;  // only deletions of absent keys
      return build(depth, entries);
    }
    case Kind::opaque: break;
  }
  // Unreachable: every proven key's path ends at a known node.
  return base::fail(base::Errc::internal, "state tree: the path of " + hex(changes.front().key) + " is not known");
}

// The node over two rebuilt children, collapsed as the definition requires:
// nothing over two empty children, the leaf itself over a leaf and an empty
// child (at any depth: a leaf's hash does not depend on its depth).
base::Result<std::uint32_t> PartialStateTree::join(std::uint32_t left, std::uint32_t right,
                                                   std::span<const StateChange> changes) {
  const Kind left_kind = nodes_[left].kind;
  const Kind right_kind = nodes_[right].kind;
  if (left_kind == Kind::empty && right_kind == Kind::empty) return std::uint32_t{0};
  if (left_kind == Kind::empty || right_kind == Kind::empty) {
    const std::uint32_t only = left_kind == Kind::empty ? right : left;
    const Node& n = nodes_[only];
    if (n.kind == Kind::leaf) return only;
    if (n.kind == Kind::opaque && !n.several) {
      // The other side was emptied by deletions; whether this node now
      // collapses depends on whether the opaque side is a single leaf.
      const auto deleted =
          std::find_if(changes.begin(), changes.end(), [](const StateChange& c) { return !c.value_hash; });
      const Hash& key = deleted != changes.end() ? deleted->key : changes.front().key;
      return base::fail(
          base::Errc::invalid_value,
          "state tree: deleting " + hex(key) + " needs the structure of its sibling subtree; prove its neighbours too");
    }
  }
  return add_internal(left, right);
}

void PartialStateTree::compact() {
  std::vector<Node> live;
  live.reserve(nodes_.size() / 2);
  live.emplace_back();
  root_ = copy_into(live, root_);
  nodes_.swap(live);
  compacted_size_ = nodes_.size();
}

std::uint32_t PartialStateTree::copy_into(std::vector<Node>& out, std::uint32_t node) const {
  if (node == 0) return 0;
  Node n = nodes_[node];
  if (n.kind == Kind::internal) {
    n.left = copy_into(out, n.left);
    n.right = copy_into(out, n.right);
  }
  out.push_back(n);
  return static_cast<std::uint32_t>(out.size() - 1);
}

base::Result<Hash> root_after(const SparseMerkleTree& tree, std::span<const StateChange> changes) {
  std::vector<Hash> keys;
  keys.reserve(changes.size());
  for (const StateChange& change : changes) {
    keys.push_back(change.key);
    if (change.value_hash) continue;
    const auto [below, above] = tree.neighbours(change.key);
    if (below) keys.push_back(*below);
    if (above) keys.push_back(*above);
  }
  std::sort(keys.begin(), keys.end(), HashOrder{});
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const Hash root = tree.root_hash();
  SION_TRY(auto partial, PartialStateTree::from_multiproof(root, keys, tree.prove_many(keys)));
  return partial.apply(changes);
}

}  // namespace sion::commit
