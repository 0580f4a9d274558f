// The work a multi-proof makes its verifier do is bounded by the bytes it
// carries (docs/state-tree.md, "Bounds on a multi-proof"), and each proof has
// one encoding: crafted proofs cost at most twice what honest ones of their
// size cost, counted in hashes and nodes (not time, so the test is exact).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/commit/detail/multiproof_walk.hpp"
#include "sion/commit/smt.hpp"
#include "sion/commit/smt_partial.hpp"
#include "sion/commit/smt_proof.hpp"

#include "key_sets.hpp"

namespace sion::commit {
namespace {

using namespace testing;

// A walk builder that counts what a verifier spends: hashes (internal nodes
// and leaves) and nodes kept (those and opaque siblings, as
// PartialStateTree keeps them). It hashes nothing, so it never stops a walk
// early: the count is the work done before the walk itself stops.
struct CountingBuilder {
  using Ref = int;
  std::span<const Hash> keys;
  std::size_t hashes = 0;
  std::size_t nodes = 0;
  const Hash& key(std::size_t i) const noexcept { return keys[i]; }
  std::optional<Ref> empty(unsigned, std::size_t, std::size_t) { return 0; }
  std::optional<Ref> leaf(unsigned, std::size_t, std::size_t, const StateLeaf&) {
    ++hashes;
    ++nodes;
    return 0;
  }
  Ref sibling(unsigned, const Hash&) {
    ++nodes;
    return 0;
  }
  Ref empty_sibling(unsigned) { return 0; }
  std::optional<Ref> node(unsigned, Ref, Ref) {
    ++hashes;
    ++nodes;
    return 0;
  }
};

struct Cost {
  std::size_t bytes = 0;  // the proof's encoding and the proven keys
  std::size_t hashes = 0;
  std::size_t nodes = 0;
  bool accepted = false;
};

Cost walk_cost(std::span<const Hash> keys, const StateMultiProof& proof) {
  CountingBuilder builder{keys};
  detail::MultiProofWalk walk(proof, builder, keys.size());
  const bool accepted = walk.subtree(0, 0, keys.size()).has_value() && walk.finished();
  return {codec::encoded_size(proof) + 32 * keys.size(), builder.hashes, builder.nodes, accepted};
}

// Hashes and nodes per byte sent, at most twice the honest proof's.
void expect_within_twice(const Cost& cost, const Cost& honest, std::size_t pairs) {
  const auto per_byte = [](std::size_t work, const Cost& c) {
    return static_cast<double>(work) / static_cast<double>(c.bytes);
  };
  EXPECT_LE(per_byte(cost.hashes, cost), 2 * per_byte(honest.hashes, honest))
      << pairs << " pairs: " << cost.hashes << " hashes for " << cost.bytes << " bytes; honest: " << honest.hashes
      << " for " << honest.bytes;
  EXPECT_LE(per_byte(cost.nodes, cost), 2 * per_byte(honest.nodes, honest))
      << pairs << " pairs: " << cost.nodes << " nodes for " << cost.bytes << " bytes; honest: " << honest.nodes
      << " for " << honest.bytes;
}

// Pairs of keys that differ in bit 255 only, each pair under a random
// prefix: every pair sits under a chain of about 255 - log2(pairs)
// one-child nodes, which a proof sends as one 0 bit each.
std::vector<StateEntry> chained_pairs(std::size_t pairs, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<StateEntry> entries;
  for (std::size_t i = 0; i < pairs; ++i) {
    Hash key = random_hash(rng);
    key[31] &= 0xfe;
    entries.push_back({key, random_hash(rng)});
    key[31] |= 1;
    entries.push_back({key, random_hash(rng)});
  }
  return entries;
}

std::vector<Hash> sorted_keys(const std::vector<StateEntry>& entries) {
  std::vector<Hash> keys;
  for (const auto& e : entries) keys.push_back(e.key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

// An honest proof: 512 keys of a 20,000-key tree of random keys.
struct Honest {
  SparseMerkleTree tree;
  std::vector<Hash> keys;
  StateMultiProof proof;
};

Honest honest_proof() {
  const auto entries = make_entries(Keys::random, 20000, 77);
  Honest h{SparseMerkleTree::from_entries(entries).value(), {}, {}};
  for (std::size_t i = 0; i < 512; ++i) h.keys.push_back(entries[i * 39].key);
  std::sort(h.keys.begin(), h.keys.end());
  h.proof = h.tree.prove_many(h.keys);
  return h;
}

TEST(MultiProofBounds, ChainedProofsCostNoMoreThanTwiceAnHonestOne) {
  const Honest honest = honest_proof();
  const Cost base = walk_cost(honest.keys, honest.proof);
  ASSERT_TRUE(base.accepted);

  // The chain attack: pairs of keys, each pair under a chain of ~250
  // one-child nodes sent as one 0 bit each. Before the bound the walk built
  // every chain node, ~30 times an honest proof's hashes per byte.
  for (const std::size_t pairs : {std::size_t{64}, std::size_t{300}}) {
    const auto entries = chained_pairs(pairs, pairs);
    const auto tree = SparseMerkleTree::from_entries(entries).value();
    const auto keys = sorted_keys(entries);
    std::vector<StateClaim> claims;
    for (const Hash& k : keys) claims.push_back({k, tree.get(k)});

    // The tree is real, so its proof is valid: it pays for its chains with
    // surcharge, and then costs what an honest proof of its size costs.
    const StateMultiProof paid = tree.prove_many(keys);
    EXPECT_GT(paid.surcharge.size(), 0u);
    const Cost paid_cost = walk_cost(keys, paid);
    EXPECT_TRUE(paid_cost.accepted);
    expect_within_twice(paid_cost, base, pairs);
    EXPECT_TRUE(verify_state_multiproof(tree.root_hash(), claims, paid));
    EXPECT_TRUE(PartialStateTree::from_multiproof(tree.root_hash(), keys, paid).ok());

    // Unpaid, the same chains are refused at the first empty sibling past
    // the allowance, having cost no more than an honest proof per byte.
    StateMultiProof unpaid = paid;
    unpaid.surcharge.clear();
    const Cost cost = walk_cost(keys, unpaid);
    EXPECT_FALSE(cost.accepted);
    expect_within_twice(cost, base, pairs);
    EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), claims, unpaid));
    const auto partial = PartialStateTree::from_multiproof(tree.root_hash(), keys, unpaid);
    ASSERT_FALSE(partial.ok());
    EXPECT_NE(partial.error().reason.find("more empty siblings than its allowance and surcharge pay for"),
              std::string::npos)
        << partial.error().reason;

    // The surcharge has one encoding: exactly 32 zero bytes per empty
    // sibling past the allowance.
    StateMultiProof over = paid;
    over.surcharge.resize(over.surcharge.size() + 32, 0);
    EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), claims, over));
    StateMultiProof nonzero = paid;
    nonzero.surcharge[0] = 1;
    EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), claims, nonzero));
  }

  // The most a proof within the bound can ask: pairs of absent keys parting
  // at bit 255, every node above a pair's parting a chain node whose
  // off-path side is an empty sibling while the bound allows and a sibling
  // (32 bytes) after. The walk builder checks no hash, so any shape counts.
  for (const std::size_t pairs : {std::size_t{16}, std::size_t{128}}) {
    std::mt19937_64 rng(pairs);
    std::vector<Hash> keys;
    for (std::size_t i = 0; i < pairs; ++i) {
      Hash key = random_hash(rng);
      key[31] &= 0xfe;
      keys.push_back(key);
      key[31] |= 1;
      keys.push_back(key);
    }
    std::sort(keys.begin(), keys.end());
    // Pass 1 counts the chain nodes C; with E empty siblings and C - E
    // siblings the bound allows E <= (C - E + keys) / 2 + 256.
    std::size_t chain = 0;
    std::size_t empties_allowed = 0;
    std::vector<bool> bits;
    StateMultiProof within;
    const auto walk_keys = [&](auto&& self, unsigned depth, std::size_t begin, std::size_t end, bool emit) -> void {
      if (emit) bits.push_back(true);  // internal
      if (depth == 255) {
        if (emit) bits.insert(bits.end(), {false, false, false, false});  // two empty subtrees at 256
        return;
      }
      std::size_t middle = begin;
      while (middle < end && !key_bit(keys[middle], depth)) ++middle;
      if (middle != begin && middle != end) {
        self(self, depth + 1, begin, middle, emit);
        self(self, depth + 1, middle, end, emit);
        return;
      }
      if (!emit) {
        ++chain;
        self(self, depth + 1, begin, end, emit);
        return;
      }
      const auto off_path = [&] {
        const bool empty = empties_allowed > 0;
        bits.push_back(!empty);
        if (empty) {
          --empties_allowed;
        } else {
          within.siblings.push_back(random_hash(rng));
        }
      };
      if (middle == begin) off_path();  // keys go right: the left side first
      self(self, depth + 1, begin, end, emit);
      if (middle == end) off_path();
    };
    walk_keys(walk_keys, 0, 0, keys.size(), false);
    empties_allowed = (chain + keys.size() + 2 * kStateKeyBits - 1) / 3;  // 3E <= C + K + 511
    walk_keys(walk_keys, 0, 0, keys.size(), true);
    within.shape.assign((bits.size() + 7) / 8, 0);
    for (std::size_t i = 0; i < bits.size(); ++i) {
      if (bits[i]) within.shape[i / 8] = static_cast<std::uint8_t>(within.shape[i / 8] | (1u << (i % 8)));
    }
    const Cost cost = walk_cost(keys, within);
    EXPECT_TRUE(cost.accepted) << pairs;
    expect_within_twice(cost, base, pairs);
  }
}

TEST(MultiProofBounds, HonestProofsOfHashedKeysNeedNoSurcharge) {
  // Keys that are hashes part after a few shared bits: their proofs sit far
  // below the free allowance, for any number of keys.
  for (const std::size_t size : {std::size_t{2}, std::size_t{10}, std::size_t{1000}, std::size_t{20000}}) {
    const auto entries = make_entries(Keys::random, size, size);
    const auto tree = SparseMerkleTree::from_entries(entries).value();
    for (const std::size_t count : {std::size_t{1}, std::size_t{2}, size / 2, size}) {
      std::vector<Hash> keys;
      for (std::size_t i = 0; i < count; ++i) keys.push_back(entries[i].key);
      std::sort(keys.begin(), keys.end());
      const auto proof = tree.prove_many(keys);
      EXPECT_TRUE(proof.surcharge.empty()) << size << " " << count;
      EXPECT_TRUE(walk_cost(keys, proof).accepted) << size << " " << count;
      EXPECT_TRUE(PartialStateTree::from_multiproof(tree.root_hash(), keys, proof).ok());
    }
  }
}

}  // namespace
}  // namespace sion::commit
