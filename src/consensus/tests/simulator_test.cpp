// The consensus core under the simulator (simulator.hpp): seeds of random
// faults within f, and the scenarios each fault must end in.
//
// SION_SIM_SEEDS=N runs N seeds per chunk instead of the CI's count
// (scripts/simulate); SION_SIM_SEED=S runs seed S alone, to replay a failure.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "simulator.hpp"
#include "sion/base/testing/sanitizers.hpp"

namespace sion::consensus::sim {
namespace {

constexpr int kChunks = 10;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::strtoull(value, nullptr, 10) : fallback;
}

void expect_safe_and_live(const Scenario& scenario) {
  const Outcome outcome = run(scenario);
  EXPECT_TRUE(outcome.safe) << scenario.describe() << "\n  " << outcome.violation;
  EXPECT_TRUE(outcome.live) << scenario.describe() << "\n  " << outcome.liveness_problem;
}

// Seeds chunk*per .. chunk*per + per - 1 for n validators; distinct ranges
// per n so every seed number names one scenario.
void run_chunk(std::uint32_t n, int chunk, std::uint64_t per_chunk_default) {
  const std::uint64_t single = env_u64("SION_SIM_SEED", 0);
  if (single != 0) {
    if (chunk == 0) expect_safe_and_live(Scenario::random(single, n));
    return;
  }
  // Under a sanitizer a run is several times slower; a tenth of the seeds
  // still walks every path for it to check, and the Release run has them all.
  const std::uint64_t sanitized_default = std::max<std::uint64_t>(per_chunk_default / 10, 2);
  const std::uint64_t per =
      env_u64("SION_SIM_SEEDS", base::testing::kSanitized ? sanitized_default : per_chunk_default);
  const std::uint64_t first = std::uint64_t{n} * 1'000'000 + static_cast<std::uint64_t>(chunk) * per + 1;
  for (std::uint64_t seed = first; seed < first + per; ++seed) {
    const Scenario scenario = Scenario::random(seed, n);
    const Outcome outcome = run(scenario);
    ASSERT_TRUE(outcome.safe) << scenario.describe() << "\n  " << outcome.violation
                              << "\n  replay: SION_SIM_SEED=" << seed;
    ASSERT_TRUE(outcome.live) << scenario.describe() << "\n  " << outcome.liveness_problem
                              << "\n  replay: SION_SIM_SEED=" << seed;
  }
}

class FourValidators : public ::testing::TestWithParam<int> {};
TEST_P(FourValidators, RandomFaultsKeepSafetyAndLiveness) { run_chunk(4, GetParam(), 80); }
INSTANTIATE_TEST_SUITE_P(Seeds, FourValidators, ::testing::Range(0, kChunks));

class SevenValidators : public ::testing::TestWithParam<int> {};
TEST_P(SevenValidators, RandomFaultsKeepSafetyAndLiveness) { run_chunk(7, GetParam(), 20); }
INSTANTIATE_TEST_SUITE_P(Seeds, SevenValidators, ::testing::Range(0, kChunks));

TEST(Simulator, HappyPathCommitsAPulseEveryFewRounds) {
  Scenario s;
  s.seed = 7;
  s.min_delay_ms = 2;
  s.max_delay_ms = 5;
  const Outcome outcome = run(s);
  ASSERT_TRUE(outcome.safe) << outcome.violation;
  ASSERT_TRUE(outcome.live) << outcome.liveness_problem;
  EXPECT_TRUE(outcome.halts.empty());
  EXPECT_EQ(outcome.evidence, 0u);
  // 12 s of batches every ~20 ms: Pulses follow the rounds (a few ms each).
  EXPECT_GT(outcome.final_min_height, 300u);
}

// Batches offered faster than they are certified (every 2 ms, against
// links of up to 20 ms): a lane holds at most max_own_uncertified of them
// awaiting a certificate, and Pulses still follow.
TEST(Simulator, ALaneWaitsForItsCertificatesBeforeMakingMore) {
  Scenario s;
  s.seed = 11;
  s.batch_interval_ms = 2;
  s.duration_ms = 4'000;
  const Outcome bounded = run(s);
  ASSERT_TRUE(bounded.safe) << bounded.violation;
  ASSERT_TRUE(bounded.live) << bounded.liveness_problem;
  EXPECT_EQ(bounded.most_own_uncertified, 2u);
  EXPECT_GT(bounded.final_min_height, 50u);
  // The bound is what keeps it so: without it batches pile up.
  s.max_own_uncertified = 16;
  const Outcome unbounded = run(s);
  ASSERT_TRUE(unbounded.safe) << unbounded.violation;
  EXPECT_GT(unbounded.most_own_uncertified, 2u);
}

TEST(Simulator, EveryValidatorRestartingAtOnceResumesFromWhatItSaved) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Scenario s;
    s.seed = seed;
    s.restart_all = true;
    s.lost_writes = seed % 2 == 0;
    const Outcome outcome = run(s);
    ASSERT_TRUE(outcome.safe) << s.describe() << ": " << outcome.violation;
    ASSERT_TRUE(outcome.live) << s.describe() << ": " << outcome.liveness_problem;
    EXPECT_GT(outcome.final_min_height, outcome.height_at_heal) << s.describe();
  }
}

