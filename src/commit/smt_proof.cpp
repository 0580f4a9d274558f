#include "sion/commit/smt_proof.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>

#include "sion/commit/detail/multiproof_walk.hpp"

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
  if (std::find(proof.siblings.begin(), proof.siblings.end(), kEmpty) != proof.siblings.end()) {
    return "a sibling marked non-empty is zero";
  }
  return {};
}

// verify_state_multiproof's builder: hashes only, and checks each claim
// where its path ends.
class ClaimChecker {
 public:
  using Ref = Hash;

  explicit ClaimChecker(std::span<const StateClaim> claims) noexcept : claims_(claims) {}

  const Hash& key(std::size_t i) const noexcept { return claims_[i].key; }

  std::optional<Hash> empty(unsigned, std::size_t begin, std::size_t end) const noexcept {
    for (std::size_t i = begin; i < end; ++i) {
      if (claims_[i].value_hash) return std::nullopt;
    }
    return kEmpty;
  }

  std::optional<Hash> leaf(unsigned, std::size_t begin, std::size_t end, const StateLeaf& leaf) const noexcept {
    for (std::size_t i = begin; i < end; ++i) {
      const bool present = claims_[i].key == leaf.key;
      if (present != claims_[i].value_hash.has_value()) return std::nullopt;
      if (present && *claims_[i].value_hash != leaf.value_hash) return std::nullopt;
    }
    return state_leaf_hash(leaf.key, leaf.value_hash);
  }

  Hash sibling(unsigned, const Hash& hash) const noexcept { return hash; }
  Hash empty_sibling(unsigned) const noexcept { return kEmpty; }

  std::optional<Hash> node(unsigned, const Hash& left, const Hash& right) const noexcept {
    return hash_node(Domain::state_node, left, right);
  }

 private:
  std::span<const StateClaim> claims_;
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
    if (!detail::same_prefix(proof.leaf->key, key, proof.depth)) return false;
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
      // An empty sibling is a clear bit, never a zero hash: one encoding.
      if (sibling == kEmpty) return false;
    }
    node =
        key_bit(key, i) ? hash_node(Domain::state_node, sibling, node) : hash_node(Domain::state_node, node, sibling);
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
  ClaimChecker checker(claims);
  detail::MultiProofWalk walk(proof, checker, claims.size());
  const auto computed = walk.subtree(0, 0, claims.size());
  return computed && walk.finished() && *computed == root;
}

}  // namespace sion::commit
