#include "sion/commit/smt.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/commit/smt_partial.hpp"
#include "sion/crypto/keccak.hpp"

#include "key_sets.hpp"

namespace sion::commit {
namespace {

// ---- A naive reference, straight from the definition (docs/state-tree.md) ----

Hash ref_hash(std::uint8_t tag, const Hash& a, const Hash& b) {
  std::vector<std::uint8_t> input = {tag};
  input.insert(input.end(), a.begin(), a.end());
  input.insert(input.end(), b.begin(), b.end());
  return crypto::sha3_256(input);
}

bool ref_bit(const Hash& key, unsigned i) { return (key[i / 8] >> (7 - i % 8)) & 1; }

// The hash of the subtree at `depth` holding the sorted run [begin, end).
Hash ref_subtree(const StateEntry* begin, const StateEntry* end, unsigned depth) {
  if (begin == end) return Hash{};
  if (end - begin == 1) return ref_hash(0x10, begin->key, begin->value_hash);
  const StateEntry* middle = begin;
  while (middle != end && !ref_bit(middle->key, depth)) ++middle;
  return ref_hash(0x11, ref_subtree(begin, middle, depth + 1), ref_subtree(middle, end, depth + 1));
}

Hash ref_root(std::vector<StateEntry> entries) {
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return ref_subtree(entries.data(), entries.data() + entries.size(), 0);
}

// The proof for `key`: siblings down to the subtree holding at most one entry.
StateProof ref_proof(std::vector<StateEntry> entries, const Hash& key) {
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  StateProof proof;
  const StateEntry* begin = entries.data();
  const StateEntry* end = begin + entries.size();
  unsigned depth = 0;
  std::vector<bool> bits;
  while (end - begin > 1) {
    const StateEntry* middle = begin;
    while (middle != end && !ref_bit(middle->key, depth)) ++middle;
    const bool right = ref_bit(key, depth);
    const Hash sibling = right ? ref_subtree(begin, middle, depth + 1) : ref_subtree(middle, end, depth + 1);
    bits.push_back(sibling != Hash{});
    if (sibling != Hash{}) proof.siblings.push_back(sibling);
    (right ? begin : end) = middle;
    ++depth;
  }
  proof.depth = static_cast<std::uint16_t>(depth);
  proof.bitmap.assign((depth + 7) / 8, 0);
  for (unsigned i = 0; i < depth; ++i) {
    if (bits[i]) proof.bitmap[i / 8] = static_cast<std::uint8_t>(proof.bitmap[i / 8] | (0x80 >> (i % 8)));
  }
  if (end - begin == 1) proof.leaf = StateLeaf{begin->key, begin->value_hash};
  return proof;
}

// ---- Key sets ------------------------------------------------------------------

using namespace testing;
constexpr std::size_t kSizes[] = {0, 1, 2, 3, 100, 1000};

// fn(kind, size, entries, tree) for every kind of key set and every size.
template <class Fn>
void for_each_tree(std::uint64_t seed, const Fn& fn) {
  for (Keys kind : kAllKinds) {
    for (std::size_t size : kSizes) {
      const auto entries = make_entries(kind, size, size + seed);
      fn(kind, size, entries, SparseMerkleTree::from_entries(entries).value());
    }
  }
}

// ---- Roots -----------------------------------------------------------------------

TEST(StateTree, RootMatchesReference) {
  for_each_tree(3, [](Keys kind, std::size_t size, const auto& entries, const SparseMerkleTree& tree) {
    EXPECT_EQ(tree.root_hash(), ref_root(entries)) << "kind " << static_cast<int>(kind) << " size " << size;
    EXPECT_EQ(tree.size(), size);
    EXPECT_EQ(state_root(entries).value(), tree.root_hash());
  });
}

// state_root builds no tree: it reduces the sorted keys by their common
// prefixes, by partition on several threads. Sizes above 4096 take the
// parallel path; the key kinds put every key in one partition (long_prefix,
// last_bit, low_values) or spread them (random).
TEST(StateTree, RootFromScratchMatchesReferenceOnEveryThreadCount) {
  for (Keys kind : kAllKinds) {
    for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{5000}, std::size_t{9000}}) {
      const auto entries = make_entries(kind, size, 17 + size);
      const Hash expected = ref_root(entries);
      for (unsigned threads : {1u, 2u, 3u, 4u, 8u}) {
        base::Executor executor(threads);
        EXPECT_EQ(state_root(entries, &executor).value(), expected)
            << "kind " << static_cast<int>(kind) << " size " << size << " threads " << threads;
      }
    }
  }
}

