#pragma once
// The Merkle sum tree: leaves carry an amount, every node the sum of the
// amounts below it, so a root commits to a list of (hash, amount) entries
// and to their total, and a proof shows one entry and that the sums along
// its path add up (cohorts of agents). The RFC 6962 shape of the log
// (merkle_tree.hpp) on SHA3-256:
//   leaf = SHA3-256(0x20 || hash || amount as u64 LE)                 (41 bytes)
//   node = SHA3-256(0x21 || left.hash || right.hash || sum as u64 LE) (73 bytes)
// with sum = left.sum + right.sum. A total above 2^64 - 1 is refused, when
// building and when verifying. docs/commit-log.md, "Merkle sum tree".

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/detail/large_allocator.hpp"
#include "sion/commit/merkle_tree.hpp"

namespace sion::commit {

struct SumLeaf {
  Hash hash{};
  std::uint64_t amount = 0;
  bool operator==(const SumLeaf&) const = default;
};

// A node's hash and the sum of the amounts below it; a leaf's node carries
// its amount.
struct SumNode {
  Hash hash{};
  std::uint64_t sum = 0;

  static constexpr std::string_view codec_name = "SumNode";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("hash", &SumNode::hash), codec::field("sum", &SumNode::sum)};
  }
  bool operator==(const SumNode&) const = default;
};

struct SumProof {
  std::uint64_t leaf_index = 0;
  std::uint64_t leaf_count = 0;
  codec::List<SumNode, shape::kMaxDepth> path;  // siblings, leaf side first

  static constexpr std::string_view codec_name = "SumProof";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("leaf_index", &SumProof::leaf_index),
                      codec::field("leaf_count", &SumProof::leaf_count), codec::field("path", &SumProof::path)};
  }
  bool operator==(const SumProof&) const = default;
};

SumNode sum_leaf_node(const SumLeaf& leaf) noexcept;
// The parent of two nodes; nullopt if their sums add past 2^64 - 1.
std::optional<SumNode> sum_parent(const SumNode& left, const SumNode& right) noexcept;

class SumTree {
 public:
  // Refuses leaves whose amounts add past 2^64 - 1. Levels are hashed in
  // SIMD Keccak lanes, split over `executor` (nullptr: this thread).
  static base::Result<SumTree> build(std::span<const SumLeaf> leaves, base::Executor* executor = nullptr);

  std::uint64_t size() const noexcept { return levels_.empty() ? 0 : levels_[0].size(); }
  // (SHA3-256() of no input, 0) for no leaves.
  SumNode root() const noexcept;
  base::Result<SumProof> prove(std::uint64_t leaf_index) const;

 private:
  // Level by level, an odd last node lifted unchanged.
  std::vector<detail::LargeVector<SumNode>> levels_;
};

// `leaf` is leaf proof.leaf_index of the sum tree of `leaf_count` leaves
// whose root (hash and total) is `root`: RFC 9162, Sec. 2.1.3.2 with sum
// nodes, failing on any sum past 2^64 - 1. proof.leaf_count must equal
// leaf_count, which the root does not commit to: the index a path names
// depends on it (merkle_log.hpp, verify_inclusion).
bool verify_sum_proof(const SumLeaf& leaf, const SumProof& proof, const SumNode& root,
                      std::uint64_t leaf_count) noexcept;

}  // namespace sion::commit
