#pragma once
// The RFC 6962 Merkle log (RFC 9162, Sec. 2.1): append-only, with a root,
// inclusion proofs and consistency proofs at every size it has had.
// docs/commit-log.md specifies hashes, proof encodings and verification.

#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/detail/large_allocator.hpp"
#include "sion/commit/merkle_tree.hpp"

namespace sion::commit {

// A tree size and its root: what a signed tree head or a signed batch
// vouches for, and what proofs are checked against.
struct TreeHead {
  std::uint64_t size = 0;
  Hash root{};

  static constexpr std::string_view codec_name = "TreeHead";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("size", &TreeHead::size), codec::field("root", &TreeHead::root)};
  }
  bool operator==(const TreeHead&) const = default;
};

// Leaf `leaf_index` is in the tree of the first `tree_size` entries.
// Also the batch root's proof (batch_root.hpp).
struct InclusionProof {
  std::uint64_t leaf_index = 0;
  std::uint64_t tree_size = 0;
  codec::List<Hash, shape::kMaxDepth> path;  // leaf side first (RFC 9162, Sec. 2.1.3.1)

  static constexpr std::string_view codec_name = "InclusionProof";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("leaf_index", &InclusionProof::leaf_index),
                      codec::field("tree_size", &InclusionProof::tree_size),
                      codec::field("path", &InclusionProof::path)};
  }
  bool operator==(const InclusionProof&) const = default;
};

// The tree of the first `first_size` entries is a prefix of the tree of the
// first `second_size` (RFC 9162, Sec. 2.1.4).
struct ConsistencyProof {
  std::uint64_t first_size = 0;
  std::uint64_t second_size = 0;
  // Up to 64 splits plus the subtree the recursion ends at.
  codec::List<Hash, shape::kMaxDepth + 1> path;

  static constexpr std::string_view codec_name = "ConsistencyProof";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("first_size", &ConsistencyProof::first_size),
                      codec::field("second_size", &ConsistencyProof::second_size),
                      codec::field("path", &ConsistencyProof::path)};
  }
  bool operator==(const ConsistencyProof&) const = default;
};

// An in-memory log. Keeps every leaf hash and the hash of every complete
// (perfect, 2^k-leaf, aligned) subtree, level by level, so a root or proof
// at any past size costs O(log n) hashes.
class MerkleLog {
 public:
  explicit MerkleLog(const TreeHasher& hasher = kLogSha256) noexcept : hasher_(hasher) {}

  const TreeHasher& hasher() const noexcept { return hasher_; }
  std::uint64_t size() const noexcept { return levels_.empty() ? 0 : levels_[0].size(); }
  void reserve(std::uint64_t leaves);

  // Appends an entry (its leaf hash is hasher().leaf(entry)); returns its index.
  std::uint64_t append(base::ByteView entry);
  std::uint64_t append_leaf_hash(const Hash& leaf_hash);
  // Appends many leaf hashes, hashing each new level in SIMD lanes.
  void append_leaf_hashes(std::span<const Hash> leaf_hashes);

  // The stored leaf hash of entry `index`.
  base::Result<Hash> leaf_hash(std::uint64_t index) const;
  // MTH of the first `tree_size` entries (HASH() for 0).
  base::Result<Hash> root(std::uint64_t tree_size) const;
  Hash root() const { return subtree(0, size()); }
  base::Result<TreeHead> head(std::uint64_t tree_size) const;
  TreeHead head() const { return {size(), root()}; }
  base::Result<InclusionProof> inclusion_proof(std::uint64_t leaf_index, std::uint64_t tree_size) const;
  // 0 < first_size <= second_size <= size().
  base::Result<ConsistencyProof> consistency_proof(std::uint64_t first_size, std::uint64_t second_size) const;

 private:
  // MTH(D[lo:hi]) for a range the RFC's recursion visits, hi <= size().
  Hash subtree(std::uint64_t lo, std::uint64_t hi) const;
  auto subtrees() const {
    return [this](std::uint64_t lo, std::uint64_t hi) { return subtree(lo, hi); };
  }
  void carry(std::size_t level);

  TreeHasher hasher_;
  // levels_[k][j]: the subtree over leaves [j 2^k, (j + 1) 2^k).
  std::vector<detail::LargeVector<Hash>> levels_;
};

// RFC 9162, Sec. 2.1.3.2: `leaf_hash` is leaf proof.leaf_index of the tree
// `head`. proof.tree_size must equal head.size: the RFC's algorithm takes
// the size as trusted input, and under a wrong one a path can fold into the
// right root while naming another index (a right child at size 3, index 2,
// is the right child at size 2, index 1).
bool verify_inclusion(const TreeHasher& hasher, const Hash& leaf_hash, const InclusionProof& proof,
                      const TreeHead& head) noexcept;

// RFC 9162, Sec. 2.1.4.2: tree `first` is a prefix of tree `second`, whose
// sizes the proof must repeat. Equal sizes need an empty path and equal
// roots; a first size of 0 is refused.
bool verify_consistency(const TreeHasher& hasher, const ConsistencyProof& proof, const TreeHead& first,
                        const TreeHead& second) noexcept;

}  // namespace sion::commit
