#include "sion/da/sampling.hpp"

#include <gtest/gtest.h>

#include <set>

#include "test_square.hpp"

namespace sion::da {
namespace {

struct Published {
  ExtendedSquare square;
  SquareCommitment commitment;
  DataCommitment header;
};

Published publish(std::uint32_t k, std::uint32_t seed = 1) {
  ExtendedSquare square = testing::random_square(k, seed);
  SquareCommitment commitment = SquareCommitment::compute(square);
  const DataCommitment header{k, std::uint64_t{k} * k * kShareBytes, commitment.data_root()};
  return {std::move(square), std::move(commitment), header};
}

std::string reason(const base::Status& status) { return status ? "" : status.error().reason; }

TEST(ShareProof, EveryShareVerifiesInItsRowAndItsColumn) {
  const Published p = publish(4);
  for (const Axis axis : {Axis::row, Axis::column}) {
    for (std::uint32_t r = 0; r < 8; ++r) {
      for (std::uint32_t c = 0; c < 8; ++c) {
        const ShareProof proof = prove_share(p.square, p.commitment, axis, r, c);
        EXPECT_EQ(proof.row(), r);
        EXPECT_EQ(proof.column(), c);
        ASSERT_TRUE(verify_share(proof, p.header)) << reason(verify_share(proof, p.header));
        const base::Bytes bytes = codec::encode(proof);
        EXPECT_EQ(bytes.size(), 1 + 2 + 2 + 512 + 1 + 3 * 32 + 32 + 1 + 4 * 32U);
        EXPECT_EQ(*codec::decode<ShareProof>(bytes), proof);
      }
    }
  }
}

TEST(ShareProof, EveryAlterationIsCaughtAndNamed) {
  const Published p = publish(4);
  const ShareProof good = prove_share(p.square, p.commitment, Axis::row, 2, 5);
  const auto check = [&](const ShareProof& proof, const std::string& expected) {
    const auto status = verify_share(proof, p.header);
    ASSERT_FALSE(status) << expected;
    EXPECT_EQ(status.error().code, base::Errc::invalid_value);
    EXPECT_NE(status.error().reason.find(expected), std::string::npos) << status.error().reason;
  };
  ShareProof bad = good;
  bad.share[100] ^= 1;
  check(bad, "share (2, 5) and its path do not give the proof's row root");
  bad = good;
  bad.position = 4;
  check(bad, "share (2, 4) and its path do not give");
  bad = good;
  bad.line = 3;
  check(bad, "share (3, 5): its row root (3) is not under the data root");
  bad = good;
  bad.axis = Axis::column;  // the row's path still gives the row root, now claimed as column 2's
  check(bad, "share (5, 2): its column root (2) is not under the data root");
  bad = good;
  bad.line_root[0] ^= 1;
  check(bad, "do not give the proof's row root");
  bad = good;
  bad.share_path.pop_back();
  check(bad, "the path to its row root has 2 hashes; a line of 8 shares needs 3");
  bad = good;
  bad.root_path.push_back({});
  check(bad, "the path from its row root to the data root has 5 hashes; 16 line roots need 4");
  bad = good;
  bad.root_path[3][7] ^= 1;
  check(bad, "is not under the data root");
  bad = good;
  bad.line = 8;
  check(bad, "is outside the 8x8 square");
  // A proof for another square width, and a malformed commitment.
  DataCommitment other = p.header;
  other.original_width = 8;
  EXPECT_FALSE(verify_share(good, other));
  other.original_width = 5;
  EXPECT_NE(reason(verify_share(good, other)).find("not a power of two"), std::string::npos);
}

TEST(ShareProof, DecoderRefusesMalformedBytes) {
  const Published p = publish(2);
  const base::Bytes bytes = codec::encode(prove_share(p.square, p.commitment, Axis::row, 0, 0));
  for (std::size_t cut = 0; cut < bytes.size(); cut += 37) {
    EXPECT_FALSE(codec::decode<ShareProof>(base::ByteView(bytes).first(cut)));
  }
  base::Bytes extra = bytes;
  extra.push_back(0);
  EXPECT_FALSE(codec::decode<ShareProof>(extra));
  base::Bytes bad_axis = bytes;
  bad_axis[0] = 2;
  EXPECT_FALSE(codec::decode<ShareProof>(bad_axis));
  base::Bytes long_path = bytes;
  long_path[1 + 2 + 2 + 512] = 9;  // share_path count over its maximum of 8
  const auto decoded = codec::decode<ShareProof>(long_path);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().code, base::Errc::length_over_max);
}

TEST(Sampling, CoordinatesAreDistinctInRangeAndFollowTheSeed) {
  const base::ByteArray<32> seed{1, 2, 3};
  const auto a = sample_coordinates(8, 40, seed);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->size(), 40U);
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  for (const Coordinate& c : *a) {
    EXPECT_LT(c.row, 16U);
    EXPECT_LT(c.column, 16U);
    EXPECT_TRUE(seen.insert({c.row, c.column}).second);
  }
  EXPECT_EQ(*sample_coordinates(8, 40, seed), *a);
  EXPECT_NE(*sample_coordinates(8, 40, base::ByteArray<32>{1, 2, 4}), *a);
  // The first samples do not depend on how many are drawn.
  const auto prefix = sample_coordinates(8, 10, seed);
  EXPECT_TRUE(std::equal(prefix->begin(), prefix->end(), a->begin()));
  // Every share of a small square, and no more.
  EXPECT_EQ(sample_coordinates(1, 4, seed)->size(), 4U);
  EXPECT_EQ(sample_coordinates(128, 65536, seed)->size(), 65536U);
  const auto too_many = sample_coordinates(1, 5, seed);
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.error().reason.find("cannot draw 5 distinct samples from 4 shares"), std::string::npos);
  EXPECT_FALSE(sample_coordinates(3, 1, seed));
  // docs/data-availability.md, "Known answers".
  const std::vector<Coordinate> known{{47, 117}, {4, 124}, {41, 3}, {70, 106}};
  EXPECT_EQ(*sample_coordinates(64, 4, base::ByteArray<32>{}), known);
}

