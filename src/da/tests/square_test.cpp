#include "sion/da/square.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "sion/codec/codec.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/reed_solomon.hpp"

namespace sion::da {
namespace {

// GF(2^8) with x^8 + x^4 + x^3 + x^2 + 1, written out independently of
// ISA-L, to check the code against the formula the docs give.
std::uint8_t gf_multiply(std::uint8_t a, std::uint8_t b) {
  std::uint8_t product = 0;
  while (b != 0) {
    if ((b & 1) != 0) product ^= a;
    const bool carry = (a & 0x80) != 0;
    a = static_cast<std::uint8_t>(a << 1);
    if (carry) a ^= 0x1d;
    b >>= 1;
  }
  return product;
}

std::uint8_t gf_inverse(std::uint8_t a) {  // a^254
  std::uint8_t result = 1;
  for (int i = 0; i < 254; ++i) result = gf_multiply(result, a);
  return result;
}

base::Bytes random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  base::Bytes out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

// Parity symbol i of a line whose data symbols are data[0..k).
std::uint8_t formula_parity(std::uint32_t k, std::uint32_t i, const std::vector<std::uint8_t>& data) {
  std::uint8_t sum = 0;
  for (std::uint32_t j = 0; j < k; ++j) {
    sum ^= gf_multiply(gf_inverse(static_cast<std::uint8_t>((k + i) ^ j)), data[j]);
  }
  return sum;
}

// An axis decodes from its two assigned values only.
TEST(Square, AxisDecodesOnlyRowAndColumn) {
  for (unsigned raw = 0; raw < 256; ++raw) {
    const auto axis = codec::decode<Axis>(base::Bytes{static_cast<std::uint8_t>(raw)});
    EXPECT_EQ(axis.ok(), raw <= 1) << raw;
    if (!axis) {
      EXPECT_EQ(axis.error().code, base::Errc::invalid_value) << raw;
    }
  }
}

TEST(Square, WidthIsTheSmallestPowerOfTwoThatHoldsTheData) {
  EXPECT_EQ(*original_width_for(0), 1U);
  EXPECT_EQ(*original_width_for(512), 1U);
  EXPECT_EQ(*original_width_for(513), 2U);
  EXPECT_EQ(*original_width_for(16 * 1024), 8U);
  EXPECT_EQ(*original_width_for(256 * 1024), 32U);
  EXPECT_EQ(*original_width_for(2048 * 1024), 64U);
  EXPECT_EQ(*original_width_for(2048 * 1024 + 1), 128U);
  EXPECT_EQ(*original_width_for(kMaxDataBytes), 128U);
  const auto too_big = original_width_for(kMaxDataBytes + 1);
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error().code, base::Errc::invalid_argument);
  EXPECT_NE(too_big.error().reason.find("does not fit"), std::string::npos);
}

TEST(Square, WidthsOutOfRangeAreRefused) {
  for (const std::uint64_t k : {0ULL, 3ULL, 6ULL, 256ULL, 1ULL << 40}) {
    const auto ok = check_original_width(k);
    ASSERT_FALSE(ok) << k;
    EXPECT_NE(ok.error().reason.find("power of two"), std::string::npos);
    EXPECT_FALSE(ExtendedSquare::empty(static_cast<std::uint32_t>(k)));
  }
  for (std::uint32_t k = 1; k <= 128; k *= 2) EXPECT_TRUE(check_original_width(k));
  const auto wrong_size = ExtendedSquare::from_original(4, base::Bytes(4 * 4 * 512 - 1));
  ASSERT_FALSE(wrong_size);
  EXPECT_NE(wrong_size.error().reason.find("8192 bytes, not 8191"), std::string::npos);
}

TEST(Square, DataFillsTheOriginalQuadrantRowByRowThenZeros) {
  const base::Bytes data = random_bytes(5000, 1);  // 10 shares: k = 4
  auto square = ExtendedSquare::from_data(data);
  ASSERT_TRUE(square);
  EXPECT_EQ(square->original_width(), 4U);
  EXPECT_EQ(square->width(), 8U);
  EXPECT_TRUE(square->complete());
  const base::Bytes original = square->original();
  ASSERT_EQ(original.size(), 16U * 512);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), original.begin()));
  EXPECT_TRUE(std::all_of(original.begin() + static_cast<std::ptrdiff_t>(data.size()), original.end(),
                          [](std::uint8_t b) { return b == 0; }));
  // Share (1, 2) is data bytes [(1 * 4 + 2) * 512, ...).
  EXPECT_EQ(0, std::memcmp(square->share(1, 2).data(), data.data() + 6 * 512, 512));
}

