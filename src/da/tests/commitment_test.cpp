#include "sion/da/commitment.hpp"

#include <gtest/gtest.h>

#include "sion/crypto/sha2.hpp"
#include "test_square.hpp"

namespace sion::da {
namespace {

// The definitions of docs/data-availability.md, one hash at a time.
Hash tagged_sha256(std::uint8_t tag, base::ByteView a, base::ByteView b = {}) {
  base::Bytes message{tag};
  message.insert(message.end(), a.begin(), a.end());
  message.insert(message.end(), b.begin(), b.end());
  return crypto::sha256(message);
}

Hash reference_tree(std::uint8_t node_tag, std::vector<Hash> level) {
  while (level.size() > 1) {
    std::vector<Hash> up;
    for (std::size_t i = 0; i < level.size(); i += 2) up.push_back(tagged_sha256(node_tag, level[i], level[i + 1]));
    level = up;
  }
  return level[0];
}

Hash reference_line_root(const ExtendedSquare& square, Axis axis, std::uint32_t line) {
  std::vector<Hash> leaves;
  for (std::uint32_t p = 0; p < square.width(); ++p)
    leaves.push_back(tagged_sha256(0x60, square.line_share(axis, line, p)));
  return reference_tree(0x61, leaves);
}

TEST(Commitment, RootsAreTheSpecifiedTrees) {
  for (const std::uint32_t k : {1U, 2U, 8U}) {
    const ExtendedSquare square = testing::random_square(k, k);
    const SquareCommitment c = SquareCommitment::compute(square);
    std::vector<Hash> root_leaves;
    for (const Axis axis : {Axis::row, Axis::column}) {
      for (std::uint32_t l = 0; l < 2 * k; ++l) {
        ASSERT_EQ(c.line_root(axis, l), reference_line_root(square, axis, l)) << k << " " << l;
        root_leaves.push_back(tagged_sha256(0x62, c.line_root(axis, l)));
      }
    }
    EXPECT_EQ(c.data_root(), reference_tree(0x63, root_leaves));
    EXPECT_EQ(*c.header().data_root(), c.data_root());
    EXPECT_EQ(c.leaf_hash(1, 0), tagged_sha256(0x60, square.share(1, 0)));
  }
}

TEST(Commitment, ThreadsDoNotChangeTheRoots) {
  const ExtendedSquare square = testing::random_square(32, 4);
  base::Executor two_threads(2);
  base::Executor five_threads(5);
  const SquareCommitment one = SquareCommitment::compute(square);
  const SquareCommitment two = SquareCommitment::compute(square, &two_threads);
  const SquareCommitment five = SquareCommitment::compute(square, &five_threads);
  EXPECT_EQ(one.header(), two.header());
  EXPECT_EQ(one.header(), five.header());
  EXPECT_EQ(one.data_root(), two.data_root());
}

TEST(Commitment, EveryShareHasPathsToBothItsLinesAndTheirRootsToTheDataRoot) {
  const std::uint32_t k = 4;
  const ExtendedSquare square = testing::random_square(k, 2);
  const SquareCommitment c = SquareCommitment::compute(square);
  for (const Axis axis : {Axis::row, Axis::column}) {
    for (std::uint32_t l = 0; l < 2 * k; ++l) {
      const auto root_path = c.root_path(axis, l);
      EXPECT_EQ(root_path.size(), 4U);
      EXPECT_EQ(root_path, DataRootTree(c.header()).path(axis, l));
      EXPECT_EQ(data_root_from_path(k, axis, l, c.line_root(axis, l), root_path), c.data_root());
      for (std::uint32_t p = 0; p < 2 * k; ++p) {
        const auto path = c.line_path(axis, l, p);
        ASSERT_EQ(path.size(), 3U);
        EXPECT_EQ(line_root_from_path(k, p, square.line_share(axis, l, p), path), c.line_root(axis, l));
        // The same path does not place the share elsewhere.
        EXPECT_NE(line_root_from_path(k, p ^ 1U, square.line_share(axis, l, p), path), c.line_root(axis, l));
      }
    }
  }
  // Wrong lengths, places and sizes give no root at all.
  const auto path = c.line_path(Axis::row, 0, 0);
  EXPECT_FALSE(line_root_from_path(k, 0, square.share(0, 0), std::span(path).first(2)));
  EXPECT_FALSE(line_root_from_path(k, 8, square.share(0, 0), path));
  EXPECT_FALSE(line_root_from_path(k, 0, square.share(0, 0).first(511), path));
  const auto root_path = c.root_path(Axis::row, 0);
  EXPECT_FALSE(data_root_from_path(k, Axis::row, 8, c.line_root(Axis::row, 0), root_path));
  EXPECT_FALSE(data_root_from_path(2 * k, Axis::row, 0, c.line_root(Axis::row, 0), root_path));
}

TEST(Commitment, MalformedHeadersAndCommitmentsAreRefused) {
  const SquareCommitment c = SquareCommitment::compute(testing::random_square(2));
  AvailabilityHeader header = c.header();
  header.column_roots.pop_back();
  EXPECT_NE(header.data_root().error().reason.find("4 row roots but 3 column roots"), std::string::npos);
  header.row_roots.pop_back();
  EXPECT_NE(header.data_root().error().reason.find("odd number"), std::string::npos);
  header.row_roots.resize(6);
  header.column_roots.resize(6);
  EXPECT_NE(header.data_root().error().reason.find("original width 3 is not a power of two"), std::string::npos);
  header.row_roots.clear();
  header.column_roots.clear();
  EXPECT_FALSE(header.data_root());

  EXPECT_TRUE(check_commitment({2, 2048, {}}));
  EXPECT_NE(check_commitment({2, 2049, {}}).error().reason.find("does not fit a 2x2 square"), std::string::npos);
  EXPECT_NE(check_commitment({4, 2048, {}}).error().reason.find("takes a 2x2 square, not a 4x4 square"),
            std::string::npos);
  EXPECT_EQ(check_commitment({4, 2048, {}}).error().code, base::Errc::invalid_value);
  EXPECT_TRUE(check_commitment({1, 0, {}}));
  EXPECT_FALSE(check_commitment({0, 0, {}}));
  EXPECT_FALSE(check_commitment({256, 0, {}}));
}

// docs/data-availability.md, "Known answers" (reproduced there by an
// independent computation from the text): data byte i = (7i + 1) mod 256.
// Padding other than zeros gives a second data root for the same data: a
// square with it is not one a node may accept the data from.
TEST(Commitment, PublishedDataRefusesNonZeroPadding) {
  const base::Bytes data = testing::random_data(3 * kShareBytes + 100, 9);  // k = 2, 412 padding bytes
  const auto honest = ExtendedSquare::from_data(data).value();
  const DataCommitment commitment{honest.original_width(), data.size(), SquareCommitment::compute(honest).data_root()};
  const auto taken = published_data(honest, commitment);
  ASSERT_TRUE(taken.ok()) << taken.error().reason;
  EXPECT_EQ(*taken, data);

  base::Bytes padded = honest.original();
  padded.back() = 1;  // the last padding byte
  const auto other = ExtendedSquare::from_original(2, padded).value();
  const DataCommitment other_commitment{2, data.size(), SquareCommitment::compute(other).data_root()};
  ASSERT_NE(other_commitment.data_root, commitment.data_root);  // the malleability
  const auto refused = published_data(other, other_commitment);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, base::Errc::invalid_value);
  EXPECT_NE(refused.error().reason.find("padding byte 2047 of the original quadrant is 1, not zero"), std::string::npos)
      << refused.error().reason;
  // The first padding byte, right after the data, too.
  padded = honest.original();
  padded[data.size()] = 0x80;
  const auto first = ExtendedSquare::from_original(2, padded).value();
  EXPECT_FALSE(published_data(first, other_commitment).ok());

