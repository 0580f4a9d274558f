#include "sion/net/free_ports.hpp"

#include <gtest/gtest.h>

namespace sion::net {
namespace {

TEST(FreePorts, FindsABlockThatBindsAndRefusesAnEmptyOne) {
  const auto first = free_loopback_ports(8);
  ASSERT_TRUE(first) << first.error().to_string();
  EXPECT_GE(*first, 20'000);
  EXPECT_LE(*first + 8, 60'000);
  for (std::uint16_t i = 0; i < 8; ++i) EXPECT_TRUE(loopback_port_free(static_cast<std::uint16_t>(*first + i)));
  EXPECT_EQ(free_loopback_ports(0).error().code, base::Errc::invalid_argument);
}

}  // namespace
}  // namespace sion::net
