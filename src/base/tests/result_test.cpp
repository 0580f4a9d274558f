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
  for (Errc c : {Errc::truncated, Errc::trailing_bytes, Errc::length_over_max, Errc::unknown_tag, Errc::non_canonical,
                 Errc::invalid_value, Errc::invalid_argument, Errc::bad_signature, Errc::not_found}) {
    EXPECT_TRUE(is_invalid_input(c)) << errc_name(c);
  }
  for (Errc c : {Errc::io_error, Errc::corrupt_store, Errc::unsupported, Errc::internal}) {
    EXPECT_FALSE(is_invalid_input(c)) << errc_name(c);
  }
}

// ---- SION_TRY ------------------------------------------------------------

int g_context_evaluations = 0;

std::string counted_context(std::string text) {
  ++g_context_evaluations;
  return text;
}

Result<int> sum_of_digits(std::string_view text) {
  int sum = 0;
  for (char c : text) {
    SION_TRY(const int digit, parse_digit(c));
    sum += digit;
  }
  return sum;
}

Status check_digits(std::string_view text) {
  for (char c : text) SION_TRY_STATUS(parse_digit(c));  // a value, ignored
  return {};
}

Result<int> digit_with_context(char c) {
  SION_TRY_CONTEXT(auto digit, counted_context("reading a digit"), parse_digit(c));
  return digit * 2;
}

Status status_with_context(std::string_view text) {
  SION_TRY_STATUS_CONTEXT(counted_context("checking '" + std::string(text) + "'"), check_digits(text));
  return {};
}

TEST(Try, DeclaresTheValueOrReturnsTheError) {
  auto good = sum_of_digits("123");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 6);
  auto bad = sum_of_digits("12x4");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_value);
  EXPECT_EQ(bad.error().reason, "not a digit: x");
}

TEST(Try, StatusFormStopsAtTheFirstError) {
  EXPECT_TRUE(check_digits("0987").ok());
  auto bad = check_digits("0a b");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().reason, "not a digit: a");
}

TEST(Try, AssignsToAnExistingLvalueAndMovesFromTemporaries) {
  const auto make = [](bool ok) -> Result<std::unique_ptr<int>> {
    if (!ok) return fail(Errc::not_found, "none");
    return std::make_unique<int>(5);
  };
  const auto use = [&](bool ok) -> Result<int> {
    std::unique_ptr<int> target;
    SION_TRY(target, make(ok));  // move-only: must be moved, not copied
    SION_TRY(auto again, make(ok));
    return *target + *again;
  };
  EXPECT_EQ(*use(true), 10);
  EXPECT_EQ(use(false).error().code, Errc::not_found);
}

TEST(Try, LeavesANamedResultIntact) {
  // From an lvalue the value and the error are copied, not moved out of it.
  Result<std::string> named = std::string("kept");
  const auto copy = [&]() -> Result<std::size_t> {
    SION_TRY(auto text, named);
    return text.size();
  };
  EXPECT_EQ(*copy(), 4u);
  EXPECT_EQ(*named, "kept");
  named = fail(Errc::io_error, "disk");
  EXPECT_EQ(copy().error().reason, "disk");
  EXPECT_EQ(named.error().reason, "disk");
}

TEST(Try, ContextPrefixesTheReasonKeepsTheCodeAndIsLazy) {
  g_context_evaluations = 0;
  EXPECT_EQ(*digit_with_context('4'), 8);
  EXPECT_TRUE(status_with_context("42").ok());
  EXPECT_EQ(g_context_evaluations, 0);

  auto bad = digit_with_context('?');
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_value);
  EXPECT_EQ(bad.error().reason, "reading a digit: not a digit: ?");
  auto bad_status = status_with_context("4-");
  ASSERT_FALSE(bad_status.ok());
  EXPECT_EQ(bad_status.error().reason, "checking '4-': not a digit: -");
  EXPECT_EQ(g_context_evaluations, 2);
}

TEST(Error, WithContextNests) {
  Error error{Errc::io_error, "no space left"};
  error = std::move(error).with_context("writing 'g.json'").with_context("sion genesis");
  EXPECT_EQ(error.code, Errc::io_error);
  EXPECT_EQ(error.reason, "sion genesis: writing 'g.json': no space left");
}

}  // namespace
}  // namespace sion::base
