#include "sion/commit/smt_proof.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>

namespace sion::commit {

Hash state_leaf_hash(const Hash& key, const Hash& value_hash) noexcept {
  std::array<std::uint8_t, 1 + 2 * sizeof(Hash)> input;
  input[0] = static_cast<std::uint8_t>(Domain::state_leaf);
  std::memcpy(input.data() + 1, key.data(), key.size());
  std::memcpy(input.data() + 1 + key.size(), value_hash.data(), value_hash.size());
  return crypto::sha3_256(input);
}

namespace {

constexpr Hash kEmpty{};

bool bitmap_bit(const codec::VarBytes<32>& bitmap, unsigned i) noexcept {
  return ((bitmap[i >> 3] >> (7 - (i & 7))) & 1) != 0;
}

// The form rules of docs/state-tree.md, "Proofs"; empty when they hold.
std::string proof_form_fault(const StateProof& proof) {
  if (proof.depth > kStateKeyBits) return "depth " + std::to_string(proof.depth) + " exceeds 256";
  const std::size_t bytes = (proof.depth + 7u) / 8u;
  if (proof.bitmap.size() != bytes) {
    return "bitmap has " + std::to_string(proof.bitmap.size()) + " bytes, depth " + std::to_string(proof.depth) +
           " needs " + std::to_string(bytes);
  }
  std::size_t set = 0;
  for (std::size_t i = 0; i < bytes; ++i) set += static_cast<std::size_t>(std::popcount(proof.bitmap[i]));
  if (proof.depth % 8 != 0 && (proof.bitmap[bytes - 1] & (0xffu >> (proof.depth % 8))) != 0) {
    return "bitmap has bits set past depth " + std::to_string(proof.depth);
  }
  if (set != proof.siblings.size()) {
    return "bitmap marks " + std::to_string(set) + " siblings, the proof has " + std::to_string(proof.siblings.size());
  }
  // The path ends where its subtree holds at most one leaf, so the last
  // sibling is non-empty (otherwise the parent would have collapsed too).
  if (proof.depth > 0 && !bitmap_bit(proof.bitmap, proof.depth - 1u)) return "the last sibling is empty";
  return {};
}

// Bits [0, depth) of a and b agree.
bool same_prefix(const Hash& a, const Hash& b, unsigned depth) noexcept {
  const unsigned whole = depth / 8;
  if (std::memcmp(a.data(), b.data(), whole) != 0) return false;
  if (depth % 8 == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xffu << (8 - depth % 8));
  return ((a[whole] ^ b[whole]) & mask) == 0;
}

// Reads the multi-proof walk (docs/state-tree.md, "Multi-proofs").
class MultiVerifier {
 public:
  MultiVerifier(const StateMultiProof& proof, std::span<const StateClaim> claims) noexcept
      : proof_(proof), claims_(claims) {}

  // The hash of the subtree at `depth` holding claims [begin, end), or
  // nullopt when the proof is malformed or contradicts a claim.
  std::optional<Hash> subtree(unsigned depth, std::size_t begin, std::size_t end) noexcept {
    const auto branch = next_bit();
    if (!branch) return std::nullopt;
    if (!*branch) {
      const auto has_leaf = next_bit();
      if (!has_leaf) return std::nullopt;
      if (!*has_leaf) {
        for (std::size_t i = begin; i < end; ++i) {
          if (claims_[i].value_hash) return std::nullopt;
        }
        return kEmpty;
      }
      if (leaf_ == proof_.leaves.size()) return std::nullopt;
      const StateLeaf& leaf = proof_.leaves[leaf_++];
      if (!same_prefix(leaf.key, claims_[begin].key, depth)) return std::nullopt;
      for (std::size_t i = begin; i < end; ++i) {
        const bool present = claims_[i].key == leaf.key;
        if (present != claims_[i].value_hash.has_value()) return std::nullopt;
        if (present && *claims_[i].value_hash != leaf.value_hash) return std::nullopt;
      }
      return state_leaf_hash(leaf.key, leaf.value_hash);
    }
    if (depth == kStateKeyBits) return std::nullopt;
    std::size_t middle = begin;
    while (middle < end && !key_bit(claims_[middle].key, depth)) ++middle;
    const auto left = side(depth, begin, middle);
    if (!left) return std::nullopt;
    const auto right = side(depth, middle, end);
    if (!right) return std::nullopt;
    return hash_node(Domain::state_node, *left, *right);
  }

