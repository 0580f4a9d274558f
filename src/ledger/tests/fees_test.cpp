// Fees and Pulse budgets (docs/ledger.md, "Fees and budgets").
#include "sion/ledger/fees.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace sion::ledger {
namespace {

constexpr Amount kMax = std::numeric_limits<Amount>::max();

TEST(Fees, RequiredFeeIsBytesAndUnitsPriced) {
  EXPECT_EQ(required_fee(100, 3, {2, 5}).value(), 215u);
  EXPECT_EQ(required_fee(0, 0, {2, 5}).value(), 0u);
  EXPECT_EQ(required_fee(kMax, 0, {1, 9}).value(), kMax);
}

TEST(Fees, RequiredFeeOverflowIsAnError) {
  EXPECT_FALSE(required_fee(2, 0, {Amount{1} << 63, 0}).ok());  // product
  EXPECT_FALSE(required_fee(0, 3, {0, kMax / 2}).ok());         // product
  EXPECT_FALSE(required_fee(1, 1, {kMax, 1}).ok());             // sum
  const auto failure = required_fee(1, 1, {kMax, 1});
  EXPECT_EQ(failure.error().code, base::Errc::invalid_value);
}

TEST(Fees, UsageFitsEachLimitUpToAndIncludingIt) {
  const PulseLimits limits{/*units*/ 100, /*auth*/ 200, /*bytes*/ 300, /*txs*/ 4};
  const PulseUsage have{3, 250, 150, 60};
  EXPECT_TRUE(have.fits({1, 50, 50, 40}, limits));  // every limit met exactly
  EXPECT_FALSE(have.fits({2, 0, 0, 0}, limits));    // transactions
  EXPECT_FALSE(have.fits({0, 51, 0, 0}, limits));   // bytes
  EXPECT_FALSE(have.fits({0, 0, 51, 0}, limits));   // auth bytes
  EXPECT_FALSE(have.fits({0, 0, 0, 41}, limits));   // verify units
  PulseUsage sum = have;
  sum.add({1, 50, 50, 40});
  EXPECT_EQ(sum, (PulseUsage{4, 300, 200, 100}));
  // A sum past 2^64 - 1 does not fit, even under a limit of 2^64 - 1.
  const PulseLimits open{kMax, kMax, kMax, 0xffffffffu};
  EXPECT_FALSE((PulseUsage{0, kMax, 0, 0}).fits({0, 1, 0, 0}, open));
}

}  // namespace
}  // namespace sion::ledger
