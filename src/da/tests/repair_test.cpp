#include "sion/da/repair.hpp"

#include <gtest/gtest.h>

#include <random>

#include "sion/da/bad_encoding.hpp"
#include "test_square.hpp"

namespace sion::da {
namespace {

std::string reason(const base::Status& status) { return status ? "" : status.error().reason; }

void erase_block(ExtendedSquare& square, std::uint32_t row0, std::uint32_t col0, std::uint32_t rows,
                 std::uint32_t cols) {
  for (std::uint32_t r = row0; r < row0 + rows; ++r) {
    for (std::uint32_t c = col0; c < col0 + cols; ++c) square.erase(r, c);
  }
}

bool same_shares(const ExtendedSquare& a, const ExtendedSquare& b) {
  return std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin(), b.bytes().end());
}

TEST(Repair, FromTheThreeParityQuadrants) {
  for (const std::uint32_t k : {1U, 4U, 32U}) {
    const ExtendedSquare original = testing::random_square(k, k);
    const SquareCommitment commitment = SquareCommitment::compute(original);
    for (const unsigned threads : {1U, 2U}) {
      base::Executor executor(threads);
      ExtendedSquare received = original;
      erase_block(received, 0, 0, k, k);
      EXPECT_EQ(received.missing(), std::size_t{k} * k);
      ASSERT_TRUE(repair(received, commitment.header(), &executor)) << reason(repair(received, commitment.header()));
      EXPECT_TRUE(received.complete());
      EXPECT_TRUE(same_shares(received, original));
    }
  }
}

TEST(Repair, FromTheOriginalQuadrantAlone) {
  const ExtendedSquare original = testing::random_square(8, 3);
  const SquareCommitment commitment = SquareCommitment::compute(original);
  ExtendedSquare received = original;
  erase_block(received, 0, 8, 8, 8);
  erase_block(received, 8, 0, 8, 16);
  ASSERT_TRUE(repair(received, commitment.header()));
  EXPECT_TRUE(same_shares(received, original));
}

// A pattern no single pass restores: rows lack too much until columns are
// restored, and the other way round (as in the 2D-RS paper's iteration).
TEST(Repair, IteratesRowsAndColumnsUntilComplete) {
  const std::uint32_t k = 4;
  const ExtendedSquare original = testing::random_square(k, 5);
  const SquareCommitment commitment = SquareCommitment::compute(original);
  ExtendedSquare received = original;
  erase_block(received, 0, 0, 5, 3);  // rows 0..4 keep 5 of 8; columns 0..2 keep 3 of 8
  erase_block(received, 5, 0, 3, 1);  // column 0 keeps none, rows 5..7 keep 7
  erase_block(received, 0, 3, 1, 4);  // row 0 keeps 1: it needs column passes first
  ASSERT_TRUE(repair(received, commitment.header()));
  EXPECT_TRUE(same_shares(received, original));
}

TEST(Repair, RandomHalvesOfTheSquare) {
  std::mt19937 rng(11);
  const ExtendedSquare original = testing::random_square(16, 6);
  const SquareCommitment commitment = SquareCommitment::compute(original);
  for (int trial = 0; trial < 5; ++trial) {
    ExtendedSquare received = original;
    for (std::uint32_t r = 0; r < 32; ++r) {
      for (std::uint32_t c = 0; c < 32; ++c) {
        if (rng() % 2 == 0) received.erase(r, c);
      }
    }
    base::Executor executor(2);
    ASSERT_TRUE(repair(received, commitment.header(), &executor)) << reason(repair(received, commitment.header()));
    EXPECT_TRUE(same_shares(received, original));
  }
}

TEST(Repair, TooFewSharesIsAClearErrorAndKeepsWhatWasRestored) {
  const std::uint32_t k = 4;
  const ExtendedSquare original = testing::random_square(k, 7);
  const SquareCommitment commitment = SquareCommitment::compute(original);
  ExtendedSquare received = original;
  erase_block(received, 0, 0, k + 1, k + 1);  // every line through it keeps k - 1
  received.erase(7, 7);                       // restorable: its row still has 7
  const auto status = repair(received, commitment.header());
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, base::Errc::invalid_argument);
  EXPECT_NE(status.error().reason.find("not enough shares to repair the square: 25 of 64 still missing"),
            std::string::npos)
      << status.error().reason;
  EXPECT_TRUE(received.has(7, 7));
  EXPECT_EQ(received.missing(), 25U);

  ExtendedSquare empty = std::move(ExtendedSquare::empty(k).value());
  EXPECT_FALSE(repair(empty, commitment.header()));
}

TEST(Repair, AHeaderOfAnotherWidthIsRefused) {
  const SquareCommitment commitment = SquareCommitment::compute(testing::random_square(4));
  ExtendedSquare received = testing::random_square(8);
  received.erase(0, 0);
  const auto status = repair(received, commitment.header());
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().reason.find("a square of width 16 needs 16 of each"), std::string::npos);
}

// A producer commits to a square with one share of Q0 altered after
// extension: row 2 and column 5 are not codewords. A node that receives the
// three parity quadrants rebuilds the honest Q0, so the roots of row 2 and
// column 5 disagree; the rebuilt square yields a proof for row 2.
TEST(Repair, ABadlyEncodedSquareFailsTheRootCheckAndYieldsAProof) {
  const std::uint32_t k = 8;
  ExtendedSquare committed = testing::random_square(k, 8);
  committed.share_data(2, 5)[0] ^= 0x5a;
  const SquareCommitment commitment = SquareCommitment::compute(committed);
  ExtendedSquare received = committed;
  erase_block(received, 0, 0, k, k);
  const auto status = repair(received, commitment.header());
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, base::Errc::invalid_value);
  EXPECT_NE(status.error().reason.find("row 2 of the rebuilt square does not reproduce its committed root"),
            std::string::npos)
      << status.error().reason;
  ASSERT_TRUE(received.complete());
  const auto proof = prove_bad_encoding(received, commitment.header());
  ASSERT_TRUE(proof);
  ASSERT_TRUE(proof->has_value());
  EXPECT_EQ((*proof)->axis, Axis::row);
  EXPECT_EQ((*proof)->line, 2U);
  const DataCommitment header{k, std::uint64_t{k} * k * kShareBytes, commitment.data_root()};
  EXPECT_TRUE(verify_bad_encoding(**proof, header)) << reason(verify_bad_encoding(**proof, header));
}

}  // namespace
}  // namespace sion::da
