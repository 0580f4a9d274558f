#include "sion/base/random.hpp"

#include <gtest/gtest.h>

#include <array>
#include <set>

namespace sion::base {
namespace {

TEST(Random, FillsBuffersOfEverySize) {
  for (std::size_t n : {0u, 1u, 31u, 32u, 4096u, 100000u}) {
    Bytes buffer(n, 0);
    ASSERT_TRUE(random_bytes(buffer).ok());
    if (n >= 32) {
      // 32 zero bytes from a working generator: probability 2^-256.
      EXPECT_NE(Bytes(buffer.begin(), buffer.begin() + 32), Bytes(32, 0));
    }
  }
}

TEST(Random, DrawsDiffer) {
  std::set<ByteArray<16>> seen;
  for (int i = 0; i < 100; ++i) {
    auto draw = random_array<16>();
    ASSERT_TRUE(draw.ok());
    seen.insert(*draw);
  }
  EXPECT_EQ(seen.size(), 100u);
}

}  // namespace
}  // namespace sion::base
