#include "sion/node/event_log.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace sion::node {
namespace {

Event event_for(std::string type, std::uint8_t account = 0) {
  Event event;
  event.type = std::move(type);
  event.data = "{}";
  if (account != 0) {
    commit::Hash id{};
    id[0] = account;
    event.accounts.insert(id);
  }
  return event;
}

commit::Hash account_id(std::uint8_t byte) {
  commit::Hash id{};
  id[0] = byte;
  return id;
}

TEST(EventLog, IdsIncreaseAndLiveSubscribersSeeEveryMatchingEvent) {
  EventLog log;
  std::vector<std::uint64_t> all;
  std::vector<std::uint64_t> of_account_7;
  log.subscribe(0, true, {}, [&](const Event& e) { return all.push_back(e.id), true; });
  log.subscribe(0, true, {account_id(7)}, [&](const Event& e) { return of_account_7.push_back(e.id), true; });
  EXPECT_EQ(log.publish(event_for("pulse")), 1u);
  EXPECT_EQ(log.publish(event_for("transaction", 7)), 2u);
  EXPECT_EQ(log.publish(event_for("transaction", 8)), 3u);
  EXPECT_EQ(all, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(of_account_7, (std::vector<std::uint64_t>{2}));
}

TEST(EventLog, ResumingReplaysWhatWasKeptAndReportsAGap) {
  EventLog log(4);
  for (int i = 0; i < 10; ++i) log.publish(event_for("pulse"));  // keeps 7..10
  std::vector<std::string> seen;
  const auto sink = [&](const Event& e) { return seen.push_back(e.type + std::to_string(e.id)), true; };
  const auto resumed = log.subscribe(8, false, {}, sink);
  EXPECT_FALSE(resumed.gap_from);
  EXPECT_EQ(seen, (std::vector<std::string>{"pulse9", "pulse10"}));
  seen.clear();
  const auto late = log.subscribe(2, false, {}, sink);
  ASSERT_TRUE(late.gap_from);
  EXPECT_EQ(*late.gap_from, 7u);
  EXPECT_EQ(seen, (std::vector<std::string>{"gap0", "pulse7", "pulse8", "pulse9", "pulse10"}));
  seen.clear();
  log.publish(event_for("pulse"));
  EXPECT_EQ(seen, (std::vector<std::string>{"pulse11", "pulse11"}));  // both subscribers
}

TEST(EventLog, ASinkThatRefusesIsDroppedAndOthersContinue) {
  EventLog log;
  int slow_calls = 0;
  std::vector<std::uint64_t> fast;
  log.subscribe(0, true, {}, [&](const Event&) { return ++slow_calls < 2; });  // takes one, then is full
  log.subscribe(0, true, {}, [&](const Event& e) { return fast.push_back(e.id), true; });
  for (int i = 0; i < 5; ++i) log.publish(event_for("pulse"));
  EXPECT_EQ(slow_calls, 2);
  EXPECT_EQ(fast.size(), 5u);
  EXPECT_EQ(log.subscribers(), 1u);
  EXPECT_EQ(log.dropped_subscribers(), 1u);
}

TEST(EventLog, ASubscriberJoiningDuringPublishingMissesAndRepeatsNothing) {
  EventLog log;
  std::atomic<bool> stop{false};
  std::thread publisher([&] {
    while (!stop) log.publish(event_for("pulse"));
  });
  std::vector<std::uint64_t> seen;
  log.subscribe(0, false, {}, [&](const Event& e) { return seen.push_back(e.id), seen.size() < 20000; });
  while (log.last_id() < 30000) std::this_thread::yield();
  stop = true;
  publisher.join();
  ASSERT_GE(seen.size(), 2u);
  for (std::size_t i = 1; i < seen.size(); ++i) ASSERT_EQ(seen[i], seen[i - 1] + 1) << i;
}

}  // namespace
}  // namespace sion::node