TEST(Simulator, SameSeedSameRun) {
  const Scenario s = Scenario::random(4'000'123, 4);
  const Outcome a = run(s);
  const Outcome b = run(s);
  EXPECT_EQ(a.messages, b.messages);
  EXPECT_EQ(a.commits, b.commits);
  EXPECT_EQ(a.final_max_height, b.final_max_height);
  EXPECT_EQ(a.violation, b.violation);
}

TEST(Simulator, DiskThatFailsHaltsItsValidator) {
  Scenario s;
  s.seed = 11;
  s.storage_faults = 1;
  const Outcome outcome = run(s);
  ASSERT_TRUE(outcome.safe) << outcome.violation;
  ASSERT_TRUE(outcome.live) << outcome.liveness_problem;
  ASSERT_EQ(outcome.halts.size(), 1u);
  EXPECT_NE(outcome.halts[0].find("could not persist"), std::string::npos) << outcome.halts[0];
}

TEST(Simulator, DivergentExecutionHaltsNamingBothRoots) {
  Scenario s;
  s.seed = 12;
  s.bad_executors = 1;
  const Outcome outcome = run(s);
  ASSERT_TRUE(outcome.safe) << outcome.violation;
  ASSERT_EQ(outcome.halts.size(), 1u);
  EXPECT_NE(outcome.halts[0].find("state diverged at height 3"), std::string::npos) << outcome.halts[0];
  EXPECT_NE(outcome.halts[0].find("a quorum certified Pulse"), std::string::npos) << outcome.halts[0];
}

TEST(Simulator, EquivocatingTwinsLeaveEvidence) {
  std::uint64_t evidence = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Scenario s;
    s.seed = seed;
    s.twins = 1;
    const Outcome outcome = run(s);
    ASSERT_TRUE(outcome.safe) << s.describe() << ": " << outcome.violation;
    ASSERT_TRUE(outcome.live) << s.describe() << ": " << outcome.liveness_problem;
    evidence += outcome.evidence;
  }
  EXPECT_GT(evidence, 0u);
}

// The simulator is only worth its seeds if it catches a broken rule.
TEST(Simulator, CatchesAVoteTwiceInARound) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Scenario s = Scenario::random(seed, 4);
    s.twins = 1;
    s.mute = s.storage_faults = s.bad_executors = 0;
    s.unsafe_round_check = true;
    const Outcome outcome = run(s);
    if (!outcome.safe) {
      std::printf("caught: %s: %s\n", s.describe().c_str(), outcome.violation.c_str());
      return;
    }
  }
  ADD_FAILURE() << "200 seeds with the round check skipped and nothing caught";
}

}  // namespace
}  // namespace sion::consensus::sim
