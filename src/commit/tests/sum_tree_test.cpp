#include "sion/commit/sum_tree.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

#include "sion/base/executor.hpp"
#include "sion/commit/batch_root.hpp"
#include "sion/crypto/keccak.hpp"
#include "tree_reference.hpp"

namespace sion::commit {
namespace {

using testing::reference_leaves;
using testing::reference_lines;
using testing::to_hex;

std::vector<SumLeaf> reference_sum_leaves(std::size_t n) {
  std::vector<SumLeaf> leaves;
  for (std::size_t i = 0; i < n; ++i) {
    leaves.push_back({crypto::sha3_256(reference_leaves()[i].entry), reference_leaves()[i].amount});
  }
  return leaves;
}

void put_u64_le(std::uint64_t v, base::Bytes& out) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

TEST(SumTree, HashesAsSpecified) {
  const SumLeaf a{crypto::sha3_256(base::Bytes{1}), 5};
  const SumLeaf b{crypto::sha3_256(base::Bytes{2}), 7};
  base::Bytes input = {0x20};
  input.insert(input.end(), a.hash.begin(), a.hash.end());
  put_u64_le(5, input);
  const SumNode la = sum_leaf_node(a);
  EXPECT_EQ(la, (SumNode{crypto::sha3_256(input), 5}));
  const SumNode lb = sum_leaf_node(b);
  input = {0x21};
  input.insert(input.end(), la.hash.begin(), la.hash.end());
  input.insert(input.end(), lb.hash.begin(), lb.hash.end());
  put_u64_le(12, input);
  const std::vector<SumLeaf> leaves = {a, b};
  EXPECT_EQ(SumTree::build(leaves)->root(), (SumNode{crypto::sha3_256(input), 12}));
  EXPECT_EQ(SumTree::build({})->root(), (SumNode{crypto::sha3_256({}), 0}));
}

TEST(SumTree, MatchesIndependentReference) {
  std::size_t checked = 0;
  for (const auto& row : reference_lines()) {
    if (row.size() != 5 || row[0] != "sum") continue;
    const std::uint64_t n = std::stoull(row[1]);
    const SumTree tree = SumTree::build(reference_sum_leaves(n)).value();
    EXPECT_EQ(to_hex(tree.root().hash), row[2]) << n;
    EXPECT_EQ(std::to_string(tree.root().sum), row[3]) << n;
    std::vector<codec::List<SumNode, shape::kMaxDepth>> paths;
    for (std::uint64_t i = 0; i < n; ++i) paths.push_back(tree.prove(i)->path);
    EXPECT_EQ(testing::proofs_digest(paths,
                                     [](const SumNode& e, base::Bytes& out) {
                                       out.insert(out.end(), e.hash.begin(), e.hash.end());
                                       put_u64_le(e.sum, out);
                                     }),
              row[4])
        << n;
    ++checked;
  }
  EXPECT_EQ(checked, testing::kReferenceLeaves);
}

TEST(SumTree, ThreadsChangeNothing) {
  // Levels of 2048 pairs or more are split between threads; odd levels lift
  // their last node across slice boundaries.
  for (std::size_t n : {4095u, 4097u, 10001u}) {
    std::vector<SumLeaf> leaves(n);
    for (std::size_t i = 0; i < n; ++i) {
      leaves[i].hash = crypto::sha3_256(base::Bytes{static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i >> 8)});
      leaves[i].amount = i * 1000003u;
    }
    const SumTree one = SumTree::build(leaves).value();
    for (unsigned threads : {2u, 3u, 8u}) {
      base::Executor executor(threads);
      const SumTree many = SumTree::build(leaves, &executor).value();
      EXPECT_EQ(many.root(), one.root()) << n << " " << threads;
      for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{n / 2}, std::uint64_t{n - 1}}) {
        EXPECT_EQ(many.prove(i)->path, one.prove(i)->path) << n << " " << threads << " " << i;
      }
    }
  }
}

