#include "sion/commit/merkle_log.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "sion/crypto/keccak.hpp"
#include "sion/crypto/sha2.hpp"
#include "tree_reference.hpp"

namespace sion::commit {
namespace {

using testing::reference_leaves;
using testing::reference_lines;
using testing::to_hex;

MerkleLog reference_log(const TreeHasher& hasher) {
  MerkleLog log(hasher);
  for (const auto& leaf : reference_leaves()) log.append(leaf.entry);
  return log;
}

void append_hash(const Hash& h, base::Bytes& out) { out.insert(out.end(), h.begin(), h.end()); }

// The Certificate Transparency reference implementation's eight test leaves
// and the roots of their prefixes (RFC 6962 with SHA-256).
TEST(MerkleLog, CertificateTransparencyTestVectors) {
  const std::vector<base::Bytes> leaves = {
      {},
      {0x00},
      {0x10},
      {0x20, 0x21},
      {0x30, 0x31},
      {0x40, 0x41, 0x42, 0x43},
      {0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57},
      {0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f}};
  const char* roots[] = {"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                         "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
                         "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
                         "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                         "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
                         "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
                         "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
                         "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"};
  MerkleLog log;
  EXPECT_EQ(to_hex(log.root()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  for (const auto& leaf : leaves) log.append(leaf);
  for (std::size_t n = 1; n <= leaves.size(); ++n) EXPECT_EQ(to_hex(log.root(n).value()), roots[n - 1]) << n;
}

// Roots, every PATH(i, D[n]) and every PROOF(m, D[n]) for n <= 256 against
// the Python reference, for both hash functions.
TEST(MerkleLog, MatchesIndependentReference) {
  const auto& lines = reference_lines();
  ASSERT_FALSE(lines.empty()) << "python3 src/commit/tests/rfc6962_reference.py failed";
  std::size_t checked = 0;
  for (const TreeHasher* hasher : {&kLogSha256, &kLogSha3}) {
    const std::string name = hasher->function == HashFunction::sha256 ? "sha256" : "sha3_256";
    const MerkleLog log = reference_log(*hasher);
    for (const auto& row : lines) {
      if (row.size() != 6 || row[0] != "log" || row[1] != name) continue;
      const std::uint64_t n = std::stoull(row[2]);
      EXPECT_EQ(to_hex(log.root(n).value()), row[3]) << name << " root " << n;
      std::vector<InclusionProof> inclusion;
      for (std::uint64_t i = 0; i < n; ++i) inclusion.push_back(log.inclusion_proof(i, n).value());
      std::vector<ConsistencyProof> consistency;
      for (std::uint64_t m = 1; m <= n; ++m) consistency.push_back(log.consistency_proof(m, n).value());
      std::vector<std::vector<Hash>> paths;
      for (const auto& p : inclusion) paths.push_back(p.path);
      EXPECT_EQ(testing::proofs_digest(paths, append_hash), row[4]) << name << " inclusion " << n;
      paths.clear();
      for (const auto& p : consistency) paths.push_back(p.path);
      EXPECT_EQ(testing::proofs_digest(paths, append_hash), row[5]) << name << " consistency " << n;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * (testing::kReferenceLeaves + 1));
}

TEST(MerkleLog, Sha3VariantHashesAsSpecified) {
  MerkleLog log(kLogSha3);
  const base::Bytes a = {1, 2, 3};
  const base::Bytes b = {4};
  log.append(a);
  log.append(b);
  const Hash la = crypto::sha3_256(base::Bytes{0x00, 1, 2, 3});
  const Hash lb = crypto::sha3_256(base::Bytes{0x00, 4});
  base::Bytes node = {0x01};
  append_hash(la, node);
  append_hash(lb, node);
  EXPECT_EQ(log.root(), crypto::sha3_256(node));
  EXPECT_EQ(MerkleLog(kLogSha3).root(), crypto::sha3_256({}));
}

TEST(MerkleLog, BulkAppendEqualsSingleAppends) {
  for (const TreeHasher* hasher : {&kLogSha256, &kLogSha3}) {
    std::vector<Hash> leaves;
    for (std::size_t i = 0; i < 300; ++i)
      leaves.push_back(hasher->leaf(base::Bytes(i % 5, static_cast<std::uint8_t>(i))));
    MerkleLog one(*hasher);
    for (const Hash& h : leaves) one.append_leaf_hash(h);
    for (std::size_t chunk : {1u, 2u, 3u, 7u, 16u, 33u, 300u}) {
      MerkleLog bulk(*hasher);
      for (std::size_t done = 0; done < leaves.size(); done += chunk) {
        bulk.append_leaf_hashes(std::span<const Hash>(leaves).subspan(done, std::min(chunk, leaves.size() - done)));
        EXPECT_EQ(bulk.root(), one.root(bulk.size()).value()) << chunk << " " << done;
      }
    }
  }
}

TEST(MerkleLog, PairsInLanesEqualSingleNodes) {
  for (const TreeHasher* hasher : {&kLogSha256, &kLogSha3}) {
    std::vector<Hash> level(2 * 40);
    for (std::size_t i = 0; i < level.size(); ++i)
      level[i] = hasher->leaf(base::Bytes(1, static_cast<std::uint8_t>(i)));
    for (std::size_t count = 0; count <= 40; ++count) {
      std::vector<Hash> out(count);
      hasher->pairs(level.data(), out.data(), count);
      for (std::size_t j = 0; j < count; ++j) EXPECT_EQ(out[j], hasher->node(level[2 * j], level[2 * j + 1]));
    }
  }
}

// Lengths around the SHA-256 padding boundaries (55/56 bytes with the tag,
// one and two blocks) and a data-availability share; counts around the
// 16-message chunk.
TEST(MerkleLog, LeavesInLanesEqualSingleLeaves) {
  std::mt19937 rng(5);
  for (const TreeHasher* hasher : {&kLogSha256, &kLogSha3}) {
    for (const std::size_t length : {0U, 1U, 31U, 54U, 55U, 56U, 63U, 64U, 119U, 135U, 136U, 512U}) {
      for (const std::size_t count : {0U, 1U, 15U, 16U, 17U, 40U}) {
        std::vector<base::Bytes> inputs(count, base::Bytes(length));
        std::vector<const std::uint8_t*> pointers;
        for (auto& input : inputs) {
          for (auto& b : input) b = static_cast<std::uint8_t>(rng());
          pointers.push_back(input.data());
        }
        std::vector<Hash> out(count);
        hasher->leaves(pointers.data(), length, out.data(), count);
        for (std::size_t j = 0; j < count; ++j) EXPECT_EQ(out[j], hasher->leaf(inputs[j])) << length << " " << j;
      }
    }
  }
}

TEST(MerkleLog, OutOfRangeRequestsNameWhatWasWrong) {
  const MerkleLog log = reference_log(kLogSha256);
  const auto root = log.root(257);
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.error().code, base::Errc::invalid_argument);
  EXPECT_EQ(root.error().reason, "tree size 257 exceeds the log's 256 entries");
  EXPECT_EQ(log.inclusion_proof(5, 5).error().reason, "leaf index 5 is not below tree size 5");
  EXPECT_EQ(log.inclusion_proof(0, 300).error().reason, "tree size 300 exceeds the log's 256 entries");
  EXPECT_EQ(log.consistency_proof(0, 5).error().reason, "first tree size 0 must be in [1, 5], the second tree size");
  EXPECT_EQ(log.consistency_proof(6, 5).error().reason, "first tree size 6 must be in [1, 5], the second tree size");
  EXPECT_EQ(log.consistency_proof(1, 257).error().reason, "second tree size 257 exceeds the log's 256 entries");
  EXPECT_EQ(log.leaf_hash(256).error().reason, "leaf index 256 is not below the log's 256 entries");
  EXPECT_TRUE(log.consistency_proof(256, 256)->path.empty());
}

// Every (i, n) for n <= 256: the proof verifies; a flipped bit, another
// index, another size, a shorter or a longer path, or another leaf do not.
TEST(MerkleLog, InclusionProofsVerifyAndMutationsFail) {
  std::mt19937_64 rng(1);
  for (const TreeHasher* hasher : {&kLogSha256, &kLogSha3}) {
    const MerkleLog log = reference_log(*hasher);
    for (std::uint64_t n = 1; n <= log.size(); ++n) {
      const TreeHead head = log.head(n).value();
      for (std::uint64_t i = 0; i < n; ++i) {
        const Hash leaf = log.leaf_hash(i).value();
        const InclusionProof proof = log.inclusion_proof(i, n).value();
        ASSERT_TRUE(verify_inclusion(*hasher, leaf, proof, head)) << i << " " << n;
        EXPECT_FALSE(verify_inclusion(*hasher, log.leaf_hash((i + 1) % log.size()).value(), proof, head));
        if (!proof.path.empty()) {
          InclusionProof flipped = proof;
          const std::size_t bit = rng() % (proof.path.size() * 256);
          flipped.path[bit / 256][(bit % 256) / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
          EXPECT_FALSE(verify_inclusion(*hasher, leaf, flipped, head));
          InclusionProof truncated = proof;
          truncated.path.pop_back();
          EXPECT_FALSE(verify_inclusion(*hasher, leaf, truncated, head));
        }
        InclusionProof extended = proof;
        extended.path.push_back(leaf);
        EXPECT_FALSE(verify_inclusion(*hasher, leaf, extended, head));
        for (std::uint64_t other : {i + 1, i ^ 1, n, i + n, std::uint64_t{~0ULL}}) {
          if (other == i) continue;
          InclusionProof moved = proof;
          moved.leaf_index = other;
          EXPECT_FALSE(verify_inclusion(*hasher, leaf, moved, head)) << i << " as " << other << " " << n;
        }
        for (std::uint64_t size : {n - 1, n + 1, 2 * n, std::uint64_t{~0ULL}}) {
          InclusionProof resized = proof;
          resized.tree_size = size;
          EXPECT_FALSE(verify_inclusion(*hasher, leaf, resized, head));
        }
      }
    }
  }
}

// Why verification takes the size from the tree head: RFC 9162's algorithm
// folds leaf 1's path at size 2 into the same root when told index 2 of 3.
TEST(MerkleLog, TheTreeHeadFixesTheSize) {
  const MerkleLog log = reference_log(kLogSha256);
  const InclusionProof proof = log.inclusion_proof(1, 2).value();
  const Hash leaf = log.leaf_hash(1).value();
  const auto node = [](const Hash& l, const Hash& r, Hash& out) {
    out = kLogSha256.node(l, r);
    return true;
  };
  const std::span<const Hash> path(proof.path.data(), proof.path.size());
  EXPECT_EQ(shape::root_from_inclusion_path<Hash>(2, 3, leaf, path, node), log.root(2).value());
  InclusionProof relabelled = proof;
  relabelled.leaf_index = 2;
  relabelled.tree_size = 3;
  EXPECT_TRUE(verify_inclusion(kLogSha256, leaf, proof, log.head(2).value()));
  EXPECT_FALSE(verify_inclusion(kLogSha256, leaf, relabelled, log.head(2).value()));
}

TEST(MerkleLog, InclusionProofEveryBitFlipFails) {
  const MerkleLog log = reference_log(kLogSha256);
  for (std::uint64_t n : {7u, 32u, 100u}) {
    const TreeHead head = log.head(n).value();
    for (std::uint64_t i = 0; i < n; i += 3) {
      const Hash leaf = log.leaf_hash(i).value();
      const InclusionProof proof = log.inclusion_proof(i, n).value();
      for (std::size_t bit = 0; bit < proof.path.size() * 256; ++bit) {
        InclusionProof flipped = proof;
        flipped.path[bit / 256][(bit % 256) / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
        EXPECT_FALSE(verify_inclusion(kLogSha256, leaf, flipped, head));
      }
    }
  }
}

// Every (m, n) for 0 < m <= n <= 256.
TEST(MerkleLog, ConsistencyProofsVerifyAndMutationsFail) {
  std::mt19937_64 rng(2);
  for (const TreeHasher* hasher : {&kLogSha256, &kLogSha3}) {
    const MerkleLog log = reference_log(*hasher);
    std::vector<TreeHead> heads;
    for (std::uint64_t n = 0; n <= log.size(); ++n) heads.push_back(log.head(n).value());
    for (std::uint64_t n = 1; n <= log.size(); ++n) {
      for (std::uint64_t m = 1; m <= n; ++m) {
        const ConsistencyProof proof = log.consistency_proof(m, n).value();
        ASSERT_TRUE(verify_consistency(*hasher, proof, heads[m], heads[n])) << m << " " << n;
        if (m < n) {
          EXPECT_FALSE(verify_consistency(*hasher, proof, heads[m], TreeHead{n, heads[n - 1].root}));
          EXPECT_FALSE(verify_consistency(*hasher, proof, TreeHead{m, heads[m + 1].root}, heads[n]));
        }
        if (!proof.path.empty()) {
          ConsistencyProof flipped = proof;
          const std::size_t bit = rng() % (proof.path.size() * 256);
          flipped.path[bit / 256][(bit % 256) / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
          EXPECT_FALSE(verify_consistency(*hasher, flipped, heads[m], heads[n]));
          ConsistencyProof truncated = proof;
          truncated.path.pop_back();
          EXPECT_FALSE(verify_consistency(*hasher, truncated, heads[m], heads[n]));
        }
        ConsistencyProof extended = proof;
        extended.path.push_back(heads[m].root);
        EXPECT_FALSE(verify_consistency(*hasher, extended, heads[m], heads[n])) << m << " " << n;
        // Sizes other than the heads'.
        for (const auto& [first, second] :
             {std::pair{m - 1, n}, std::pair{m + 1, n}, std::pair{m, n + 1}, std::pair{m, n - 1}, std::pair{n, m}}) {
          if (first == m && second == n) continue;
          ConsistencyProof resized = proof;
          resized.first_size = first;
          resized.second_size = second;
          EXPECT_FALSE(verify_consistency(*hasher, resized, heads[m], heads[n]));
        }
      }
    }
  }
}

TEST(MerkleLog, ProofsRoundTripThroughTheCodec) {
  const MerkleLog log = reference_log(kLogSha256);
  const InclusionProof inclusion = log.inclusion_proof(100, 200).value();
  const base::Bytes bytes = codec::encode(inclusion);
  EXPECT_EQ(bytes.size(), 8 + 8 + 1 + 32 * inclusion.path.size());
  EXPECT_EQ(codec::decode<InclusionProof>(bytes).value(), inclusion);
  const ConsistencyProof consistency = log.consistency_proof(100, 200).value();
  EXPECT_EQ(codec::decode<ConsistencyProof>(codec::encode(consistency)).value(), consistency);

  const auto truncated = codec::decode<InclusionProof>(base::ByteView(bytes).first(bytes.size() - 1));
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().code, base::Errc::truncated);
  EXPECT_NE(truncated.error().reason.find("InclusionProof.path"), std::string::npos) << truncated.error().reason;
  base::Bytes too_long(17, 0);
  too_long[16] = 65;  // 65 path elements: above the maximum of 64
  EXPECT_EQ(codec::decode<InclusionProof>(too_long).error().code, base::Errc::length_over_max);
}

}  // namespace
}  // namespace sion::commit