TEST(Sampling, AvailableSquarePassesAndWithheldSharesAreNoticed) {
  const Published p = publish(8);
  std::size_t served = 0;
  const ShareFetcher honest = [&](std::uint32_t r, std::uint32_t c) -> base::Result<ShareProof> {
    ++served;
    return prove_share(p.square, p.commitment, Axis::row, r, c);
  };
  EXPECT_TRUE(sample_availability(p.header, 16, honest));
  EXPECT_EQ(served, 16U);
  EXPECT_TRUE(sample_availability(p.header, 256, base::ByteArray<32>{}, honest));
  EXPECT_NE(reason(sample_availability(p.header, 0, honest)).find("at least one sample"), std::string::npos);

  const ShareFetcher nothing = [&](std::uint32_t, std::uint32_t) -> base::Result<ShareProof> {
    return base::fail(base::Errc::not_found, "withheld");
  };
  const auto missing = sample_availability(p.header, 16, nothing);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, base::Errc::not_found);
  EXPECT_NE(missing.error().reason.find("was not served: withheld"), std::string::npos);

  const ShareFetcher elsewhere = [&](std::uint32_t r, std::uint32_t c) -> base::Result<ShareProof> {
    return prove_share(p.square, p.commitment, Axis::row, r, (c + 1) % 16);
  };
  EXPECT_NE(reason(sample_availability(p.header, 1, elsewhere)).find("asked for share"), std::string::npos);

  const ShareFetcher forged = [&](std::uint32_t r, std::uint32_t c) -> base::Result<ShareProof> {
    ShareProof proof = prove_share(p.square, p.commitment, Axis::row, r, c);
    proof.share[0] ^= 0xff;
    return proof;
  };
  EXPECT_EQ(sample_availability(p.header, 4, forged).error().code, base::Errc::invalid_value);
}

// The cheapest unrecoverable square withholds a (k+1) x (k+1) block; a
// sampler passes it with probability at most (1 - (k+1)^2 / (2k)^2)^s
// (docs, "Sampling"). For k = 8, s = 16: 0.0023; over 400 independent
// seeds a correct sampler passes about 1, and more than 8 would be a
// sampling bias (probability < 1e-6 under the bound).
TEST(Sampling, WithholdingTheCheapestUnrecoverableBlockIsCaughtAsTheBoundSays) {
  const std::uint32_t k = 8;
  const Published p = publish(k);
  const ShareFetcher withholding = [&](std::uint32_t r, std::uint32_t c) -> base::Result<ShareProof> {
    if (r <= k && c <= k) return base::fail(base::Errc::not_found, "withheld");
    return prove_share(p.square, p.commitment, Axis::row, r, c);
  };
  int passed = 0;
  for (std::uint8_t i = 0; i < 200; ++i) {
    for (std::uint8_t j = 0; j < 2; ++j) {
      if (sample_availability(p.header, 16, base::ByteArray<32>{i, j}, withholding)) ++passed;
    }
  }
  EXPECT_LE(passed, 8);
}

}  // namespace
}  // namespace sion::da