  // A commitment of another width, a bad commitment and a missing share.
  EXPECT_FALSE(published_data(honest, DataCommitment{4, data.size(), commitment.data_root}).ok());
  EXPECT_FALSE(published_data(honest, DataCommitment{2, 5 * kShareBytes, commitment.data_root}).ok());
  auto partial = ExtendedSquare::from_data(data).value();
  partial.erase(1, 1);
  const auto missing = published_data(partial, commitment);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().reason.find("share (1, 1)"), std::string::npos) << missing.error().reason;
}

TEST(Commitment, KnownAnswers) {
  struct Case {
    std::size_t bytes;
    std::uint32_t k;
    const char* data_root;
    const char* row0_root;
  };
  const Case cases[] = {
      {0, 1, "0ae1e286b5602485c39b81b73bfacfee8650927ccb573b2af0f9924dd2100947",
       "ff60c1349fa23d6ae31dac3aaacd3e666ddad27ba270413cfb2f0861fe8a3130"},
      {1000, 2, "d4c1dcd7829afe3401225493d9aec1f99b35b13776e0da3e63be75fdefd3274b",
       "7e1e527b70564cec1503f2a5ea2ca6da63886a388cc3604125626c96df7b640c"},
      {5000, 4, "fd5fd00570ea73df9be767953e820ba35161465ce25b89cbfad7e176dcd78bdc",
       "7ef010303d677b794c120862265f0f11b2d131760154af7dee79af91231c081c"},
  };
  for (const Case& c : cases) {
    base::Bytes data(c.bytes);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(7 * i + 1);
    const ExtendedSquare square = ExtendedSquare::from_data(data).value();
    ASSERT_EQ(square.original_width(), c.k);
    const SquareCommitment commitment = SquareCommitment::compute(square);
    EXPECT_EQ(base::to_hex(commitment.data_root()), c.data_root) << c.bytes;
    EXPECT_EQ(base::to_hex(commitment.line_root(Axis::row, 0)), c.row0_root) << c.bytes;
  }
}

TEST(Commitment, EncodingsRoundTrip) {
  const SquareCommitment c = SquareCommitment::compute(testing::random_square(4));
  const base::Bytes header = codec::encode(c.header());
  EXPECT_EQ(header.size(), 2 * (1 + 8 * 32U));
  EXPECT_EQ(*codec::decode<AvailabilityHeader>(header), c.header());
  const DataCommitment commitment{4, 7000, c.data_root()};
  const base::Bytes bytes = codec::encode(commitment);
  EXPECT_EQ(bytes.size(), 4 + 8 + 32U);
  EXPECT_EQ(*codec::decode<DataCommitment>(bytes), commitment);
  EXPECT_EQ(codec::decode<DataCommitment>(base::ByteView(bytes).first(43)).error().code, base::Errc::truncated);
  base::Bytes long_list = header;
  long_list[0] = 0xff;  // a count over the list's 256 (ULEB128 0xff 0x02 ...)
  long_list[1] = 0x7f;
  EXPECT_FALSE(codec::decode<AvailabilityHeader>(long_list));
}

}  // namespace
}  // namespace sion::da
