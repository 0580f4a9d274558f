#include "sion/base/executor.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace sion::base {
namespace {

TEST(Executor, RunsEveryTaskExactlyOnce) {
  for (unsigned threads : {1u, 2u, 4u}) {
    Executor executor(threads);
    EXPECT_EQ(executor.concurrency(), threads);
    for (unsigned count : {0u, 1u, 2u, 3u, 17u, 1000u}) {
      std::vector<std::atomic<int>> runs(count);
      executor.run(count, [&](unsigned i) { runs[i].fetch_add(1); });
      for (unsigned i = 0; i < count; ++i) EXPECT_EQ(runs[i].load(), 1) << threads << " threads, task " << i;
    }
  }
}

TEST(Executor, ZeroMeansOnePerHardwareThread) {
  Executor executor(0);
  EXPECT_EQ(executor.concurrency(), std::max(1u, std::thread::hardware_concurrency()));
}

TEST(Executor, WithoutOneEverythingRunsInOrderOnThisThread) {
  std::vector<unsigned> order;
  const auto self = std::this_thread::get_id();
  run_parallel(nullptr, 5, [&](unsigned i) {
    EXPECT_EQ(std::this_thread::get_id(), self);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<unsigned>{0, 1, 2, 3, 4}));
  EXPECT_EQ(concurrency(nullptr), 1u);
}

// Two tasks that each wait for the other finish only if they run at once.
TEST(Executor, TwoThreadsRunTasksAtTheSameTime) {
  Executor executor(2);
  std::atomic<int> arrived{0};
  std::atomic<bool> met{true};
  executor.run(2, [&](unsigned) {
    arrived.fetch_add(1);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 2) {
      if (std::chrono::steady_clock::now() > give_up) {
        met = false;
        return;
      }
      std::this_thread::yield();
    }
  });
  EXPECT_TRUE(met.load());
}

TEST(Executor, NestedRunsComplete) {
  Executor executor(2);
  std::atomic<unsigned> total{0};
  executor.run(4, [&](unsigned) { executor.run(8, [&](unsigned) { total.fetch_add(1); }); });
  EXPECT_EQ(total.load(), 32u);
}

TEST(Executor, CallersOnSeveralThreadsShareOneExecutor) {
  Executor executor(2);
  std::atomic<unsigned> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 3; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round) executor.run(16, [&](unsigned) { total.fetch_add(1); });
    });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(total.load(), 3u * 20u * 16u);
}

TEST(Executor, SlicesCoverTheRangeOnce) {
  Executor executor(3);
  for (std::size_t count : {0ul, 1ul, 10ul, 1001ul}) {
    for (unsigned slices : {0u, 1u, 3u, 7u}) {
      std::vector<std::atomic<int>> seen(count);
      for_slices(&executor, count, slices, [&](unsigned, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) seen[i].fetch_add(1);
      });
      for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(seen[i].load(), 1);
    }
  }
}

}  // namespace
}  // namespace sion::base
