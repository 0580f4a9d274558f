#include "sion/commit/smt_partial.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/commit/smt.hpp"

#include "key_sets.hpp"

namespace sion::commit {
namespace {

// ---- Key sets (as in smt_test.cpp) ---------------------------------------------

using namespace testing;
constexpr std::size_t kSizes[] = {0u, 1u, 2u, 3u, 10u, 200u, 2000u};

// ---- Batches and witnesses -------------------------------------------------------

// A random batch over `entries` (updates, deletions, inserts of new keys of
// the same kind) and the key set a prover proves for it: the changed keys
// and the neighbours of every deleted key.
struct Batch {
  std::vector<StateChange> changes;
  std::vector<Hash> proven;  // sorted, distinct
};

Batch make_batch(Keys kind, const std::vector<StateEntry>& entries, const SparseMerkleTree& tree, std::mt19937_64& rng,
                 unsigned delete_in_8) {
  Batch batch;
  std::set<Hash> changed;
  std::set<Hash> proven;
  for (const StateEntry& entry : entries) {
    const auto pick = rng() % 8;
    if (pick < delete_in_8) {
      batch.changes.push_back({entry.key, std::nullopt});
      const auto [below, above] = tree.neighbours(entry.key);
      if (below) proven.insert(*below);
      if (above) proven.insert(*above);
    } else if (pick == 7) {
      batch.changes.push_back({entry.key, random_hash(rng)});
    } else {
      continue;
    }
    changed.insert(entry.key);
  }
  const std::size_t inserts = entries.size() / 8 + 1 + rng() % 2;
  for (std::size_t i = 0; i < inserts; ++i) {
    const Hash key = make_key(kind, rng, entries.size() + rng() % (entries.size() + 16));
    if (tree.get(key) || !changed.insert(key).second) continue;
    batch.changes.push_back({key, random_hash(rng)});
  }
  proven.insert(changed.begin(), changed.end());
  batch.proven.assign(proven.begin(), proven.end());
  std::shuffle(batch.changes.begin(), batch.changes.end(), rng);
  return batch;
}

// The partial tree for `keys` (sorted); a refusal fails the test.
PartialStateTree partial_for(const SparseMerkleTree& tree, const std::vector<Hash>& keys) {
  auto partial = PartialStateTree::from_multiproof(tree.root_hash(), keys, tree.prove_many(keys));
  if (!partial) throw std::runtime_error(partial.error().to_string());
  return std::move(partial).value();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- Tests ------------------------------------------------------------------------

TEST(PartialStateTree, NeighboursAreTheAdjacentPresentKeys) {
  for (Keys kind : kAllKinds) {
    for (std::size_t size : kSizes) {
      const auto entries = make_entries(kind, size, size + 5);
      const auto tree = SparseMerkleTree::from_entries(entries).value();
      std::vector<Hash> sorted;
      for (const auto& e : entries) sorted.push_back(e.key);
      std::sort(sorted.begin(), sorted.end());
      std::mt19937_64 rng(size);
      std::vector<Hash> probes = sorted;
      for (std::size_t i = 0; i < 50; ++i) probes.push_back(make_key(kind, rng, rng() % (size + 16)));
      for (const Hash& key : probes) {
        const auto lower = std::lower_bound(sorted.begin(), sorted.end(), key);
        const auto upper = std::upper_bound(sorted.begin(), sorted.end(), key);
        const auto [below, above] = tree.neighbours(key);
        EXPECT_EQ(below, lower == sorted.begin() ? std::nullopt : std::optional<Hash>{*(lower - 1)});
        EXPECT_EQ(above, upper == sorted.end() ? std::nullopt : std::optional<Hash>{*upper});
      }
    }
  }
}

// The heart of it: a witness of (changed keys and neighbours of deleted
// keys) lets the partial tree reach the full tree's new root, whether the
// batch is applied at once or change by change, then further batches on the
// same keys too.
TEST(PartialStateTree, ApplyMatchesTheFullTree) {
  for (Keys kind : kAllKinds) {
    for (std::size_t size : kSizes) {
      const unsigned rounds = size <= 3 ? 24 : size <= 200 ? 6 : 2;
      for (unsigned round = 0; round < rounds; ++round) {
        SCOPED_TRACE("kind " + std::to_string(static_cast<int>(kind)) + ", size " + std::to_string(size) + ", round " +
                     std::to_string(round));
        std::mt19937_64 rng(size * 131 + round);
        const auto entries = make_entries(kind, size, size + round);
        auto tree = SparseMerkleTree::from_entries(entries).value();
        const unsigned delete_in_8 = round % 3 == 2 ? 6 : 1;  // some batches delete most keys
        const Batch batch = make_batch(kind, entries, tree, rng, delete_in_8);
        auto partial = partial_for(tree, batch.proven);
        auto one_by_one = partial;
        for (const Hash& key : batch.proven) EXPECT_EQ(partial.get(key).value(), tree.get(key));

        const auto root = partial.apply(batch.changes);
        ASSERT_TRUE(root.ok()) << root.error().to_string();
        ASSERT_TRUE(tree.update(batch.changes, tree.version() + 1).ok());
        ASSERT_EQ(*root, tree.root_hash());
        EXPECT_EQ(partial.root(), tree.root_hash());
        for (const Hash& key : batch.proven) EXPECT_EQ(partial.get(key).value(), tree.get(key));

        // The same witness serves the batch split into one change at a time
        // (a transaction at a time): the neighbours before the batch cover
        // every deletion in between.
        for (const StateChange& change : batch.changes) {
          const auto step = one_by_one.apply(std::span(&change, 1));
          ASSERT_TRUE(step.ok()) << step.error().to_string();
        }
        EXPECT_EQ(one_by_one.root(), tree.root_hash());

        // A second batch on the new tree: set every proven key (updates and
        // inserts need no neighbours).
        std::vector<StateChange> again;
        for (const Hash& key : batch.proven) again.push_back({key, random_hash(rng)});
        const auto root2 = partial.apply(again);
        ASSERT_TRUE(root2.ok()) << root2.error().to_string();
        ASSERT_TRUE(tree.update(again, tree.version() + 1).ok());
        EXPECT_EQ(*root2, tree.root_hash());
      }
    }
  }
}

TEST(PartialStateTree, DeletingEverythingGivesTheEmptyRoot) {
  for (Keys kind : kAllKinds) {
    for (std::size_t size : {1u, 2u, 3u, 10u, 200u}) {
      const auto entries = make_entries(kind, size, size + 77);
      std::vector<Hash> keys;
      std::vector<StateChange> changes;
      for (const auto& e : entries) {
        keys.push_back(e.key);
        changes.push_back({e.key, std::nullopt});
      }
      std::sort(keys.begin(), keys.end());
      const auto tree = SparseMerkleTree::from_entries(entries).value();
      auto partial = partial_for(tree, keys);
      const auto root = partial.apply(changes);
      ASSERT_TRUE(root.ok()) << root.error().to_string();
      EXPECT_EQ(*root, Hash{});
      for (const Hash& key : keys) EXPECT_EQ(partial.get(key).value(), std::nullopt);
      // And back again.
      std::vector<StateChange> back;
      for (const auto& e : entries) back.push_back({e.key, e.value_hash});
      EXPECT_EQ(partial.apply(back).value(), tree.root_hash());
    }
  }
}

TEST(PartialStateTree, InsertsIntoTheEmptyTree) {
  const SparseMerkleTree empty;
  for (Keys kind : kAllKinds) {
    const auto entries = make_entries(kind, 40, 8);
    std::vector<Hash> keys;
    std::vector<StateChange> changes;
    for (const auto& e : entries) {
      keys.push_back(e.key);
      changes.push_back({e.key, e.value_hash});
    }
    std::sort(keys.begin(), keys.end());
    const auto proof = empty.prove_many(keys);
    auto partial = PartialStateTree::from_multiproof(Hash{}, keys, proof);
    ASSERT_TRUE(partial.ok()) << partial.error().to_string();
    EXPECT_EQ(partial->root(), Hash{});
    EXPECT_EQ(partial->get(keys[0]).value(), std::nullopt);
    EXPECT_EQ(partial->apply(changes).value(), SparseMerkleTree::from_entries(entries).value().root_hash());
  }
}

TEST(PartialStateTree, EmptyKeySetKnowsOnlyTheRoot) {
  const auto entries = make_entries(Keys::random, 10, 3);
  const auto tree = SparseMerkleTree::from_entries(entries).value();
  auto partial = PartialStateTree::from_multiproof(tree.root_hash(), {}, StateMultiProof{});
  ASSERT_TRUE(partial.ok()) << partial.error().to_string();
  EXPECT_EQ(partial->root(), tree.root_hash());
  EXPECT_EQ(partial->apply({}).value(), tree.root_hash());
  EXPECT_FALSE(partial->get(entries[0].key).ok());
  const auto some_proof = tree.prove_many(std::vector<Hash>{entries[0].key});
  EXPECT_FALSE(PartialStateTree::from_multiproof(tree.root_hash(), {}, some_proof).ok());
}

// Without the neighbour the sibling of a deleted leaf is an opaque hash:
// a single leaf (the parent collapses) or a node (it stays)? The tree
// refuses and stays as it was; with the neighbours proven it succeeds.
TEST(PartialStateTree, DeletionNeedsTheNeighbours) {
  Hash a{};  // bit 0 clear
  Hash b{};
  b[0] = 0x80;  // bit 0 set
  Hash c = b;
  c[31] = 1;
  for (const bool sibling_is_leaf : {true, false}) {
    std::vector<StateEntry> entries = {{a, Hash{{1u}}}, {b, Hash{{2u}}}};
    if (!sibling_is_leaf) entries.push_back({c, Hash{{3u}}});
    auto tree = SparseMerkleTree::from_entries(entries).value();
    const std::vector<Hash> keys = {a};
    auto partial = partial_for(tree, keys);
    const Hash before = partial.root();
    const std::vector<StateChange> changes = {{a, std::nullopt}};
    const auto root = partial.apply(changes);
    ASSERT_FALSE(root.ok());
    EXPECT_EQ(root.error().code, base::Errc::invalid_value);
    EXPECT_TRUE(contains(root.error().reason, "deleting " + base::to_hex(a))) << root.error().reason;
    EXPECT_TRUE(contains(root.error().reason, "prove its neighbours too")) << root.error().reason;
    EXPECT_EQ(partial.root(), before);
    EXPECT_EQ(partial.get(a).value(), std::optional<Hash>{Hash{{1u}}});

    // The neighbour rule: a's successor is b.
    EXPECT_EQ(tree.neighbours(a).second, std::optional<Hash>{b});
    const std::vector<Hash> with_neighbour = {a, b};
    auto enough = partial_for(tree, with_neighbour);
    const auto good = enough.apply(changes);
    ASSERT_TRUE(good.ok()) << good.error().to_string();
    ASSERT_TRUE(tree.update(changes, 2).ok());
    EXPECT_EQ(*good, tree.root_hash());
  }
}

// A one-child node shows that its child holds two or more entries, so a
// deletion next to it needs no more: keys under a long shared prefix.
TEST(PartialStateTree, DeletionBesideAChainNeedsNoNeighbour) {
  Hash x{};
  x.fill(0xa5);
  Hash y = x;
  y[31] = 0xa4;
  Hash lone{};  // the other side of the root
  lone[0] = 0x00;
  const std::vector<StateEntry> entries = {{x, Hash{{1u}}}, {y, Hash{{2u}}}, {lone, Hash{{3u}}}};
  auto tree = SparseMerkleTree::from_entries(entries).value();
  // Proving `lone` only: the root's right child is the chain over x and y,
  // an opaque hash, but the root is not a one-child node, so it is not known
  // to hold two entries: deleting `lone` is refused...
  const std::vector<StateChange> changes = {{lone, std::nullopt}};
  {
    auto partial = partial_for(tree, std::vector<Hash>{lone});
    EXPECT_FALSE(partial.apply(changes).ok());
  }
  // ...whereas an absent key ending in the chain (bit 1 differs from x's)
  // shows the chain node's other child is the opaque pair: inserting and
  // deleting it again is computable.
  Hash z = x;
  z[0] = static_cast<std::uint8_t>(x[0] ^ 0x40);
  auto partial = partial_for(tree, std::vector<Hash>{z});
  const std::vector<StateChange> insert = {{z, Hash{{9u}}}};
  const std::vector<StateChange> remove = {{z, std::nullopt}};
  ASSERT_TRUE(tree.update(insert, 2).ok());
  EXPECT_EQ(partial.apply(insert).value(), tree.root_hash());
  ASSERT_TRUE(tree.update(remove, 3).ok());
  const auto root = partial.apply(remove);
  ASSERT_TRUE(root.ok()) << root.error().to_string();
  EXPECT_EQ(*root, tree.root_hash());
}

TEST(PartialStateTree, RefusesBadProofsAndRoots) {
  const auto entries = make_entries(Keys::random, 2000, 12);
  const auto tree = SparseMerkleTree::from_entries(entries).value();
  std::vector<Hash> keys;
  for (std::size_t i = 0; i < 64; ++i) keys.push_back(entries[i].key);
  std::sort(keys.begin(), keys.end());
  const auto proof = tree.prove_many(keys);
  const Hash root = tree.root_hash();
  ASSERT_TRUE(PartialStateTree::from_multiproof(root, keys, proof).ok());

  const auto refused = [&](const Hash& r, const std::vector<Hash>& k, const StateMultiProof& p, const char* why) {
    const auto partial = PartialStateTree::from_multiproof(r, k, p);
    ASSERT_FALSE(partial.ok()) << why;
    EXPECT_EQ(partial.error().code, base::Errc::invalid_value) << why;
    EXPECT_FALSE(partial.error().reason.empty()) << why;
  };
  Hash wrong_root = root;
  wrong_root[0] ^= 1;
  refused(wrong_root, keys, proof, "wrong root");
  auto bad = proof;
  bad.siblings[3][0] ^= 1;
  refused(root, keys, bad, "tampered sibling");
  bad = proof;
  bad.leaves[2].value_hash[5] ^= 1;
  refused(root, keys, bad, "tampered leaf");
  bad = proof;
  bad.shape.push_back(0);
  refused(root, keys, bad, "extra shape byte");
  bad = proof;
  bad.shape.pop_back();
  refused(root, keys, bad, "short shape");
  bad = proof;
  bad.siblings.push_back(Hash{});
  refused(root, keys, bad, "extra sibling");
  bad = proof;
  bad.leaves.pop_back();
  refused(root, keys, bad, "missing leaf");
  auto fewer = keys;
  fewer.pop_back();
  refused(root, fewer, proof, "a key missing");
  auto unsorted = keys;
  std::swap(unsorted[0], unsorted[1]);
  refused(root, unsorted, proof, "unsorted keys");
  auto twice = keys;
  twice[1] = twice[0];
  refused(root, twice, proof, "a key twice");

  // A one-child node over a single leaf is not canonical: no real root has
  // one, though verify_state_multiproof would accept it if it hashes right.
  std::vector<Hash> low_key = {keys[0]};
  low_key[0][0] = 0;  // bit 0 clear: the key goes left
  StateMultiProof chain;
  chain.shape = {0x05u};  // node (1), left: leaf (0, 1), right: empty sibling (0)
  chain.leaves.push_back({low_key[0], Hash{{7u}}});
  const Hash chain_root = hash_node(Domain::state_node, state_leaf_hash(low_key[0], Hash{{7u}}), Hash{});
  const std::vector<StateClaim> claims = {{low_key[0], Hash{{7u}}}};
  EXPECT_TRUE(verify_state_multiproof(chain_root, claims, chain));
  refused(chain_root, low_key, chain, "non-canonical chain over a leaf");
}

TEST(PartialStateTree, RefusesKeysOutsideTheSetAndDuplicates) {
  const auto entries = make_entries(Keys::random, 200, 4);
  const auto tree = SparseMerkleTree::from_entries(entries).value();
  std::vector<Hash> keys = {entries[0].key, entries[1].key};
  std::sort(keys.begin(), keys.end());
  auto partial = partial_for(tree, keys);
  const Hash before = partial.root();

  const std::vector<StateChange> outside = {{entries[0].key, Hash{{1u}}}, {entries[2].key, Hash{{2u}}}};
  const auto r1 = partial.apply(outside);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.error().code, base::Errc::invalid_value);
  EXPECT_TRUE(contains(r1.error().reason, "outside the proven set")) << r1.error().reason;
  const std::vector<StateChange> absent_outside = {{Hash{{0x42u}}, Hash{{2u}}}};
  EXPECT_FALSE(partial.apply(absent_outside).ok());
  EXPECT_FALSE(partial.get(entries[2].key).ok());

  const std::vector<StateChange> duplicate = {{entries[0].key, Hash{{1u}}}, {entries[0].key, std::nullopt}};
  const auto r2 = partial.apply(duplicate);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().code, base::Errc::invalid_argument);
  EXPECT_EQ(partial.root(), before);
  EXPECT_TRUE(partial.covers(entries[1].key));
  EXPECT_FALSE(partial.covers(entries[2].key));
}

// Many small batches on one partial tree: replaced nodes are compacted away
// and the roots keep matching.
TEST(PartialStateTree, ManyBatchesOnOneTree) {
  const auto entries = make_entries(Keys::random, 500, 21);
  auto tree = SparseMerkleTree::from_entries(entries).value();
  std::vector<Hash> keys;
  for (std::size_t i = 0; i < 50; ++i) keys.push_back(entries[i].key);
  std::sort(keys.begin(), keys.end());
  auto partial = partial_for(tree, keys);
  std::mt19937_64 rng(5);
  for (int round = 0; round < 300; ++round) {
    const std::vector<StateChange> changes = {{keys[rng() % keys.size()], random_hash(rng)}};
    ASSERT_TRUE(tree.update(changes, tree.version() + 1).ok());
    ASSERT_EQ(partial.apply(changes).value(), tree.root_hash());
  }
}

}  // namespace
}  // namespace sion::commit