  // Every bit, sibling and leaf was used, and the padding bits are zero.
  bool finished() const noexcept {
    if (sibling_ != proof_.siblings.size() || leaf_ != proof_.leaves.size()) return false;
    if (proof_.shape.size() != (bit_ + 7) / 8) return false;
    return bit_ % 8 == 0 || (proof_.shape.back() >> (bit_ % 8)) == 0;
  }

 private:
  std::optional<Hash> side(unsigned depth, std::size_t begin, std::size_t end) noexcept {
    if (begin != end) return subtree(depth + 1, begin, end);
    const auto non_empty = next_bit();
    if (!non_empty) return std::nullopt;
    if (!*non_empty) return kEmpty;
    if (sibling_ == proof_.siblings.size()) return std::nullopt;
    return proof_.siblings[sibling_++];
  }

  // Shape bits are packed least significant first.
  std::optional<bool> next_bit() noexcept {
    if (bit_ / 8 >= proof_.shape.size()) return std::nullopt;
    const bool bit = ((proof_.shape[bit_ / 8] >> (bit_ % 8)) & 1) != 0;
    ++bit_;
    return bit;
  }

  const StateMultiProof& proof_;
  std::span<const StateClaim> claims_;
  std::size_t bit_ = 0;
  std::size_t sibling_ = 0;
  std::size_t leaf_ = 0;
};

}  // namespace

base::Result<StateProof> decode_state_proof(base::ByteView bytes) {
  auto decoded = codec::decode<StateProof>(bytes);
  if (!decoded) return decoded;
  if (std::string reason = proof_form_fault(*decoded); !reason.empty()) {
    return base::fail(base::Errc::invalid_value, "StateProof: " + reason);
  }
  return decoded;
}

base::Result<StateMultiProof> decode_state_multiproof(base::ByteView bytes) {
  // Its form is checked against the claims, by verify_state_multiproof.
  return codec::decode<StateMultiProof>(bytes);
}

bool verify_state_proof(const Hash& root, const Hash& key, const std::optional<Hash>& value_hash,
                        const StateProof& proof) noexcept {
  if (proof.depth > kStateKeyBits || proof.bitmap.size() != (proof.depth + 7u) / 8u) return false;
  if (proof.depth > 0 && !bitmap_bit(proof.bitmap, proof.depth - 1u)) return false;
  Hash node = kEmpty;
  if (proof.leaf) {
    if (!same_prefix(proof.leaf->key, key, proof.depth)) return false;
    const bool present = proof.leaf->key == key;
    if (present != value_hash.has_value()) return false;
    if (present && *value_hash != proof.leaf->value_hash) return false;
    node = state_leaf_hash(proof.leaf->key, proof.leaf->value_hash);
  } else if (value_hash) {
    return false;
  }
  // Fold from the bottom: siblings are listed root side first.
  std::size_t next = proof.siblings.size();
  for (unsigned i = proof.depth; i-- > 0;) {
    Hash sibling = kEmpty;
    if (bitmap_bit(proof.bitmap, i)) {
      if (next == 0) return false;
      sibling = proof.siblings[--next];
    }
    node = key_bit(key, i) ? hash_node(Domain::state_node, sibling, node)
                           : hash_node(Domain::state_node, node, sibling);
  }
  // Bits past depth must be clear: each sibling is marked exactly once.
  if (next != 0) return false;
  if (proof.depth % 8 != 0 && (proof.bitmap.back() & (0xffu >> (proof.depth % 8))) != 0) return false;
  return node == root;
}

bool verify_state_multiproof(const Hash& root, std::span<const StateClaim> claims,
                             const StateMultiProof& proof) noexcept {
  if (claims.empty()) return false;
  for (std::size_t i = 1; i < claims.size(); ++i) {
    if (!(claims[i - 1].key < claims[i].key)) return false;
  }
  MultiVerifier verifier(proof, claims);
  const auto computed = verifier.subtree(0, 0, claims.size());
  return computed && verifier.finished() && *computed == root;
}

}  // namespace sion::commit
