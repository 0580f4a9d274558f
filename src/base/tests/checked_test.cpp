#include "sion/base/checked.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace sion::base {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(Checked, AddWithinRange) {
  EXPECT_EQ(checked_add(2, 3), 5u);
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
  EXPECT_EQ(checked_add(0, kMax), kMax);
}

TEST(Checked, AddPastMaxIsNullopt) {
  EXPECT_EQ(checked_add(kMax, 1), std::nullopt);
  EXPECT_EQ(checked_add(kMax / 2 + 1, kMax / 2 + 1), std::nullopt);
}

TEST(Checked, MulWithinRange) {
  EXPECT_EQ(checked_mul(0, kMax), 0u);
  EXPECT_EQ(checked_mul(1, kMax), kMax);
  EXPECT_EQ(checked_mul(std::uint64_t{1} << 32, (std::uint64_t{1} << 32) - 1), kMax - ((std::uint64_t{1} << 32) - 1));
}

TEST(Checked, MulPastMaxIsNullopt) {
  EXPECT_EQ(checked_mul(std::uint64_t{1} << 32, std::uint64_t{1} << 32), std::nullopt);
  EXPECT_EQ(checked_mul(kMax, 2), std::nullopt);
}

// Usable in constant expressions (limits computed at compile time).
static_assert(checked_add(1, 1) == 2u);
static_assert(!checked_mul(kMax, kMax));

}  // namespace
}  // namespace sion::base
