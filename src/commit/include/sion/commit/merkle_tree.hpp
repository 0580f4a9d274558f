#pragma once
// The one tree shape of the log, the batch root and the sum tree: RFC 6962,
// Sec. 2.1 (RFC 9162, Sec. 2.1.1). A tree over n > 1 leaves is a node whose
// left child is the tree over the first k leaves, k the largest power of two
// smaller than n, and whose right child is the tree over the other n - k.
// Equivalently, level by level: pair nodes left to right and lift an odd
// last node unchanged to the next level. No leaf or node is ever duplicated,
// so two different leaf lists never share a root (CVE-2012-2459).
// docs/commit-log.md specifies the formats.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"

namespace sion::commit {

enum class HashFunction : std::uint8_t { sha256, sha3_256 };

// A hash function and the tags that make a tree's leaves and nodes:
// leaf = HASH(leaf_tag || data), node = HASH(node_tag || left || right).
struct TreeHasher {
  HashFunction function;
  Domain leaf_tag;
  Domain node_tag;

  // HASH() of no input: the root of the empty tree (RFC 6962, Sec. 2.1).
  Hash empty() const noexcept;
  Hash leaf(base::ByteView data) const noexcept;
  // out[i] = leaf(inputs[i][0, length)) for i < count: many leaves of one
  // length at once, in SIMD lanes (multi-buffer SHA-256 or Keccak x8/x4).
  void leaves(const std::uint8_t* const* inputs, std::size_t length, Hash* out, std::size_t count) const;
  Hash node(const Hash& left, const Hash& right) const noexcept;
  // out[i] = node(level[2i], level[2i + 1]) for i < count: one tree level,
  // in SIMD lanes (Keccak x8/x4 or multi-buffer SHA-256).
  void pairs(const Hash* level, Hash* out, std::size_t count) const noexcept;
};

// The RFC 6962 log exactly as the RFC defines it (standard CT verifiers
// check it), the same log on SHA3-256, and batch roots.
inline constexpr TreeHasher kLogSha256{HashFunction::sha256, Domain::log_leaf, Domain::log_node};
inline constexpr TreeHasher kLogSha3{HashFunction::sha3_256, Domain::log_leaf, Domain::log_node};
inline constexpr TreeHasher kBatchHasher{HashFunction::sha3_256, Domain::batch_leaf, Domain::batch_node};

namespace detail {
// "leaf index <index> is not below <bound>", an invalid_argument error.
base::Failure index_error(std::uint64_t index, const std::string& bound);
}  // namespace detail

namespace shape {

// The RFC's k for n >= 2: the largest power of two smaller than n.
constexpr std::uint64_t split(std::uint64_t n) noexcept { return std::bit_floor(n - 1); }

// The level (0 = leaves) at which the subtree over [lo, hi) has its root in
// the level-by-level view, and that root's index there. The ranges the RFC's
// recursion visits start at a multiple of 2^level.
constexpr unsigned level_of(std::uint64_t lo, std::uint64_t hi) noexcept {
  return static_cast<unsigned>(std::bit_width(hi - lo - 1));
}

// Longest path: a tree of at most 2^64 - 1 leaves is 64 levels deep.
inline constexpr std::size_t kMaxDepth = 64;

// PATH(m, D[n]) (RFC 6962, Sec. 2.1.1; RFC 9162, Sec. 2.1.3.1) for
// m < n, leaf side first. subtree(lo, hi) returns MTH(D[lo:hi]).
template <class Node, class Subtree>
std::vector<Node> inclusion_path(std::uint64_t m, std::uint64_t n, const Subtree& subtree) {
  std::vector<Node> path;
  std::uint64_t lo = 0;
  std::uint64_t hi = n;
  while (hi - lo > 1) {  // top down; the RFC lists the top sibling last
    const std::uint64_t k = split(hi - lo);
    if (m < lo + k) {
      path.push_back(subtree(lo + k, hi));
      hi = lo + k;
    } else {
      path.push_back(subtree(lo, lo + k));
      lo += k;
    }
  }
  std::reverse(path.begin(), path.end());
  return path;
}

// PROOF(m, D[n]) = SUBPROOF(m, D[n], true) (RFC 6962, Sec. 2.1.2; RFC 9162,
// Sec. 2.1.4.1) for 0 < m <= n; empty for m == n.
template <class Node, class Subtree>
std::vector<Node> consistency_path(std::uint64_t m, std::uint64_t n, const Subtree& subtree) {
  std::vector<Node> upper;  // top down
  std::vector<Node> path;
  std::uint64_t lo = 0;
  std::uint64_t hi = n;
  bool whole = true;  // the RFC's b: D[lo:hi] starts at leaf 0
  while (m != hi - lo) {
    const std::uint64_t k = split(hi - lo);
    if (m <= k) {
      upper.push_back(subtree(lo + k, hi));
      hi = lo + k;
    } else {
      upper.push_back(subtree(lo, lo + k));
      lo += k;
      m -= k;
      whole = false;
    }
  }
  if (!whole) path.push_back(subtree(lo, hi));
  for (auto it = upper.rbegin(); it != upper.rend(); ++it) path.push_back(*it);
  return path;
}

// The root that `path` proves for leaf `index` of a `size`-leaf tree, by
// RFC 9162, Sec. 2.1.3.2; nullopt where that algorithm fails (index >= size,
// a path too short or too long) or where combine(left, right, out) refuses.
template <class Node, class Combine>
std::optional<Node> root_from_inclusion_path(std::uint64_t index, std::uint64_t size, const Node& leaf,
                                             std::span<const Node> path, const Combine& combine) {
  if (index >= size || path.size() > kMaxDepth) return std::nullopt;
  std::uint64_t fn = index;
  std::uint64_t sn = size - 1;
  Node r = leaf;
  for (const Node& p : path) {
    if (sn == 0) return std::nullopt;
    Node next;
    if ((fn & 1) != 0 || fn == sn) {
      if (!combine(p, r, next)) return std::nullopt;
      // A left child at the right edge: the levels it was lifted through.
      while ((fn & 1) == 0 && fn != 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else if (!combine(r, p, next)) {
      return std::nullopt;
    }
    r = next;
    fn >>= 1;
    sn >>= 1;
  }
  if (sn != 0) return std::nullopt;
  return r;
}

}  // namespace shape
}  // namespace sion::commit
