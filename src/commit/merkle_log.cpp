#include "sion/commit/merkle_log.hpp"

#include <array>
#include <cstring>
#include <string>

namespace sion::commit {
namespace {

base::Failure size_error(std::string_view what, std::uint64_t value, std::uint64_t size) {
  return base::fail(base::Errc::invalid_argument, std::string(what) + " " + std::to_string(value) +
                                                      " exceeds the log's " + std::to_string(size) + " entries");
}

}  // namespace

void MerkleLog::reserve(std::uint64_t leaves) {
  for (std::size_t k = 0; leaves >> k != 0; ++k) {
    if (k == levels_.size()) levels_.emplace_back();
    levels_[k].reserve(static_cast<std::size_t>(leaves >> k));
  }
}

std::uint64_t MerkleLog::append(base::ByteView entry) { return append_leaf_hash(hasher_.leaf(entry)); }

std::uint64_t MerkleLog::append_leaf_hash(const Hash& leaf_hash) {
  if (levels_.empty()) levels_.emplace_back();
  levels_[0].push_back(leaf_hash);
  carry(0);
  return levels_[0].size() - 1;
}

// Completes the subtrees the last append closed: while level k has an even
// number of nodes, its last two are a new node of level k + 1.
void MerkleLog::carry(std::size_t level) {
  for (std::size_t k = level; levels_[k].size() % 2 == 0; ++k) {
    const detail::LargeVector<Hash>& nodes = levels_[k];
    const Hash parent = hasher_.node(nodes[nodes.size() - 2], nodes.back());
    if (k + 1 == levels_.size()) levels_.emplace_back();
    levels_[k + 1].push_back(parent);
  }
}

void MerkleLog::append_leaf_hashes(std::span<const Hash> leaf_hashes) {
  if (leaf_hashes.empty()) return;
  if (levels_.empty()) levels_.emplace_back();
  detail::LargeVector<Hash>& leaves = levels_[0];
  const std::size_t old = leaves.size();
  leaves.resize(old + leaf_hashes.size());
  std::memcpy(leaves.data() + old, leaf_hashes.data(), leaf_hashes.size_bytes());
  // Invariant: level k + 1 holds floor(|level k| / 2) nodes.
  for (std::size_t k = 0;; ++k) {
    const std::size_t complete = levels_[k].size() / 2;
    const std::size_t have = k + 1 < levels_.size() ? levels_[k + 1].size() : 0;
    if (complete == have) break;
    if (k + 1 == levels_.size()) levels_.emplace_back();
    levels_[k + 1].resize(complete);
    hasher_.pairs(levels_[k].data() + 2 * have, levels_[k + 1].data() + have, complete - have);
  }
}

base::Result<Hash> MerkleLog::leaf_hash(std::uint64_t index) const {
  if (index >= size()) return detail::index_error(index, "the log's " + std::to_string(size()) + " entries");
  return levels_[0][static_cast<std::size_t>(index)];
}

Hash MerkleLog::subtree(std::uint64_t lo, std::uint64_t hi) const {
  if (lo == hi) return hasher_.empty();
  const std::uint64_t n = hi - lo;
  if (std::has_single_bit(n)) {
    const auto k = static_cast<std::size_t>(std::countr_zero(n));
    return levels_[k][static_cast<std::size_t>(lo >> k)];
  }
  // Along the right edge: the left part is complete, the right one smaller.
  const std::uint64_t k = shape::split(n);
  return hasher_.node(subtree(lo, lo + k), subtree(lo + k, hi));
}

base::Result<Hash> MerkleLog::root(std::uint64_t tree_size) const {
  if (tree_size > size()) return size_error("tree size", tree_size, size());
  return subtree(0, tree_size);
}

base::Result<TreeHead> MerkleLog::head(std::uint64_t tree_size) const {
  if (tree_size > size()) return size_error("tree size", tree_size, size());
  return TreeHead{tree_size, subtree(0, tree_size)};
}

base::Result<InclusionProof> MerkleLog::inclusion_proof(std::uint64_t leaf_index, std::uint64_t tree_size) const {
  if (tree_size > size()) return size_error("tree size", tree_size, size());
  if (leaf_index >= tree_size) return detail::index_error(leaf_index, "tree size " + std::to_string(tree_size));
  return InclusionProof{leaf_index, tree_size, shape::inclusion_path<Hash>(leaf_index, tree_size, subtrees())};
}

base::Result<ConsistencyProof> MerkleLog::consistency_proof(std::uint64_t first_size, std::uint64_t second_size) const {
  if (second_size > size()) return size_error("second tree size", second_size, size());
  if (first_size == 0 || first_size > second_size) {
    return base::fail(base::Errc::invalid_argument, "first tree size " + std::to_string(first_size) +
                                                        " must be in [1, " + std::to_string(second_size) +
                                                        "], the second tree size");
  }
  return ConsistencyProof{first_size, second_size, shape::consistency_path<Hash>(first_size, second_size, subtrees())};
}

bool verify_inclusion(const TreeHasher& hasher, const Hash& leaf_hash, const InclusionProof& proof,
                      const TreeHead& head) noexcept {
  if (proof.tree_size != head.size) return false;
  const auto computed = shape::root_from_inclusion_path<Hash>(
      proof.leaf_index, proof.tree_size, leaf_hash, std::span<const Hash>(proof.path.data(), proof.path.size()),
      [&hasher](const Hash& left, const Hash& right, Hash& out) {
        out = hasher.node(left, right);
        return true;
      });
  return computed && *computed == head.root;
}

bool verify_consistency(const TreeHasher& hasher, const ConsistencyProof& proof, const TreeHead& first_head,
                        const TreeHead& second_head) noexcept {
  const std::uint64_t first = proof.first_size;
  const std::uint64_t second = proof.second_size;
  const Hash& first_root = first_head.root;
  const Hash& second_root = second_head.root;
  const auto& path = proof.path;
  if (first != first_head.size || second != second_head.size) return false;
  if (first == 0 || first > second) return false;
  if (first == second) return path.empty() && first_root == second_root;
  // Sec. 2.1.4.2, steps 1-5. When first is a power of two its tree is a
  // complete subtree of the second, and its root starts both computations.
  if (path.empty() || path.size() > shape::kMaxDepth + 1) return false;
  const bool complete = std::has_single_bit(first);
  std::size_t next = complete ? 0 : 1;
  Hash fr = complete ? first_root : path[0];
  Hash sr = fr;
  std::uint64_t fn = first - 1;
  std::uint64_t sn = second - 1;
  while ((fn & 1) != 0) {
    fn >>= 1;
    sn >>= 1;
  }
  // Step 6.
  for (; next < path.size(); ++next) {
    const Hash& c = path[next];
    if (sn == 0) return false;
    if ((fn & 1) != 0 || fn == sn) {
      // Two independent hashes: one call, in two SIMD lanes.
      const std::array<Hash, 4> children = {c, fr, c, sr};
      std::array<Hash, 2> parents;
      hasher.pairs(children.data(), parents.data(), 2);
      fr = parents[0];
      sr = parents[1];
      while ((fn & 1) == 0 && fn != 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      sr = hasher.node(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  // Step 7.
  return sn == 0 && fr == first_root && sr == second_root;
}

}  // namespace sion::commit
