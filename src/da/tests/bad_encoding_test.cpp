#include "sion/da/bad_encoding.hpp"

#include <gtest/gtest.h>

#include "sion/da/reed_solomon.hpp"
#include "test_square.hpp"

namespace sion::da {
namespace {

std::string reason(const base::Status& status) { return status ? "" : status.error().reason; }

struct Corrupted {
  ExtendedSquare square;
  SquareCommitment commitment;
  DataCommitment header;
};

// Extended honestly, then one share altered, then committed: the producer
// commits to what it publishes, so every share still has valid proofs.
Corrupted corrupted(std::uint32_t k, std::uint32_t row, std::uint32_t col) {
  ExtendedSquare square = testing::random_square(k, 9);
  square.share_data(row, col)[17] ^= 0x01;
  SquareCommitment commitment = SquareCommitment::compute(square);
  const DataCommitment header{k, std::uint64_t{k} * k * kShareBytes, commitment.data_root()};
  return {std::move(square), std::move(commitment), header};
}

TEST(BadEncoding, AWellEncodedSquareYieldsNone) {
  for (const std::uint32_t k : {1U, 2U, 16U}) {
    const ExtendedSquare square = testing::random_square(k, k);
    const auto proof = prove_bad_encoding(square, SquareCommitment::compute(square).header());
    ASSERT_TRUE(proof);
    EXPECT_FALSE(proof->has_value()) << k;
  }
}

TEST(BadEncoding, ACorruptedShareYieldsAProofAnyNodeVerifies) {
  for (const auto& [row, col] : {std::pair{3U, 5U}, std::pair{13U, 14U}, std::pair{0U, 9U}}) {
    const Corrupted c = corrupted(8, row, col);
    const auto found = prove_bad_encoding(c.square, c.commitment.header());
    ASSERT_TRUE(found);
    ASSERT_TRUE(found->has_value());
    const BadEncodingProof& proof = **found;
    EXPECT_EQ(proof.axis, Axis::row);  // rows are searched first
    EXPECT_EQ(proof.line, row);
    EXPECT_EQ(proof.shares.size(), 8U);
    ASSERT_TRUE(verify_bad_encoding(proof, c.header)) << reason(verify_bad_encoding(proof, c.header));
    // Compact and self-contained: it round-trips and verifies from bytes.
    const base::Bytes bytes = codec::encode(proof);
    EXPECT_EQ(bytes.size(), 1 + 2 + 32 + 1 + 5 * 32 + 1 + 8 * (1 + 2 + 2 + 512 + 1 + 4 * 32 + 32 + 1 + 5 * 32U));
    const auto decoded = codec::decode<BadEncodingProof>(bytes);
    ASSERT_TRUE(decoded);
    EXPECT_TRUE(verify_bad_encoding(*decoded, c.header));
  }
}

TEST(BadEncoding, ABadColumnIsFoundWhenEveryRowIsACodeword) {
  // Alter a share and re-encode its row: every row is a codeword, the
  // columns through the row are not.
  const std::uint32_t k = 4;
  ExtendedSquare square = testing::random_square(k, 12);
  square.share_data(1, 2)[0] ^= 0xff;
  std::vector<const std::uint8_t*> data(k);
  std::vector<std::uint8_t*> parity(k);
  for (std::uint32_t j = 0; j < k; ++j) {
    data[j] = square.share(1, j).data();
    parity[j] = square.share_data(1, k + j);
  }
  LineCode::for_width(k).encode(data.data(), parity.data(), kShareBytes);
  const SquareCommitment commitment = SquareCommitment::compute(square);
  const auto found = prove_bad_encoding(square, commitment.header());
  ASSERT_TRUE(found && found->has_value());
  EXPECT_EQ((*found)->axis, Axis::column);
  const DataCommitment header{k, std::uint64_t{k} * k * kShareBytes, commitment.data_root()};
  EXPECT_TRUE(verify_bad_encoding(**found, header));
}

TEST(BadEncoding, AlteredProofsAreRefusedWithAReason) {
  const Corrupted c = corrupted(4, 1, 1);
  const BadEncodingProof good = std::move(prove_bad_encoding(c.square, c.commitment.header())->value());
  ASSERT_TRUE(verify_bad_encoding(good, c.header));
  const auto check = [&](const BadEncodingProof& proof, const std::string& expected) {
    const auto status = verify_bad_encoding(proof, c.header);
    ASSERT_FALSE(status) << expected;
    EXPECT_EQ(status.error().code, base::Errc::invalid_value);
    EXPECT_NE(status.error().reason.find(expected), std::string::npos) << status.error().reason;
  };
  BadEncodingProof bad = good;
  bad.shares.pop_back();
  check(bad, "row 1: the proof holds 3 shares; exactly k = 4 are needed");
  bad = good;
  std::swap(bad.shares[0], bad.shares[1]);
  check(bad, "share 1 does not come after the one before it");
  bad = good;
  bad.shares[1] = bad.shares[0];
  check(bad, "share 1 does not come after the one before it");
  bad = good;
  bad.shares[2].share[0] ^= 1;
  check(bad, "do not give the proof's column root");
  bad = good;
  bad.shares[2].position = 2;
  check(bad, "is not on the line");
  bad = good;
  bad.shares[2].axis = Axis::row;
  check(bad, "is not on the line");
  bad = good;
  bad.line_root[0] ^= 1;
  check(bad, "row 1: the proof's root for it is not under the data root");
  bad = good;
  bad.line = 2;
  check(bad, "row 2: the proof's root for it is not under the data root");
  bad = good;
  bad.line = 8;
  check(bad, "row 8 is outside the 8x8 square");
  bad = good;
  bad.root_path.pop_back();
  check(bad, "not under the data root");

  // A proof against a line that is in fact well encoded (row 5 of the same
  // square: it does not pass through the altered share).
  BadEncodingProof honest_line;
  honest_line.axis = Axis::row;
  honest_line.line = 5;
  honest_line.line_root = c.commitment.line_root(Axis::row, 5);
  honest_line.root_path = c.commitment.root_path(Axis::row, 5);
  for (std::uint32_t col = 0; col < 4; ++col) {
    honest_line.shares.push_back(prove_share(c.square, c.commitment, Axis::column, 5, col));
  }
  check(honest_line, "row 5 is the codeword its root commits to: no bad encoding");
}

TEST(BadEncoding, MalformedProofBytesAreRefusedWithAReason) {
  const Corrupted c = corrupted(2, 0, 1);
  const base::Bytes bytes = codec::encode(prove_bad_encoding(c.square, c.commitment.header())->value());
  for (std::size_t cut = 0; cut < bytes.size(); cut += 97) {
    const auto decoded = codec::decode<BadEncodingProof>(base::ByteView(bytes).first(cut));
    ASSERT_FALSE(decoded);
    EXPECT_FALSE(decoded.error().reason.empty());
  }
  base::Bytes bad_axis = bytes;
  bad_axis[0] = 7;
  EXPECT_FALSE(codec::decode<BadEncodingProof>(bad_axis));
  base::Bytes extra = bytes;
  extra.push_back(1);
  EXPECT_EQ(codec::decode<BadEncodingProof>(extra).error().code, base::Errc::trailing_bytes);
}

TEST(BadEncoding, IncompleteSquaresAndForeignHeadersAreRefused) {
  ExtendedSquare square = testing::random_square(4);
  const SquareCommitment commitment = SquareCommitment::compute(square);
  const SquareCommitment other = SquareCommitment::compute(testing::random_square(2));
  EXPECT_NE(prove_bad_encoding(square, other.header()).error().reason.find("not for a square of width 8"),
            std::string::npos);
  square.erase(0, 0);
  EXPECT_NE(prove_bad_encoding(square, commitment.header()).error().reason.find("lacks 1 shares"), std::string::npos);
}

}  // namespace
}  // namespace sion::da