TEST(StateTree, RootFromScratchWithFewKeysInSomePartitions) {
  // One key alone in its partition (a leaf above the partition depth), one
  // partition empty, the rest crowded: the levels above the partitions mix
  // leaves, internal subtree roots and gaps.
  auto entries = make_entries(Keys::random, 6000, 5);
  std::erase_if(entries, [](const StateEntry& e) { return (e.key[0] >> 5) == 3 || (e.key[0] >> 5) == 6; });
  std::mt19937_64 rng(9);
  StateEntry alone{random_hash(rng), random_hash(rng)};
  alone.key[0] = 0x61;  // partition 3 of 8
  entries.push_back(alone);
  const Hash expected = ref_root(entries);
  for (unsigned threads : {1u, 2u, 4u, 8u}) {
    base::Executor executor(threads);
    EXPECT_EQ(state_root(entries, &executor).value(), expected);
  }
}

TEST(StateTree, RootFromScratchRefusesDuplicateKeys) {
  for (std::size_t size : {std::size_t{10}, std::size_t{6000}}) {
    auto entries = make_entries(Keys::random, size, 23);
    entries.push_back({entries[size / 2].key, Hash{}});
    for (unsigned threads : {1u, 2u}) {
      base::Executor executor(threads);
      auto root = state_root(entries, &executor);
      ASSERT_FALSE(root.ok());
      EXPECT_NE(root.error().reason.find("appears twice"), std::string::npos) << root.error().reason;
    }
  }
}

TEST(StateTree, EmptyAndSingleLeaf) {
  EXPECT_EQ(SparseMerkleTree().root_hash(), Hash{});
  EXPECT_FALSE(SparseMerkleTree().root_ref().has_value());
  const auto entries = make_entries(Keys::random, 1, 1);
  EXPECT_EQ(state_root(entries).value(), state_leaf_hash(entries[0].key, entries[0].value_hash));
  EXPECT_EQ(state_leaf_hash(entries[0].key, entries[0].value_hash),
            ref_hash(0x10, entries[0].key, entries[0].value_hash));
}

TEST(StateTree, InsertionOrderDoesNotMatter) {
  for (Keys kind : kAllKinds) {
    auto entries = make_entries(kind, 300, 11);
    const Hash expected = ref_root(entries);
    std::mt19937_64 rng(5);
    for (int round = 0; round < 3; ++round) {
      std::shuffle(entries.begin(), entries.end(), rng);
      SparseMerkleTree tree;
      std::uint64_t version = 0;
      // Batches of varying size, in a shuffled order.
      for (std::size_t done = 0; done < entries.size();) {
        const std::size_t n = std::min<std::size_t>(entries.size() - done, 1 + rng() % 40);
        std::vector<StateChange> batch;
        for (std::size_t i = 0; i < n; ++i) batch.push_back({entries[done + i].key, entries[done + i].value_hash});
        ASSERT_TRUE(tree.update(batch, ++version).ok());
        done += n;
      }
      EXPECT_EQ(tree.root_hash(), expected);
    }
  }
}

TEST(StateTree, UpdateMatchesRebuild) {
  std::mt19937_64 rng(99);
  for (Keys kind : kAllKinds) {
    auto entries = make_entries(kind, 1000, 21);
    std::map<Hash, Hash> model;
    for (const auto& e : entries) model[e.key] = e.value_hash;
    auto tree = SparseMerkleTree::from_entries(entries).value();
    const auto fresh = make_entries(kind, 400, 77);
    for (std::uint64_t version = 2; version < 8; ++version) {
      std::map<Hash, std::optional<Hash>> batch;
      for (int i = 0; i < 60; ++i) {
        const auto& e = entries[rng() % entries.size()];
        switch (rng() % 3) {
          case 0:
            batch[e.key] = std::nullopt;  // delete (maybe already gone)
            break;
          case 1:
            batch[e.key] = random_hash(rng);  // modify (or re-insert)
            break;
          default: batch[fresh[rng() % fresh.size()].key] = random_hash(rng);  // insert
        }
      }
      batch[random_hash(rng)] = std::nullopt;  // delete of an absent key
      std::vector<StateChange> changes;
      for (const auto& [k, v] : batch) {
        changes.push_back({k, v});
        if (v) {
          model[k] = *v;
        } else {
          model.erase(k);
        }
      }
      std::shuffle(changes.begin(), changes.end(), rng);
      ASSERT_TRUE(tree.update(changes, version).ok());
      std::vector<StateEntry> now;
      for (const auto& [k, v] : model) now.push_back({k, v});
      EXPECT_EQ(tree.root_hash(), ref_root(now));
      EXPECT_EQ(tree.size(), now.size());
      for (const auto& [k, v] : batch) EXPECT_EQ(tree.get(k), v);
    }
  }
}

