#pragma once
// The one reader of a multi-proof's walk (docs/state-tree.md, "Multi-proofs"),
// shared by verify_state_multiproof (which only hashes) and
// PartialStateTree::from_multiproof (which also keeps the nodes), so the
// shape bits have a single decoder.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "sion/commit/hash.hpp"
#include "sion/commit/smt_proof.hpp"

namespace sion::commit::detail {

// Bits [0, depth) of a and b agree.
inline bool same_prefix(const Hash& a, const Hash& b, unsigned depth) noexcept {
  const unsigned whole = depth / 8;
  if (std::memcmp(a.data(), b.data(), whole) != 0) return false;
  if (depth % 8 == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xffu << (8 - depth % 8));
  return ((a[whole] ^ b[whole]) & mask) == 0;
}

// Walks `proof` over a sorted, distinct, non-empty run of keys, handing every
// subtree it meets to a Builder, which turns it into a Ref (a hash, a node):
//
//   const Hash& key(std::size_t i)                     the i-th proven key
//   std::optional<Ref> empty(depth, begin, end)        an empty subtree where keys [begin, end) end
//   std::optional<Ref> leaf(depth, begin, end, leaf)   a leaf where they end (its key agrees with
//                                                      theirs on bits 0 .. depth-1, checked here)
//   Ref sibling(depth, hash)                           a non-empty subtree off every proven path
//   Ref empty_sibling(depth)                           an empty one
//   std::optional<Ref> node(depth, left, right)        an internal node on a proven path
//
// A nullopt from the builder stops the walk; the builder keeps its reason.
// Faults of the proof itself are named by fault().
//
// Work is bounded by what the proof pays for (docs/state-tree.md, "Bounds
// on a multi-proof"): an empty sibling costs its sender one bit but the
// walk a hash and a node, so past a free allowance each must be paid for
// with 32 bytes of surcharge, and the walk stops at the first one unpaid,
// before hashing it.
template <class Builder>
class MultiProofWalk {
 public:
  using Ref = typename Builder::Ref;

  // `keys`: how many keys the walk proves.
  MultiProofWalk(const StateMultiProof& proof, Builder& builder, std::size_t keys) noexcept
      : proof_(proof),
        builder_(builder),
        free_(StateMultiProof::free_empty_siblings(proof.siblings.size(), proof.leaves.size(), keys)),
        empty_left_(free_ + proof.surcharge.size() / StateMultiProof::kSurchargePerEmptySibling) {}

  // The subtree at `depth` holding keys [begin, end), begin < end.
  std::optional<Ref> subtree(unsigned depth, std::size_t begin, std::size_t end) {
    const auto branch = next_bit();
    if (!branch) return std::nullopt;
    if (!*branch) {
      const auto has_leaf = next_bit();
      if (!has_leaf) return std::nullopt;
      if (!*has_leaf) return builder_.empty(depth, begin, end);
      if (leaf_ == proof_.leaves.size()) return fail("it has too few leaves");
      const StateLeaf& leaf = proof_.leaves[leaf_++];
      if (!same_prefix(leaf.key, builder_.key(begin), depth)) return fail("a leaf lies off the path of its keys");
      return builder_.leaf(depth, begin, end, leaf);
    }
    if (depth == kStateKeyBits) return fail("it has an internal node at depth 256");
    // Keys [begin, middle) go left: the first key with bit `depth` set.
    std::size_t low = begin;
    std::size_t high = end;
    while (low < high) {
      const std::size_t mid = low + (high - low) / 2;
      if (key_bit(builder_.key(mid), depth)) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    const auto left = side(depth, begin, low);
    if (!left) return std::nullopt;
    const auto right = side(depth, low, end);
    if (!right) return std::nullopt;
    return builder_.node(depth, *left, *right);
  }

  // Every bit, sibling and leaf was used, and the padding bits are zero.
  bool finished() noexcept {
    if (sibling_ != proof_.siblings.size()) return fail_bool("it has unused siblings");
    if (leaf_ != proof_.leaves.size()) return fail_bool("it has unused leaves");
    if (proof_.shape.size() != (bit_ + 7) / 8) return fail_bool("its shape has unused bytes");
    if (bit_ % 8 != 0 && (proof_.shape.back() >> (bit_ % 8)) != 0) return fail_bool("its shape has padding bits set");
    // The surcharge is exactly what the empty siblings past the allowance
    // need, in zeros: one encoding per proof.
    const std::size_t unpaid = empties_ > free_ ? empties_ - free_ : 0;
    if (proof_.surcharge.size() != unpaid * StateMultiProof::kSurchargePerEmptySibling) {
      return fail_bool("its surcharge is not 32 bytes per empty sibling past the allowance");
    }
    for (const std::uint8_t byte : proof_.surcharge) {
      if (byte != 0) return fail_bool("its surcharge is not all zeros");
    }
    return true;
  }

  // What was wrong with the proof, or nullptr (then the builder refused).
  const char* fault() const noexcept { return fault_; }

 private:
  std::optional<Ref> side(unsigned depth, std::size_t begin, std::size_t end) {
    if (begin != end) return subtree(depth + 1, begin, end);
    const auto non_empty = next_bit();
    if (!non_empty) return std::nullopt;
    if (!*non_empty) {
      if (empty_left_ == 0) return fail("it has more empty siblings than its allowance and surcharge pay for");
      --empty_left_;
      ++empties_;
      return builder_.empty_sibling(depth + 1);
    }
    if (sibling_ == proof_.siblings.size()) return fail("it has too few siblings");
    // An empty subtree is sent as a 0 bit, never as a zero hash: one
    // encoding per proof.
    if (proof_.siblings[sibling_] == Hash{}) return fail("a sibling marked non-empty is zero");
    return builder_.sibling(depth + 1, proof_.siblings[sibling_++]);
  }

  // Shape bits are packed least significant first.
  std::optional<bool> next_bit() noexcept {
    if (bit_ / 8 >= proof_.shape.size()) {
      fault_ = "its shape ends early";
      return std::nullopt;
    }
    const bool bit = ((proof_.shape[bit_ / 8] >> (bit_ % 8)) & 1) != 0;
    ++bit_;
    return bit;
  }

  std::nullopt_t fail(const char* reason) noexcept {
    fault_ = reason;
    return std::nullopt;
  }
  bool fail_bool(const char* reason) noexcept {
    fault_ = reason;
    return false;
  }

  const StateMultiProof& proof_;
  Builder& builder_;
  std::size_t bit_ = 0;
  std::size_t sibling_ = 0;
  std::size_t leaf_ = 0;
  std::size_t free_;
  std::size_t empty_left_;
  std::size_t empties_ = 0;
  const char* fault_ = nullptr;
};

}  // namespace sion::commit::detail
