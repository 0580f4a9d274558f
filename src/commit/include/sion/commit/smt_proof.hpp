#pragma once
// Proofs of the sparse Merkle state tree (docs/state-tree.md, "Proofs" and
// "Multi-proofs"): a key is shown present with its value hash, or absent.
// Verification needs only the root; it returns bool. Decoding proofs from
// untrusted bytes returns a Result naming what was wrong.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>

#include "sion/base/endian.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"

namespace sion::commit {

inline constexpr unsigned kStateKeyBits = 256;

// Bit `depth` of a key: most significant bit of key[0] first.
inline bool key_bit(const Hash& key, unsigned depth) noexcept {
  return ((key[depth >> 3] >> (7 - (depth & 7))) & 1) != 0;
}

// How many leading bits (in key_bit order) two keys share; kStateKeyBits
// if they are equal.
inline unsigned common_prefix_bits(const Hash& a, const Hash& b) noexcept {
  for (std::size_t word = 0; word < 4; ++word) {
    const std::uint64_t x = base::load_be<std::uint64_t>(a.data() + 8 * word);
    const std::uint64_t y = base::load_be<std::uint64_t>(b.data() + 8 * word);
    if (x != y) return static_cast<unsigned>(64 * word) + static_cast<unsigned>(std::countl_zero(x ^ y));
  }
  return kStateKeyBits;
}

// A leaf: an object's key and the hash of its value.
struct StateLeaf {
  Hash key{};
  Hash value_hash{};
  static constexpr std::string_view codec_name = "StateLeaf";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("key", &StateLeaf::key), codec::field("value_hash", &StateLeaf::value_hash)};
  }
  bool operator==(const StateLeaf&) const = default;
};

// H(0x10 || key || value_hash).
Hash state_leaf_hash(const Hash& key, const Hash& value_hash) noexcept;

// The path of one key from the root down to where it ends: an empty subtree
// (no leaf), the key's own leaf, or another key's leaf sharing the first
// `depth` bits (the key is then absent).
struct StateProof {
  std::uint16_t depth = 0;          // siblings on the path, 0..256
  codec::VarBytes<32> bitmap;       // ceil(depth / 8) bytes: bit i set when sibling i is non-empty
  codec::List<Hash, 256> siblings;  // the non-empty siblings, root side first
  std::optional<StateLeaf> leaf;    // the leaf where the path ends
  static constexpr std::string_view codec_name = "StateProof";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("depth", &StateProof::depth), codec::field("bitmap", &StateProof::bitmap),
                      codec::field("siblings", &StateProof::siblings), codec::field("leaf", &StateProof::leaf)};
  }
  bool operator==(const StateProof&) const = default;
};

// One proof for several keys: the union of their paths, each node once, and
// only the siblings no proven key's path passes through.
struct StateMultiProof {
  static constexpr std::size_t kMaxShapeBytes = std::size_t{1} << 24;
  static constexpr std::size_t kMaxHashes = std::size_t{1} << 22;
  static constexpr std::size_t kMaxLeaves = std::size_t{1} << 20;
  codec::VarBytes<kMaxShapeBytes> shape;      // the walk, bit by bit (docs/state-tree.md)
  codec::List<Hash, kMaxHashes> siblings;     // non-empty siblings in walk order
  codec::List<StateLeaf, kMaxLeaves> leaves;  // leaves where paths end, in walk order
  // 32 zero bytes per empty sibling past the free allowance: the sender pays
  // for the hashes those cost the verifier (docs/state-tree.md, "Bounds on
  // a multi-proof"). Empty for every proof of keys that are hashes.
  codec::VarBytes<kMaxShapeBytes> surcharge;
  static constexpr std::string_view codec_name = "StateMultiProof";
  static constexpr auto codec_fields() {
    return std::tuple{
        codec::field("shape", &StateMultiProof::shape), codec::field("siblings", &StateMultiProof::siblings),
        codec::field("leaves", &StateMultiProof::leaves), codec::field("surcharge", &StateMultiProof::surcharge)};
  }
  // Empty siblings a proof of `keys` keys may hold without surcharge: half
  // its non-empty siblings, leaves and keys, plus 256 (the longest chain one
  // path can hold). Honest proofs over hashed keys hold about one per key.
  static std::size_t free_empty_siblings(std::size_t siblings, std::size_t leaves, std::size_t keys) noexcept {
    return (siblings + leaves + keys) / 2 + kStateKeyBits;
  }
  static constexpr std::size_t kSurchargePerEmptySibling = 32;
  bool operator==(const StateMultiProof&) const = default;
};

// A claim about one key: present with this value hash, or absent (nullopt).
struct StateClaim {
  Hash key{};
  std::optional<Hash> value_hash;
};

// Decodes a proof and checks its form (bitmap length, bits past depth clear,
// one sibling per set bit, no zero sibling), naming the first fault.
base::Result<StateProof> decode_state_proof(base::ByteView bytes);
base::Result<StateMultiProof> decode_state_multiproof(base::ByteView bytes);

// True when `proof` shows the claim against `root`: the key present with
// value_hash, or (value_hash nullopt) absent.
bool verify_state_proof(const Hash& root, const Hash& key, const std::optional<Hash>& value_hash,
                        const StateProof& proof) noexcept;

// True when `proof` shows every claim against `root`. Claims must be sorted
// by key, strictly increasing, and not empty.
bool verify_state_multiproof(const Hash& root, std::span<const StateClaim> claims,
                             const StateMultiProof& proof) noexcept;

}  // namespace sion::commit
