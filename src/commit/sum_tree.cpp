#include "sion/commit/sum_tree.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "sion/base/checked.hpp"
#include "sion/base/endian.hpp"
#include "sion/base/executor.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::commit {
namespace {

constexpr std::size_t kLeafInput = 1 + 32 + 8;
constexpr std::size_t kNodeInput = 1 + 32 + 32 + 8;

void fill_leaf(std::uint8_t* input, const SumLeaf& leaf) noexcept {
  input[0] = static_cast<std::uint8_t>(Domain::sum_leaf);
  std::memcpy(input + 1, leaf.hash.data(), 32);
  base::store_le<std::uint64_t>(input + 33, leaf.amount);
}

void fill_node(std::uint8_t* input, const SumNode& left, const SumNode& right, std::uint64_t sum) noexcept {
  input[0] = static_cast<std::uint8_t>(Domain::sum_node);
  std::memcpy(input + 1, left.hash.data(), 32);
  std::memcpy(input + 33, right.hash.data(), 32);
  base::store_le<std::uint64_t>(input + 65, sum);
}

// store(i, SHA3-256(input i)) for i in [begin, end), input i written by
// fill(i, buffer): 16 inputs per round of crypto::sha3_256_many.
template <std::size_t kLen, class Fill, class Store>
void hash_in_lanes(std::size_t begin, std::size_t end, const Fill& fill, const Store& store) {
  constexpr std::size_t kChunk = 16;
  std::array<std::array<std::uint8_t, kLen>, kChunk> inputs;
  std::array<const std::uint8_t*, kChunk> pointers;
  for (std::size_t j = 0; j < kChunk; ++j) pointers[j] = inputs[j].data();
  std::array<Hash, kChunk> digests;
  for (std::size_t done = begin; done < end; done += kChunk) {
    const std::size_t n = std::min(kChunk, end - done);
    for (std::size_t j = 0; j < n; ++j) fill(done + j, inputs[j].data());
    crypto::sha3_256_many(pointers.data(), kLen, digests.data(), n);
    for (std::size_t j = 0; j < n; ++j) store(done + j, digests[j]);
  }
}

// The same over [0, count) in even slices, one per thread; small levels
// stay on this thread (a thread costs more than a few hundred hashes).
template <std::size_t kLen, class Fill, class Store>
void hash_level(std::size_t count, base::Executor* executor, const Fill& fill, const Store& store) {
  constexpr std::size_t kParallelMinimum = 2048;
  base::for_slices(executor, count, count < kParallelMinimum ? 1 : base::concurrency(executor),
                   [&](unsigned, std::size_t begin, std::size_t end) { hash_in_lanes<kLen>(begin, end, fill, store); });
}

}  // namespace

SumNode sum_leaf_node(const SumLeaf& leaf) noexcept {
  std::array<std::uint8_t, kLeafInput> input;
  fill_leaf(input.data(), leaf);
  return {crypto::sha3_256(input), leaf.amount};
}

std::optional<SumNode> sum_parent(const SumNode& left, const SumNode& right) noexcept {
  const auto sum = base::checked_add(left.sum, right.sum);
  if (!sum) return std::nullopt;
  std::array<std::uint8_t, kNodeInput> input;
  fill_node(input.data(), left, right, *sum);
  return SumNode{crypto::sha3_256(input), *sum};
}

base::Result<SumTree> SumTree::build(std::span<const SumLeaf> leaves, base::Executor* executor) {
  // Amounts are unsigned: if the total fits in a u64, every partial sum does.
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const auto sum = base::checked_add(total, leaves[i].amount);
    if (!sum) {
      return base::fail(base::Errc::invalid_value,
                        "sum tree: the amounts of leaves 0.." + std::to_string(i) + " add up past 2^64 - 1");
    }
    total = *sum;
  }
  SumTree tree;
  if (leaves.empty()) return tree;
  detail::LargeVector<SumNode>& bottom = tree.levels_.emplace_back(leaves.size());
  hash_level<kLeafInput>(
      leaves.size(), executor, [&leaves](std::size_t i, std::uint8_t* input) { fill_leaf(input, leaves[i]); },
      [&leaves, &bottom](std::size_t i, const Hash& digest) {
        bottom[i] = {digest, leaves[i].amount};
      });
  while (tree.levels_.back().size() > 1) {
    const detail::LargeVector<SumNode>& level = tree.levels_.back();
    detail::LargeVector<SumNode> next((level.size() + 1) / 2);
    const auto sum = [&level](std::size_t j) { return level[2 * j].sum + level[2 * j + 1].sum; };
    hash_level<kNodeInput>(
        level.size() / 2, executor,
        [&level, &sum](std::size_t j, std::uint8_t* input) {
          fill_node(input, level[2 * j], level[2 * j + 1], sum(j));
        },
        [&next, &sum](std::size_t j, const Hash& digest) {
          next[j] = {digest, sum(j)};
        });
    if (level.size() % 2 == 1) next.back() = level.back();
    tree.levels_.push_back(std::move(next));
  }
  return tree;
}

SumNode SumTree::root() const noexcept {
  if (levels_.empty()) return {crypto::sha3_256({}), 0};
  return levels_.back()[0];
}

base::Result<SumProof> SumTree::prove(std::uint64_t leaf_index) const {
  if (leaf_index >= size()) {
    return detail::index_error(leaf_index, "the sum tree's " + std::to_string(size()) + " leaves");
  }
  SumProof proof;
  proof.leaf_index = leaf_index;
  proof.leaf_count = size();
  proof.path = shape::inclusion_path<SumNode>(leaf_index, size(), [this](std::uint64_t lo, std::uint64_t hi) {
    const unsigned k = shape::level_of(lo, hi);
    return levels_[k][static_cast<std::size_t>(lo >> k)];
  });
  return proof;
}

bool verify_sum_proof(const SumLeaf& leaf, const SumProof& proof, const SumNode& root,
                      std::uint64_t leaf_count) noexcept {
  if (proof.leaf_count != leaf_count) return false;
  const auto computed =
      shape::root_from_inclusion_path<SumNode>(proof.leaf_index, proof.leaf_count, sum_leaf_node(leaf),
                                               std::span<const SumNode>(proof.path.data(), proof.path.size()),
                                               [](const SumNode& left, const SumNode& right, SumNode& out) {
                                                 const auto parent = sum_parent(left, right);
                                                 if (parent) out = *parent;
                                                 return parent.has_value();
                                               });
  return computed && *computed == root;
}

}  // namespace sion::commit
