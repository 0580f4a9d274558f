#include "sion/commit/batch_root.hpp"

#include <vector>

namespace sion::commit {

BatchTree::BatchTree(std::span<const base::ByteView> items) {
  std::vector<Hash> leaves;
  leaves.reserve(items.size());
  for (const base::ByteView item : items) leaves.push_back(batch_leaf_hash(item));
  log_.append_leaf_hashes(leaves);
}

BatchTree BatchTree::from_leaf_hashes(std::span<const Hash> leaf_hashes) {
  BatchTree tree;
  tree.log_.append_leaf_hashes(leaf_hashes);
  return tree;
}

Hash batch_root(std::span<const base::ByteView> items) { return BatchTree(items).root(); }

}  // namespace sion::commit