// Every parity symbol of the square, checked against the formula with an
// independent GF(2^8): Q1 from Q0's rows, Q2 from Q0's columns, Q3 from
// Q1's columns and, the other way round, from Q2's rows (they agree).
TEST(Square, ParityFollowsTheCauchyFormulaAndQ3IsTheSameBothWays) {
  for (const std::uint32_t k : {1U, 2U, 4U, 8U}) {
    const base::Bytes shares = random_bytes(std::size_t{k} * k * 512, k);
    auto square = ExtendedSquare::from_original(k, shares);
    ASSERT_TRUE(square);
    std::vector<std::uint8_t> data(k);
    for (const std::size_t b : {std::size_t{0}, std::size_t{17}, std::size_t{511}}) {
      const auto symbol = [&](std::uint32_t r, std::uint32_t c) { return square->share(r, c)[b]; };
      for (std::uint32_t r = 0; r < 2 * k; ++r) {  // every row: parity of its first half
        for (std::uint32_t j = 0; j < k; ++j) data[j] = symbol(r, j);
        for (std::uint32_t i = 0; i < k; ++i) ASSERT_EQ(symbol(r, k + i), formula_parity(k, i, data)) << k << " " << r;
      }
      for (std::uint32_t c = 0; c < 2 * k; ++c) {  // every column: parity of its first half
        for (std::uint32_t j = 0; j < k; ++j) data[j] = symbol(j, c);
        for (std::uint32_t i = 0; i < k; ++i) ASSERT_EQ(symbol(k + i, c), formula_parity(k, i, data)) << k << " " << c;
      }
    }
  }
}

TEST(Square, ThreadsDoNotChangeTheSquare) {
  const base::Bytes data = random_bytes(300'000, 7);
  base::Executor two_threads(2);
  base::Executor three_threads(3);
  auto one = ExtendedSquare::from_data(data);
  auto two = ExtendedSquare::from_data(data, &two_threads);
  auto three = ExtendedSquare::from_data(data, &three_threads);
  ASSERT_TRUE(one && two && three);
  EXPECT_EQ(one->original_width(), 32U);
  EXPECT_TRUE(std::equal(one->bytes().begin(), one->bytes().end(), two->bytes().begin()));
  EXPECT_TRUE(std::equal(one->bytes().begin(), one->bytes().end(), three->bytes().begin()));
}

// Large squares reuse freed memory without clearing it: every byte must be
// written again. Zero data extends to an all-zero square (the code is
// linear), after a random square of the same size has been freed.
TEST(Square, ReusedMemoryIsFullyRewritten) {
  base::Executor executor(2);
  SquarePool pool;
  for (const std::size_t bytes : {std::size_t{256} << 10, std::size_t{2048} << 10}) {
    for (int round = 0; round < 3; ++round) {
      { auto noise = ExtendedSquare::from_data(random_bytes(bytes, 5), &executor, &pool); }
      auto zeros = ExtendedSquare::from_data(base::Bytes(bytes - 1000, 0), &executor, &pool);
      ASSERT_TRUE(zeros);
      EXPECT_TRUE(std::all_of(zeros->bytes().begin(), zeros->bytes().end(), [](std::uint8_t b) { return b == 0; }));
      { auto noise = ExtendedSquare::from_data(random_bytes(bytes, 6), nullptr, &pool); }
      auto empty = ExtendedSquare::empty(*original_width_for(bytes), &pool);
      EXPECT_TRUE(std::all_of(empty->bytes().begin(), empty->bytes().end(), [](std::uint8_t b) { return b == 0; }));
    }
  }
}

// A pool hands a freed block to the next square of its size drawn from it.
TEST(Square, PoolReusesFreedSquares) {
  SquarePool pool;
  const base::Bytes data = random_bytes(std::size_t{2048} << 10, 3);  // 8 MiB extended: huge-page sized
  const std::uint8_t* first = nullptr;
  {
    auto square = ExtendedSquare::from_data(data, nullptr, &pool);
    ASSERT_TRUE(square);
    first = square->bytes().data();
  }
  // Had the block gone back to malloc, this square would likely get it.
  auto without = ExtendedSquare::from_data(data);
  ASSERT_TRUE(without);
  EXPECT_NE(without->bytes().data(), first);
  auto again = ExtendedSquare::from_data(data, nullptr, &pool);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->bytes().data(), first);
}

