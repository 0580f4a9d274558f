#include "sion/consensus/validator_set.hpp"

#include <gtest/gtest.h>

namespace sion::consensus {
namespace {

TEST(ValidatorSet, QuorumAndAvailabilityThresholds) {
  const auto four = ValidatorSet::create({1, 1, 1, 1});
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(four->quorum(), 3u);
  EXPECT_EQ(four->availability(), 2u);
  const auto seven = ValidatorSet::create({1, 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(seven->quorum(), 5u);
  EXPECT_EQ(seven->availability(), 3u);
  const auto weighted = ValidatorSet::create({10, 20, 30, 40});
  EXPECT_EQ(weighted->total(), 100u);
  EXPECT_EQ(weighted->quorum(), 67u);
  EXPECT_EQ(weighted->availability(), 34u);
}

TEST(ValidatorSet, RefusesBadSets) {
  EXPECT_FALSE(ValidatorSet::create({}).ok());
  EXPECT_FALSE(ValidatorSet::create({1, 0}).ok());
  EXPECT_FALSE(ValidatorSet::create(std::vector<std::uint64_t>(kMaxValidators + 1, 1)).ok());
  EXPECT_FALSE(ValidatorSet::create({std::uint64_t{1} << 61, std::uint64_t{1} << 61}).ok());
}

TEST(ValidatorSet, LeadersFollowStake) {
  const auto set = ValidatorSet::create({1, 1, 2, 4});
  std::vector<int> led(4, 0);
  for (Round r = 1; r <= 8000; ++r) ++led[set->leader(r)];
  // Expected 1000, 1000, 2000, 4000 rounds.
  EXPECT_NEAR(led[0], 1000, 150);
  EXPECT_NEAR(led[1], 1000, 150);
  EXPECT_NEAR(led[2], 2000, 200);
  EXPECT_NEAR(led[3], 4000, 250);
  EXPECT_EQ(set->leader(1), ValidatorSet::create({1, 1, 2, 4})->leader(1));
}

TEST(ValidatorSet, AscendingStakeCountsEachValidatorOnce) {
  const auto set = ValidatorSet::create({5, 6});
  const auto self = [](ValidatorIndex v) { return v; };
  EXPECT_EQ(set->ascending_stake(std::vector<ValidatorIndex>{1}, self), 6u);
  EXPECT_EQ(set->ascending_stake(std::vector<ValidatorIndex>{0, 1}, self), 11u);
  EXPECT_FALSE(set->ascending_stake(std::vector<ValidatorIndex>{1, 1}, self));  // counted already
  EXPECT_FALSE(set->ascending_stake(std::vector<ValidatorIndex>{1, 0}, self));  // out of order
  EXPECT_FALSE(set->ascending_stake(std::vector<ValidatorIndex>{2}, self));     // no such validator
}

}  // namespace
}  // namespace sion::consensus
