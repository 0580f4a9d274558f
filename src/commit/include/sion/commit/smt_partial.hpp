#pragma once
// A partial state tree: the part of the sparse Merkle state tree that a
// multi-proof shows, rebuilt from the proof and checked against a root. It
// can read the proven keys and apply changes to them, giving the root the
// full tree would have after the same changes: what a verifier holding only
// a witness needs to replay transactions statelessly (docs/state-tree.md,
// "Updating from a multi-proof").
//
// Nodes on the proven keys' paths are real; subtrees off every path are
// opaque hashes. Updates and inserts are always computable. A deletion can
// leave a subtree with a single entry, which must collapse to that leaf; the
// tree can do so only when it knows the entry, which the prover guarantees by
// also proving the neighbours of each deleted key
// (SparseMerkleTree::neighbours).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/smt.hpp"
#include "sion/commit/smt_proof.hpp"

namespace sion::commit {

class PartialStateTree {
 public:
  // The tree that `proof` shows for `keys` (sorted, strictly increasing; the
  // proof's key set) under `root`. Fails with invalid_value, naming the
  // fault, unless the proof verifies against root as verify_state_multiproof
  // would, and its nodes are in canonical form. An empty key set takes an
  // empty proof and knows only the root.
  static base::Result<PartialStateTree> from_multiproof(const Hash& root, std::span<const Hash> keys,
                                                        const StateMultiProof& proof);

  Hash root() const noexcept { return nodes_[root_].hash; }

  // The proven key set: the keys get and apply accept.
  std::span<const Hash> keys() const noexcept { return keys_; }
  bool covers(const Hash& key) const noexcept;

  // The value hash of a proven key, or nullopt when it is absent; fails
  // (invalid_value) for a key outside the proven set.
  base::Result<std::optional<Hash>> get(const Hash& key) const;

  // Applies a batch (keys distinct, any order, all in the proven set): set a
  // value hash (update or insert), or delete (nullopt; deleting an absent key
  // changes nothing). Returns the new root, the one SparseMerkleTree::update
  // gives for the same batch on the full tree. Fails, leaving the tree
  // unchanged, on duplicate keys (invalid_argument), on keys outside the set
  // (invalid_value), and (invalid_value) when a deletion leaves a subtree
  // whose structure the proof did not show.
  base::Result<Hash> apply(std::span<const StateChange> changes);

 private:
  enum class Kind : std::uint8_t { empty, leaf, opaque, internal };

  struct Node {
    Hash hash{};
    Hash key{};              // leaf
    Hash value_hash{};       // leaf
    std::uint32_t left = 0;  // internal; 0 is the shared empty node
    std::uint32_t right = 0;
    Kind kind = Kind::empty;
    bool several = false;  // opaque: known to hold two or more entries
  };

  class Builder;  // from_multiproof's side of the proof walk

  PartialStateTree();

  std::uint32_t add(const Node& node);
  std::uint32_t add_leaf(const Hash& key, const Hash& value_hash);
  std::uint32_t add_internal(std::uint32_t left, std::uint32_t right);
  std::uint32_t build(unsigned depth, std::span<const StateEntry> entries);
  base::Result<std::uint32_t> rebuild(std::uint32_t node, unsigned depth, std::span<const StateChange> changes);
  base::Result<std::uint32_t> join(std::uint32_t left, std::uint32_t right, std::span<const StateChange> changes);
  void compact();
  std::uint32_t copy_into(std::vector<Node>& out, std::uint32_t node) const;

  std::vector<Node> nodes_;  // nodes_[0]: the empty subtree
  std::vector<Hash> keys_;
  std::uint32_t root_ = 0;
  std::size_t compacted_size_ = 1;  // nodes_.size() after the last compaction
};

// The root `tree` would have after `changes` (keys distinct), leaving the
// tree unchanged: the changes applied to the partial tree of a multi-proof
// of the changed keys and both neighbours of every deleted key, which
// always suffices to re-collapse (docs/state-tree.md, "Updating from a
// multi-proof"). Costs a proof, not a copy of the tree. Fails as
// PartialStateTree::apply does (duplicate keys: invalid_argument).
base::Result<Hash> root_after(const SparseMerkleTree& tree, std::span<const StateChange> changes);

}  // namespace sion::commit
