#include "sion/base/endian.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

namespace sion::base {
namespace {

constexpr std::array<std::uint8_t, 8> kBytes{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};

// The same known answers in constant evaluation (the byte-by-byte path)...
static_assert(load_le<std::uint16_t>(kBytes.data()) == 0x2301);
static_assert(load_be<std::uint16_t>(kBytes.data()) == 0x0123);
static_assert(load_le<std::uint32_t>(kBytes.data()) == 0x67452301u);
static_assert(load_be<std::uint32_t>(kBytes.data()) == 0x01234567u);
static_assert(load_le<std::uint64_t>(kBytes.data()) == 0xefcdab8967452301ull);
static_assert(load_be<std::uint64_t>(kBytes.data()) == 0x0123456789abcdefull);
static_assert(byteswap(std::uint32_t{0x01020304}) == 0x04030201u);
static_assert([] {
  std::array<std::uint8_t, 8> out{};
  store_be(out.data(), std::uint64_t{0x0123456789abcdefull});
  return out == kBytes;
}());
static_assert([] {
  std::array<std::uint8_t, 4> out{};
  store_le(out.data(), std::uint32_t{0x67452301u});
  return out[0] == 0x01 && out[3] == 0x67;
}());

// ...and at run time (memcpy and byte swap), from an unaligned address.
TEST(Endian, LoadsKnownAnswersFromUnalignedBytes) {
  std::array<std::uint8_t, 9> buffer{};
  std::copy(kBytes.begin(), kBytes.end(), buffer.begin() + 1);
  const std::uint8_t* volatile at = buffer.data() + 1;  // keeps the call out of constant folding
  EXPECT_EQ(load_le<std::uint16_t>(at), 0x2301);
  EXPECT_EQ(load_be<std::uint16_t>(at), 0x0123);
  EXPECT_EQ(load_le<std::uint32_t>(at), 0x67452301u);
  EXPECT_EQ(load_be<std::uint32_t>(at), 0x01234567u);
  EXPECT_EQ(load_le<std::uint64_t>(at), 0xefcdab8967452301ull);
  EXPECT_EQ(load_be<std::uint64_t>(at), 0x0123456789abcdefull);
}

TEST(Endian, StoresKnownAnswersAndRoundTrips) {
  std::array<std::uint8_t, 12> out{};
  std::uint8_t* volatile at = out.data() + 3;
  store_be(at, std::uint64_t{0x0123456789abcdefull});
  EXPECT_TRUE(std::equal(kBytes.begin(), kBytes.end(), out.begin() + 3));
  store_le(at, std::uint64_t{0xefcdab8967452301ull});
  EXPECT_TRUE(std::equal(kBytes.begin(), kBytes.end(), out.begin() + 3));
  EXPECT_EQ(out[2], 0);
  EXPECT_EQ(out[11], 0);  // nothing written outside the word
  store_be(at, std::uint16_t{0xbeef});
  EXPECT_EQ(out[3], 0xbe);
  EXPECT_EQ(out[4], 0xef);
  for (const std::uint32_t v : {0u, 1u, 0x80000000u, 0xdeadbeefu, 0xffffffffu}) {
    store_le(at, v);
    EXPECT_EQ(load_le<std::uint32_t>(at), v);
    store_be(at, v);
    EXPECT_EQ(load_be<std::uint32_t>(at), v);
    EXPECT_EQ(load_le<std::uint32_t>(at), byteswap(v));
  }
}

}  // namespace
}  // namespace sion::base