TEST(StateTree, DeletionsCollapse) {
  const auto entries = make_entries(Keys::long_prefix, 3, 4);
  auto tree = SparseMerkleTree::from_entries(entries).value();
  ASSERT_TRUE(
      tree.update(std::vector<StateChange>{{entries[0].key, std::nullopt}, {entries[1].key, std::nullopt}}, 2).ok());
  EXPECT_EQ(tree.root_hash(), state_leaf_hash(entries[2].key, entries[2].value_hash));
  ASSERT_TRUE(tree.update(std::vector<StateChange>{{entries[2].key, std::nullopt}}, 3).ok());
  EXPECT_EQ(tree.root_hash(), Hash{});
  EXPECT_EQ(tree.size(), 0u);
}

TEST(StateTree, RejectsDuplicateKeysAndOldVersions) {
  const auto entries = make_entries(Keys::random, 10, 3);
  auto tree = SparseMerkleTree::from_entries(entries, 5).value();
  const Hash before = tree.root_hash();
  const std::vector<StateChange> twice = {{entries[0].key, Hash{}}, {entries[0].key, std::nullopt}};
  const auto dup = tree.update(twice, 6);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, base::Errc::invalid_argument);
  EXPECT_FALSE(tree.update(std::vector<StateChange>{{entries[0].key, std::nullopt}}, 5).ok());
  EXPECT_EQ(tree.root_hash(), before);
  auto with_dup = entries;
  with_dup.push_back(entries[3]);
  EXPECT_FALSE(SparseMerkleTree::from_entries(with_dup).ok());
}

TEST(StateTree, ParallelMatchesOneThread) {
  const auto entries = make_entries(Keys::random, 30000, 8);
  base::Executor two_threads(2);
  base::Executor eight_threads(8);
  auto one = SparseMerkleTree::from_entries(entries, 1).value();
  auto two = SparseMerkleTree::from_entries(entries, 1, &two_threads).value();
  auto eight = SparseMerkleTree::from_entries(entries, 1, &eight_threads).value();
  EXPECT_EQ(one.root_hash(), two.root_hash());
  EXPECT_EQ(one.root_hash(), eight.root_hash());
  EXPECT_EQ(one.root_hash(), ref_root(entries));
  std::mt19937_64 rng(1);
  std::vector<StateChange> changes;
  for (std::size_t i = 0; i < 6000; ++i) {
    changes.push_back({i % 3 == 0 ? random_hash(rng) : entries[i * 4].key,
                       i % 3 == 1 ? std::nullopt : std::optional<Hash>(random_hash(rng))});
  }
  ASSERT_TRUE(one.update(changes, 2, {nullptr, false}).ok());
  ASSERT_TRUE(two.update(changes, 2, {&two_threads, false}).ok());
  ASSERT_TRUE(eight.update(changes, 2, {&eight_threads, false}).ok());
  EXPECT_EQ(one.root_hash(), two.root_hash());
  EXPECT_EQ(one.root_hash(), eight.root_hash());
}

// ---- Proofs ----------------------------------------------------------------------

std::vector<Hash> probe_keys(const std::vector<StateEntry>& entries, Keys kind, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Hash> keys;
  for (std::size_t i = 0; i < std::min<std::size_t>(entries.size(), 20); ++i) keys.push_back(entries[i].key);
  for (std::size_t i = 0; i < 20; ++i) keys.push_back(make_key(kind, rng, 5000 + i));  // mostly absent
  for (std::size_t i = 0; i < std::min<std::size_t>(entries.size(), 10); ++i) {
    Hash near = entries[i].key;
    near[31] ^= 1;  // absent, sharing 255 bits with a present key
    keys.push_back(near);
  }
  return keys;
}

