#include "sion/base/result.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace sion::base {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return fail(Errc::invalid_value, std::string("not a digit: ") + c);
  return c - '0';
}

TEST(Result, HoldsValue) {
  auto r = parse_digit('7');
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 7);
  EXPECT_EQ(r.value_or(0), 7);
}

TEST(Result, HoldsErrorWithCodeAndReason) {
  auto r = parse_digit('x');
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::invalid_value);
  EXPECT_EQ(r.error().reason, "not a digit: x");
  EXPECT_EQ(r.error().to_string(), "invalid value: not a digit: x");
  EXPECT_EQ(r.value_or(-1), -1);
}

TEST(Result, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  ASSERT_TRUE(r);
  auto owned = std::move(r).value();
  EXPECT_EQ(*owned, 5);
}

TEST(Result, VoidStatus) {
  Status good;
  EXPECT_TRUE(good.ok());
  Status bad = fail(Errc::io_error, "disk full");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::io_error);
  EXPECT_FALSE(bad.error().is_invalid_input());
}

TEST(Result, ClassifiesInputErrorsApartFromLocalFailures) {
  for (Errc c : {Errc::truncated, Errc::trailing_bytes, Errc::length_over_max, Errc::unknown_tag,
                 Errc::non_canonical, Errc::invalid_value, Errc::invalid_argument,
                 Errc::bad_signature, Errc::not_found}) {
    EXPECT_TRUE(is_invalid_input(c)) << errc_name(c);
  }
  for (Errc c : {Errc::io_error, Errc::corrupt_store, Errc::unsupported, Errc::internal}) {
    EXPECT_FALSE(is_invalid_input(c)) << errc_name(c);
  }
}

}  // namespace
}  // namespace sion::base