TEST(Square, LargestSquareExtends) {
  base::Executor executor(2);
  const base::Bytes data = random_bytes(kMaxDataBytes, 9);
  auto square = ExtendedSquare::from_data(data, &executor);
  ASSERT_TRUE(square);
  EXPECT_EQ(square->width(), 256U);
  // Spot-check Q3's last share against the code applied to Q2's last row.
  const LineCode& code = LineCode::for_width(128);
  std::vector<const std::uint8_t*> in(128);
  std::vector<std::uint8_t> out(128 * 512);
  std::vector<std::uint8_t*> outs(128);
  for (std::uint32_t j = 0; j < 128; ++j) {
    in[j] = square->share(255, j).data();
    outs[j] = out.data() + j * 512;
  }
  code.encode(in.data(), outs.data(), 512);
  EXPECT_EQ(0, std::memcmp(outs[127], square->share(255, 255).data(), 512));
}

TEST(Square, SetShareChecksItsInput) {
  auto square = ExtendedSquare::empty(2);
  ASSERT_TRUE(square);
  EXPECT_EQ(square->missing(), 16U);
  EXPECT_FALSE(square->set_share(4, 0, base::Bytes(512)));
  const auto short_share = square->set_share(0, 0, base::Bytes(511));
  ASSERT_FALSE(short_share);
  EXPECT_NE(short_share.error().reason.find("512 bytes, not 511"), std::string::npos);
  EXPECT_TRUE(square->set_share(3, 3, base::Bytes(512, 7)));
  EXPECT_TRUE(square->set_share(3, 3, base::Bytes(512, 8)));
  EXPECT_EQ(square->missing(), 15U);
  EXPECT_TRUE(square->has(3, 3));
  square->erase(3, 3);
  EXPECT_EQ(square->missing(), 16U);
}

TEST(LineDecoder, AnyKPositionsRestoreTheLine) {
  std::mt19937 rng(3);
  for (const std::uint32_t k : {1U, 2U, 8U, 64U, 128U}) {
    const LineCode& code = LineCode::for_width(k);
    const std::size_t length = 64;
    std::vector<std::uint8_t> line(2 * std::size_t{k} * length);
    for (std::size_t i = 0; i < k * length; ++i) line[i] = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t*> pointers(2 * k);
    for (std::uint32_t p = 0; p < 2 * k; ++p) pointers[p] = line.data() + p * length;
    code.encode(pointers.data(), pointers.data() + k, length);
    const std::vector<std::uint8_t> expected = line;
    LineDecoder decoder(code);
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<std::uint32_t> order(2 * k);
      for (std::uint32_t p = 0; p < 2 * k; ++p) order[p] = p;
      std::shuffle(order.begin(), order.end(), rng);
      std::vector<std::uint8_t> known(2 * k, 1);
      for (std::uint32_t i = 0; i < k; ++i) {  // erase exactly k
        known[order[i]] = 0;
        std::memset(pointers[order[i]], 0, length);
      }
      ASSERT_TRUE(decoder.decode(pointers, known, length));
      EXPECT_EQ(line, expected) << k;
    }
    std::vector<std::uint8_t> known(2 * k, 0);
    for (std::uint32_t i = 0; i + 1 < k; ++i) known[i] = 1;
    const auto too_few = decoder.decode(pointers, known, length);
    ASSERT_FALSE(too_few);
    EXPECT_NE(too_few.error().reason.find(std::to_string(k) + " are needed"), std::string::npos);
  }
}

}  // namespace
}  // namespace sion::da