TEST(StateProof, ProvesPresenceAndAbsence) {
  for_each_tree(40, [](Keys kind, std::size_t size, const auto& entries, const SparseMerkleTree& tree) {
    const Hash root = tree.root_hash();
    for (const Hash& key : probe_keys(entries, kind, size)) {
      const StateProof proof = tree.prove(key);
      EXPECT_EQ(proof, ref_proof(entries, key));
      const auto value = tree.get(key);
      EXPECT_TRUE(verify_state_proof(root, key, value, proof));
      // The opposite claim fails.
      if (value) {
        EXPECT_FALSE(verify_state_proof(root, key, std::nullopt, proof));
        Hash other = *value;
        other[0] ^= 1;
        EXPECT_FALSE(verify_state_proof(root, key, other, proof));
      } else {
        EXPECT_FALSE(verify_state_proof(root, key, Hash{}, proof));
      }
      // The encoding round-trips through the checked decoder.
      const auto bytes = codec::encode(proof);
      const auto back = decode_state_proof(bytes);
      ASSERT_TRUE(back.ok()) << back.error().reason;
      EXPECT_EQ(*back, proof);
    }
  });
}

TEST(StateProof, RejectsTamperedProofs) {
  const auto entries = make_entries(Keys::random, 500, 2);
  const auto tree = SparseMerkleTree::from_entries(entries).value();
  const Hash root = tree.root_hash();
  const Hash& key = entries[7].key;
  const Hash& value = entries[7].value_hash;
  const StateProof good = tree.prove(key);
  ASSERT_TRUE(verify_state_proof(root, key, value, good));
  ASSERT_GE(good.siblings.size(), 2u);

  auto bad = good;
  bad.siblings[0][5] ^= 0x10;
  EXPECT_FALSE(verify_state_proof(root, key, value, bad));
  bad = good;
  bad.siblings.pop_back();
  EXPECT_FALSE(verify_state_proof(root, key, value, bad));
  bad = good;
  bad.bitmap[0] ^= 0x80;  // the top sibling marked empty (or non-empty)
  EXPECT_FALSE(verify_state_proof(root, key, value, bad));
  bad = good;
  bad.depth = static_cast<std::uint16_t>(bad.depth + 1);
  EXPECT_FALSE(verify_state_proof(root, key, value, bad));
  bad = good;
  bad.leaf->key[31] ^= 1;
  EXPECT_FALSE(verify_state_proof(root, key, value, bad));
  EXPECT_FALSE(verify_state_proof(root, bad.leaf->key, value, bad));
  bad = good;
  bad.leaf.reset();
  EXPECT_FALSE(verify_state_proof(root, key, std::nullopt, bad));
  Hash other_root = root;
  other_root[0] ^= 1;
  EXPECT_FALSE(verify_state_proof(other_root, key, value, good));

  // A present leaf is no witness of absence for a key off its path.
  Hash off_path = key;
  off_path[0] ^= 0x80;
  EXPECT_FALSE(verify_state_proof(root, off_path, std::nullopt, good));

  // Form faults are named by the decoder.
  bad = good;
  bad.bitmap.push_back(0);
  auto decoded = decode_state_proof(codec::encode(bad));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code, base::Errc::invalid_value);
  bad = good;
  bad.siblings.push_back(Hash{});
  EXPECT_FALSE(decode_state_proof(codec::encode(bad)).ok());
  EXPECT_FALSE(verify_state_proof(root, key, value, bad));
}

// An empty sibling re-sent as a zero hash marked non-empty folds to the same
// root: a second encoding of the same proof, refused by the form rules.
TEST(StateProof, RefusesAnEmptySiblingSentAsZeros) {
  const auto entries = make_entries(Keys::long_prefix, 3, 4);  // a 240-node chain at the top
  const auto tree = SparseMerkleTree::from_entries(entries).value();
  const Hash& key = entries[0].key;
  const StateProof good = tree.prove(key);
  ASSERT_TRUE(verify_state_proof(tree.root_hash(), key, entries[0].value_hash, good));
  ASSERT_EQ(good.bitmap[0] & 0x80, 0) << "the sibling at depth 0 should be empty";
  StateProof zeros = good;
  zeros.bitmap[0] = static_cast<std::uint8_t>(zeros.bitmap[0] | 0x80);
  zeros.siblings.insert(zeros.siblings.begin(), Hash{});  // root side first
  EXPECT_NE(codec::encode(zeros), codec::encode(good));
  EXPECT_FALSE(verify_state_proof(tree.root_hash(), key, entries[0].value_hash, zeros));
  const auto decoded = decode_state_proof(codec::encode(zeros));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code, base::Errc::invalid_value);
  EXPECT_NE(decoded.error().reason.find("a sibling marked non-empty is zero"), std::string::npos)
      << decoded.error().reason;
  EXPECT_TRUE(decode_state_proof(codec::encode(good)).ok());
}