TEST(SumTree, ProofsVerifyAndMutationsFail) {
  std::mt19937_64 rng(3);
  for (std::size_t n : {1u, 2u, 3u, 5u, 8u, 13u, 100u, 256u}) {
    const auto leaves = reference_sum_leaves(n);
    const SumTree tree = SumTree::build(leaves).value();
    const SumNode root = tree.root();
    for (std::uint64_t i = 0; i < n; ++i) {
      const SumProof proof = tree.prove(i).value();
      ASSERT_TRUE(verify_sum_proof(leaves[i], proof, root, n)) << i << " " << n;
      EXPECT_EQ(codec::decode<SumProof>(codec::encode(proof)).value(), proof);
      SumLeaf more = leaves[i];
      ++more.amount;
      EXPECT_FALSE(verify_sum_proof(more, proof, root, n));
      EXPECT_FALSE(verify_sum_proof(leaves[i], proof, SumNode{root.hash, root.sum + 1}, n));
      EXPECT_FALSE(verify_sum_proof(leaves[i], proof, root, n + 1));
      if (n > 1) {
        EXPECT_FALSE(verify_sum_proof(leaves[(i + 1) % n], proof, root, n));
        SumProof flipped = proof;
        const std::size_t bit = rng() % (proof.path.size() * 256);
        flipped.path[bit / 256].hash[(bit % 256) / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
        EXPECT_FALSE(verify_sum_proof(leaves[i], flipped, root, n));
        // A sibling's sum moved between two siblings keeps the total.
        SumProof shifted = proof;
        ++shifted.path[0].sum;
        EXPECT_FALSE(verify_sum_proof(leaves[i], shifted, root, n));
        SumProof truncated = proof;
        truncated.path.pop_back();
        EXPECT_FALSE(verify_sum_proof(leaves[i], truncated, root, n));
        SumProof moved = proof;
        moved.leaf_index = (i + 1) % n;
        EXPECT_FALSE(verify_sum_proof(leaves[i], moved, root, n));
      }
      SumProof extended = proof;
      extended.path.push_back(root);
      EXPECT_FALSE(verify_sum_proof(leaves[i], extended, root, n));
    }
    EXPECT_EQ(tree.prove(n).error().reason,
              "leaf index " + std::to_string(n) + " is not below the sum tree's " + std::to_string(n) + " leaves");
  }
}

TEST(SumTree, OverflowIsRefusedWhenBuildingAndVerifying) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::vector<SumLeaf> leaves = {{Hash{}, kMax - 10}, {Hash{}, 10}, {Hash{}, 0}};
  const auto fits = SumTree::build(leaves);
  ASSERT_TRUE(fits.ok());
  EXPECT_EQ(fits->root().sum, kMax);
  leaves.push_back({Hash{}, 1});
  const auto over = SumTree::build(leaves);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, base::Errc::invalid_value);
  EXPECT_EQ(over.error().reason, "sum tree: the amounts of leaves 0..3 add up past 2^64 - 1");

  // A path whose sibling sums wrap around to the claimed total.
  const SumLeaf leaf{Hash{}, 5};
  const SumNode sibling{Hash{}, kMax - 1};  // 5 + (2^64 - 2) wraps to 3
  SumProof proof;
  proof.leaf_index = 0;
  proof.leaf_count = 2;
  proof.path.push_back(sibling);
  EXPECT_FALSE(sum_parent(sum_leaf_node(leaf), sibling).has_value());
  base::Bytes input = {0x21};
  const SumNode leaf_node = sum_leaf_node(leaf);
  input.insert(input.end(), leaf_node.hash.begin(), leaf_node.hash.end());
  input.insert(input.end(), sibling.hash.begin(), sibling.hash.end());
  put_u64_le(3, input);
  EXPECT_FALSE(verify_sum_proof(leaf, proof, SumNode{crypto::sha3_256(input), 3}, 2));
}

TEST(BatchRoot, MatchesIndependentReference) {
  std::size_t checked = 0;
  std::vector<base::ByteView> items;
  for (const auto& leaf : reference_leaves()) items.emplace_back(leaf.entry);
  for (const auto& row : reference_lines()) {
    if (row.size() != 4 || row[0] != "batch") continue;
    const std::uint64_t n = std::stoull(row[1]);
    const auto prefix = std::span<const base::ByteView>(items).first(n);
    const BatchTree tree(prefix);
    EXPECT_EQ(to_hex(tree.root()), row[2]) << n;
    EXPECT_EQ(batch_root(prefix), tree.root());
    std::vector<std::vector<Hash>> paths;
    for (std::uint64_t i = 0; i < n; ++i) {
      const InclusionProof proof = tree.prove(i).value();
      EXPECT_TRUE(verify_batch_inclusion(items[i], proof, tree.head()));
      EXPECT_FALSE(verify_batch_inclusion(items[(i + 1) % items.size()], proof, tree.head()));
      // A batch proof is not a log proof (other tags), nor the reverse.
      EXPECT_FALSE(verify_inclusion(kLogSha3, kLogSha3.leaf(items[i]), proof, tree.head()));
      paths.push_back(proof.path);
    }
    EXPECT_EQ(testing::proofs_digest(
                  paths, [](const Hash& h, base::Bytes& out) { out.insert(out.end(), h.begin(), h.end()); }),
              row[3])
        << n;
    ++checked;
  }
  EXPECT_EQ(checked, testing::kReferenceLeaves);
}

// CVE-2012-2459: with a duplicated odd node, [a, b, c] and [a, b, c, c]
// would share a root. Here no two item lists do.
TEST(BatchRoot, NoDuplicatedLastItem) {
  const base::Bytes a = {1};
  const base::Bytes b = {2};
  const base::Bytes c = {3};
  const std::vector<base::ByteView> three = {a, b, c};
  const std::vector<base::ByteView> four = {a, b, c, c};
  EXPECT_NE(batch_root(three), batch_root(four));
  EXPECT_EQ(batch_root({}), crypto::sha3_256({}));
  const Hash ab = hash_node(Domain::batch_node, batch_leaf_hash(a), batch_leaf_hash(b));
  EXPECT_EQ(batch_root(three), hash_node(Domain::batch_node, ab, batch_leaf_hash(c)));
  EXPECT_EQ(
      BatchTree::from_leaf_hashes(std::vector<Hash>{batch_leaf_hash(a), batch_leaf_hash(b), batch_leaf_hash(c)}).root(),
      batch_root(three));
}

}  // namespace
}  // namespace sion::commit
