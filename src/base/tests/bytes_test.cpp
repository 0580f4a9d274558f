#include "sion/base/bytes.hpp"

#include <gtest/gtest.h>

namespace sion::base {
namespace {

TEST(Hex, RoundTrip) {
  const Bytes data{0x00, 0x01, 0xab, 0xff};
  EXPECT_EQ(to_hex(data), "0001abff");
  auto back = from_hex("0001ABff");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, data);
  EXPECT_TRUE(from_hex("").ok());
}

TEST(Hex, RejectsOddLengthAndBadDigits) {
  auto odd = from_hex("abc");
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().code, Errc::invalid_value);
  EXPECT_NE(odd.error().reason.find("odd length"), std::string::npos);
  auto bad = from_hex("00g0");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().reason.find("position 2"), std::string::npos);
}

TEST(Bytes, ConstantTimeEqual) {
  const Bytes a{1, 2, 3};
  const Bytes b{1, 2, 4};
  EXPECT_TRUE(constant_time_equal(a, a));
  EXPECT_FALSE(constant_time_equal(a, b));
  EXPECT_FALSE(constant_time_equal(a, Bytes{1, 2}));
}

TEST(Bytes, SecureWipe) {
  Bytes secret{9, 9, 9, 9};
  secure_wipe(secret.data(), secret.size());
  EXPECT_EQ(secret, Bytes(4, 0));
}

}  // namespace
}  // namespace sion::base