TEST(StateMultiProof, RefusesAnEmptySiblingSentAsZeros) {
  const auto entries = make_entries(Keys::long_prefix, 3, 4);
  const auto tree = SparseMerkleTree::from_entries(entries).value();
  const Hash& key = entries[0].key;
  const auto good = tree.prove_many(std::vector<Hash>{key});
  const StateClaim claim{key, entries[0].value_hash};
  ASSERT_TRUE(verify_state_multiproof(tree.root_hash(), std::span(&claim, 1), good));
  // The walk reads bit 0 (the root is internal), then, the keys going
  // right at bit 0 (0xa5...), bit 1: the empty left sibling at depth 1.
  ASSERT_TRUE(key_bit(key, 0));
  ASSERT_EQ(good.shape[0] & 3, 1);
  auto zeros = good;
  zeros.shape[0] = static_cast<std::uint8_t>(zeros.shape[0] | 2);
  zeros.siblings.insert(zeros.siblings.begin(), Hash{});
  EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), std::span(&claim, 1), zeros));
  const auto partial = PartialStateTree::from_multiproof(tree.root_hash(), std::vector<Hash>{key}, zeros);
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(partial.error().reason.find("a sibling marked non-empty is zero"), std::string::npos)
      << partial.error().reason;
}

std::vector<StateClaim> claims_for(const SparseMerkleTree& tree, std::vector<Hash> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<StateClaim> claims;
  for (const Hash& k : keys) claims.push_back({k, tree.get(k)});
  return claims;
}

TEST(StateMultiProof, ProvesManyKeys) {
  for_each_tree(90, [](Keys kind, std::size_t size, const auto& entries, const SparseMerkleTree& tree) {
    const auto keys = probe_keys(entries, kind, size + 1);
    const auto proof = tree.prove_many(keys);
    const auto claims = claims_for(tree, keys);
    EXPECT_TRUE(verify_state_multiproof(tree.root_hash(), claims, proof));
    const auto back = decode_state_multiproof(codec::encode(proof));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, proof);
    // Each key alone too.
    for (std::size_t i = 0; i < claims.size(); i += 7) {
      const auto single = tree.prove_many(std::vector<Hash>{claims[i].key});
      EXPECT_TRUE(verify_state_multiproof(tree.root_hash(), std::span(&claims[i], 1), single));
    }
  });
}

TEST(StateMultiProof, SharesPathsAndRejectsTampering) {
  const auto entries = make_entries(Keys::random, 2000, 12);
  const auto tree = SparseMerkleTree::from_entries(entries).value();
  std::vector<Hash> keys;
  for (std::size_t i = 0; i < 64; ++i) keys.push_back(entries[i].key);
  const auto proof = tree.prove_many(keys);
  const auto claims = claims_for(tree, keys);
  ASSERT_TRUE(verify_state_multiproof(tree.root_hash(), claims, proof));
  std::size_t separate = 0;
  for (const Hash& k : keys) separate += tree.prove(k).siblings.size();
  EXPECT_LT(proof.siblings.size(), separate);

  auto bad = proof;
  bad.siblings[3][0] ^= 1;
  EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), claims, bad));
  bad = proof;
  bad.shape.push_back(0);
  EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), claims, bad));
  bad = proof;
  bad.shape.back() = static_cast<std::uint8_t>(bad.shape.back() | 0x80);
  if (bad.shape != proof.shape) {
    EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), claims, bad));
  }
  bad = proof;
  bad.leaves.pop_back();
  EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), claims, bad));
  auto wrong = claims;
  wrong[5].value_hash.reset();
  EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), wrong, proof));
  wrong = claims;
  wrong.pop_back();
  EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), wrong, proof));
  wrong = claims;
  std::swap(wrong[0], wrong[1]);
  EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), wrong, proof));
  EXPECT_FALSE(verify_state_multiproof(tree.root_hash(), {}, proof));
}

// ---- Persistence seam -------------------------------------------------------------

