#include "sion/bench/measure.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

namespace sion::bench {
namespace {

using std::chrono::milliseconds;

TEST(Summarize, OddCountMedianIsMiddle) {
  const std::vector<double> samples = {5, 1, 4, 2, 3};
  const Stats stats = summarize(samples);
  EXPECT_EQ(stats.samples, 5u);
  EXPECT_DOUBLE_EQ(stats.median, 3);
  EXPECT_DOUBLE_EQ(stats.p95, 5);  // rank ceil(4.75) = 5
}

TEST(Summarize, EvenCountMedianIsMeanOfMiddlePair) {
  const std::vector<double> samples = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(summarize(samples).median, 2.5);
}

TEST(Summarize, P95IsNearestRank) {
  std::vector<double> samples;
  for (int i = 20; i >= 1; --i) samples.push_back(i);  // 1..20, unsorted
  EXPECT_DOUBLE_EQ(summarize(samples).p95, 19);        // rank ceil(19) = 19
  samples.push_back(21);
  EXPECT_DOUBLE_EQ(summarize(samples).p95, 20);  // rank ceil(19.95) = 20
  EXPECT_DOUBLE_EQ(summarize(samples).median, 11);
}

TEST(Summarize, SingleAndNoSamples) {
  const std::vector<double> one = {7};
  EXPECT_DOUBLE_EQ(summarize(one).median, 7);
  EXPECT_DOUBLE_EQ(summarize(one).p95, 7);
  const Stats none = summarize({});
  EXPECT_EQ(none.samples, 0u);
  EXPECT_EQ(none.median, 0);
}

TEST(Units, SecondsConvert) {
  EXPECT_DOUBLE_EQ(seconds_in(TimeUnit::us, 0.5e-6), 0.5);
  EXPECT_DOUBLE_EQ(seconds_in(TimeUnit::ms, 2.0), 2000);
  EXPECT_EQ(unit_symbol(TimeUnit::us), "µs");
  EXPECT_EQ(unit_symbol(TimeUnit::ms), "ms");
}

TEST(TimePerCall, TrivialOperationInQuickModeIsPositiveAndBounded) {
  const MeasureOptions options = MeasureOptions::for_run(true);
  std::uint64_t x = 1;
  const auto start = std::chrono::steady_clock::now();
  const Stats stats = time_per_call(
      [&x] {
        x = x * 6364136223846793005u + 1442695040888963407u;
        do_not_optimize(x);
      },
      options);
  const auto elapsed = std::chrono::steady_clock::now() - start;

  EXPECT_TRUE(std::isfinite(stats.median));
  EXPECT_GT(stats.median, 0);
  EXPECT_GE(stats.p95, stats.median);
  EXPECT_GE(stats.samples, options.min_samples);
  EXPECT_LE(stats.samples, options.max_samples);
  // Calibrated: a sample is many calls, about min_sample_time long.
  EXPECT_GT(stats.calls_per_sample, 100u);
  EXPECT_GE(stats.median * static_cast<double>(stats.calls_per_sample), 0.5e-3);
  // Warm-up (at most about twice 10 ms) plus 7 samples of about 2 ms; the
  // bound is loose for slow sanitizer builds and busy machines.
  EXPECT_LT(elapsed, std::chrono::seconds(2));
}

TEST(TimePerCall, CalibratesEvenWithoutWarmUp) {
  MeasureOptions options = MeasureOptions::for_run(true);
  options.warmup = milliseconds(0);
  std::uint64_t x = 1;
  const auto start = std::chrono::steady_clock::now();
  const Stats stats = time_per_call(
      [&x] {
        x ^= x << 13;
        do_not_optimize(x);
      },
      options);
  EXPECT_GT(stats.calls_per_sample, 100u);
  EXPECT_GE(stats.median * static_cast<double>(stats.calls_per_sample), 0.5e-3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(TimeEachCall, StopsAtTheBudgetButTakesMinimumSamples) {
  MeasureOptions options = MeasureOptions::for_run(true);
  options.warmup = milliseconds(0);
  options.budget = milliseconds(1);
  int calls = 0;
  const Stats stats = time_each_call(
      [&calls] {
        ++calls;
        std::this_thread::sleep_for(milliseconds(2));
      },
      options);
  EXPECT_EQ(stats.samples, options.min_samples);
  EXPECT_EQ(stats.calls_per_sample, 1u);
  EXPECT_EQ(calls, 1 + static_cast<int>(options.min_samples));  // one warm-up call
  EXPECT_GE(stats.median, 2e-3);
}

TEST(TimeEachCall, StopsAtMaxSamplesWithinBudget) {
  const MeasureOptions options = MeasureOptions::for_run(true);
  const Stats stats = time_each_call([] { std::this_thread::sleep_for(milliseconds(1)); }, options);
  EXPECT_EQ(stats.samples, options.max_samples);
  EXPECT_GE(stats.median, 1e-3);
}

TEST(MeasureOptions, QuickIsShorter) {
  const MeasureOptions normal = MeasureOptions::for_run(false);
  const MeasureOptions quick = MeasureOptions::for_run(true);
  EXPECT_EQ(normal.max_samples, 21u);
  EXPECT_EQ(quick.max_samples, 7u);
  EXPECT_LT(quick.budget, normal.budget);
  EXPECT_LT(quick.warmup, normal.warmup);
  EXPECT_EQ(quick.min_samples, 3u);
}

}  // namespace
}  // namespace sion::bench
