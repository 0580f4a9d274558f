#pragma once
// Batch roots: one root over the N items of a signed batch (approvals,
// payments), each item provable by an InclusionProof. The RFC 6962 shape of
// the log (merkle_tree.hpp) on SHA3-256 with the batch_leaf / batch_node
// tags: leaf = SHA3-256(0x30 || item), node = SHA3-256(0x31 || left || right).
// No node is ever duplicated (CVE-2012-2459). docs/commit-log.md, "Batch roots".

#include <cstdint>
#include <span>

#include "sion/commit/merkle_log.hpp"

namespace sion::commit {

class BatchTree {
 public:
  explicit BatchTree(std::span<const base::ByteView> items);
  // From the items' leaf hashes (batch_leaf_hash).
  static BatchTree from_leaf_hashes(std::span<const Hash> leaf_hashes);

  std::uint64_t size() const noexcept { return log_.size(); }
  Hash root() const { return log_.root(); }
  TreeHead head() const { return log_.head(); }
  base::Result<InclusionProof> prove(std::uint64_t index) const { return log_.inclusion_proof(index, size()); }

 private:
  BatchTree() = default;
  MerkleLog log_{kBatchHasher};
};

inline Hash batch_leaf_hash(base::ByteView item) noexcept { return kBatchHasher.leaf(item); }

// The root of a batch; SHA3-256() of no input for an empty one.
Hash batch_root(std::span<const base::ByteView> items);

// `item` is item proof.leaf_index of the batch `batch` (its item count and
// root).
inline bool verify_batch_inclusion(base::ByteView item, const InclusionProof& proof, const TreeHead& batch) noexcept {
  return verify_inclusion(kBatchHasher, batch_leaf_hash(item), proof, batch);
}

}  // namespace sion::commit