// Keys as strings: std::map over byte vectors trips a g++ 12 false positive
// (-Wstringop-overread).
std::string store_key(const NodeKey& key) {
  const auto bytes = codec::encode(key);
  return std::string(bytes.begin(), bytes.end());
}

class MapStore : public NodeReader {
 public:
  base::Result<std::optional<Node>> read_node(const NodeKey& key) const override {
    const auto it = nodes_.find(store_key(key));
    if (it == nodes_.end()) return std::optional<Node>{};
    return std::optional<Node>{it->second};
  }
  void apply(const TreeUpdate& update, bool prune) {
    for (const auto& [key, node] : update.new_nodes) {
      EXPECT_TRUE(nodes_.emplace(store_key(key), node).second) << "a node written twice";
    }
    if (!prune) return;
    for (const auto& key : update.stale_nodes) EXPECT_EQ(nodes_.erase(store_key(key)), 1u) << "stale node unknown";
  }
  std::map<std::string, Node> nodes_;
};

TEST(StateTreeStore, UpdatesListExactlyTheNodesWrittenAndReplaced) {
  std::mt19937_64 rng(17);
  for (Keys kind : kAllKinds) {
    auto entries = make_entries(kind, 300, 31);
    SparseMerkleTree tree;
    MapStore pruned;   // only the newest version
    MapStore archive;  // every version
    std::vector<std::pair<std::optional<ChildRef>, Hash>> roots;
    for (std::uint64_t version = 1; version <= 6; ++version) {
      std::vector<StateChange> changes;
      for (int i = 0; i < 70; ++i) {
        const auto& e = entries[rng() % entries.size()];
        changes.push_back({e.key, rng() % 3 == 0 ? std::nullopt : std::optional<Hash>(random_hash(rng))});
      }
      std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
      changes.erase(
          std::unique(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.key == b.key; }),
          changes.end());
      const auto update = tree.update(changes, version, {0, true});
      ASSERT_TRUE(update.ok());
      pruned.apply(*update, true);
      archive.apply(*update, false);
      EXPECT_EQ(update->root, tree.root_ref());
      roots.emplace_back(update->root, tree.root_hash());
      // The pruned store holds exactly the current tree's nodes.
      MapStore current;
      current.apply(tree.all_nodes(), false);
      ASSERT_EQ(pruned.nodes_.size(), current.nodes_.size());
      EXPECT_TRUE(pruned.nodes_ == current.nodes_);
    }
    // Every version reopens from the archive, and proofs read from it.
    for (const auto& [ref, hash] : roots) {
      const auto loaded = SparseMerkleTree::load(archive, ref);
      ASSERT_TRUE(loaded.ok()) << loaded.error().reason;
      EXPECT_EQ(loaded->root_hash(), hash);
      for (std::size_t i = 0; i < 10; ++i) {
        const auto stored = prove_stored(archive, ref, entries[i].key);
        ASSERT_TRUE(stored.ok());
        EXPECT_EQ(*stored, loaded->prove(entries[i].key));
      }
    }
    // A reloaded tree continues exactly like the original.
    auto reopened = SparseMerkleTree::load(pruned, tree.root_ref()).value();
    const std::vector<StateChange> more = {{entries[0].key, std::nullopt}, {random_hash(rng), Hash{}}};
    ASSERT_TRUE(tree.update(more, 7).ok());
    ASSERT_TRUE(reopened.update(more, 7).ok());
    EXPECT_EQ(tree.root_hash(), reopened.root_hash());
  }
}

TEST(StateTreeStore, LoadRejectsCorruptNodes) {
  const auto entries = make_entries(Keys::random, 50, 5);
  auto tree = SparseMerkleTree::from_entries(entries).value();
  MapStore store;
  store.apply(tree.all_nodes(), false);
  // A changed value hash: the recomputed root differs.
  for (auto& [key, node] : store.nodes_) {
    if (auto* leaf = std::get_if<StateLeaf>(&node)) {
      leaf->value_hash[0] ^= 1;
      break;
    }
  }
  auto loaded = SparseMerkleTree::load(store, tree.root_ref());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, base::Errc::corrupt_store);
  // A missing node.
  store.nodes_.erase(store.nodes_.begin());
  EXPECT_FALSE(SparseMerkleTree::load(store, tree.root_ref()).ok());
}

}  // namespace
}  // namespace sion::commit
