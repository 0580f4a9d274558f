#pragma once
// A payment stream's hash chain and its checkpoints (docs/streams.md,
// "The chain"). The payer draws a secret seed and sets x[n] = seed; every
// element below is the hash of the one above, x[i-1] = SHA3-256(0x4b || x[i]),
// down to the anchor x[0] = H^n(seed) that OpenStream publishes. Payment i
// reveals x[i]: anyone holding x[i-1] checks it with one hash, and no one
// can compute x[i] from x[i-1].
//
// Checkpoints are the elements x[c], x[2c], ..., x[mc] at a spacing c of
// about sqrt(n); a Merkle tree over them (RFC 6962 shape, SHA3-256, tags
// 0x4c / 0x4d) lets a settlement walk at most c - 1 steps whatever its index.

#include <cstdint>
#include <span>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/merkle_tree.hpp"

namespace sion::streams {

using Hash = commit::Hash;

// Longest chain: indices travel as u32.
inline constexpr std::uint32_t kMaxLength = 0xffff'ffffu;

// x[i-1] from x[i]: SHA3-256(0x4b || x[i]), one Keccak-f[1600] call.
Hash chain_step(const Hash& element) noexcept;
// `steps` applications of chain_step: x[i - steps] from x[i].
Hash walk(const Hash& element, std::uint64_t steps) noexcept;
// out[i] = walk(elements[i], steps[i]) for every i, the walks run side by
// side in Keccak lanes (8 with AVX-512, 4 with AVX2, else one by one).
void walk_many(std::span<const Hash> elements, std::span<const std::uint32_t> steps, Hash* out);

// The checkpoint spacing c of a chain of `length` (>= 1) elements: the least
// power of two whose square is at least length.
std::uint32_t checkpoint_spacing(std::uint32_t length) noexcept;
// m = floor(length / c): the checkpoints x[c], ..., x[mc] (the anchor x[0]
// is not one; the stream holds it). At least 1 for length >= 1.
std::uint32_t checkpoint_count(std::uint32_t length) noexcept;
// The index of the checkpoint at or below `index` (0 for the anchor).
inline std::uint32_t checkpoint_below(std::uint32_t index, std::uint32_t spacing) noexcept {
  return index / spacing * spacing;
}

inline constexpr commit::TreeHasher kCheckpointHasher{commit::HashFunction::sha3_256, commit::Domain::checkpoint_leaf,
                                                      commit::Domain::checkpoint_node};

// The root of the tree whose leaf j - 1 is SHA3-256(0x4c || x[jc]).
Hash checkpoint_root(std::span<const Hash> checkpoints);
// The inclusion path of checkpoint `number` (1 .. checkpoints.size()),
// leaf side first (RFC 9162, Sec. 2.1.3.1).
base::Result<std::vector<Hash>> checkpoint_path(std::span<const Hash> checkpoints, std::uint32_t number);
// Whether `path` proves `element` as checkpoint `number` of a tree over
// `count` checkpoints with root `root` (RFC 9162, Sec. 2.1.3.2).
bool proves_checkpoint(const Hash& element, std::uint32_t number, std::uint32_t count, std::span<const Hash> path,
                       const Hash& root) noexcept;

// A chain as its payer builds it, once: the anchor, the checkpoints (in
// order: x[c], x[2c], ...) and their root.
struct Chain {
  std::uint32_t length = 0;
  Hash anchor{};
  std::vector<Hash> checkpoints;
  Hash root{};
};
// From x[length] = seed down to x[0]: length hashes and the tree. length
// must be in 1 .. kMaxLength.
base::Result<Chain> build_chain(const Hash& seed, std::uint32_t length);

}  // namespace sion::streams
