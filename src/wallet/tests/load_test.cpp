#include "sion/wallet/load.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include "fake_node.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/wallet/devnet.hpp"
#include "sion/wallet/load_plan.hpp"
#include "sion/wallet/tx_batch.hpp"

namespace sion::wallet {
namespace {

using testing::Json;

// Simulated time: a thread that sleeps waits until every thread taking
// part sleeps, then time jumps to the earliest wake-up.
class SimulatedClock final : public LoadClock {
 public:
  std::int64_t now_us() override {
    const std::lock_guard lock(mutex_);
    return now_;
  }
  void sleep_until_us(std::int64_t when) override {
    std::unique_lock lock(mutex_);
    const auto me = sleepers_.insert(when);
    advance();
    changed_.wait(lock, [&] { return now_ >= when; });
    sleepers_.erase(me);
  }
  void enter() override {
    const std::lock_guard lock(mutex_);
    ++participants_;
  }
  void leave() override {
    const std::lock_guard lock(mutex_);
    --participants_;
    advance();
  }

 private:
  void advance() {  // under the lock
    if (sleepers_.empty() || sleepers_.size() < participants_) return;
    now_ = std::max(now_, *sleepers_.begin());
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::multiset<std::int64_t> sleepers_;
  std::size_t participants_ = 0;
  std::int64_t now_ = 1'000'000;
};

TEST(Load, PercentilesAreNearestRank) {
  const std::vector<std::uint64_t> values{15, 20, 35, 40, 50};
  EXPECT_EQ(nearest_rank(values, 5), 15u);  // rank ceil(0.25) = 1
  EXPECT_EQ(nearest_rank(values, 30), 20u);
  EXPECT_EQ(nearest_rank(values, 40), 20u);  // rank 2 exactly
  EXPECT_EQ(nearest_rank(values, 50), 35u);
  EXPECT_EQ(nearest_rank(values, 100), 50u);
  EXPECT_EQ(nearest_rank({}, 50), 0u);
  std::vector<std::uint64_t> hundred;
  for (std::uint64_t i = 100; i >= 1; --i) hundred.push_back(i);
  const auto stats = latency_stats(hundred);
  EXPECT_EQ(stats.count, 100u);
  EXPECT_EQ(stats.p50_us, 50u);
  EXPECT_EQ(stats.p95_us, 95u);
  EXPECT_EQ(stats.p99_us, 99u);
  EXPECT_EQ(stats.max_us, 100u);
  EXPECT_EQ(due_us(10, 3, 1000), 3010);
  EXPECT_EQ(due_us(0, 1, 3), 333333);
}

exec::Id id_of(std::uint64_t i) {
  exec::Id id{};
  for (std::size_t b = 0; b < 8; ++b) id[b] = static_cast<std::uint8_t>(i >> (8 * b));
  id[31] = 0x5a;
  return id;
}

std::uint64_t index_of(const exec::Id& id) {
  std::uint64_t i = 0;
  for (std::size_t b = 0; b < 8; ++b) i |= std::uint64_t{id[b]} << (8 * b);
  return i;
}

// A node whose "transactions" are their ids: those of index 3 mod 10 refused
// as dust and index 21 for a full pool, index 7 lost in transport; the rest
// execute 100 + 10 (i mod 10) ms after submission, but index 44 is evicted
// and index 55 never executes.
struct FakeLoadNode {
  std::mutex mutex;
  std::map<exec::Id, std::int64_t> submitted_at;
  LoadClock* clock = nullptr;

  // Batches: (time sent, first index, count) of each request.
  std::vector<std::tuple<std::int64_t, std::uint64_t, std::size_t>> batches;

  // One transaction's answer, as the single route gives it (nullopt: admitted).
  std::optional<HttpReply> refusal(const exec::Id& id) {
    const auto i = index_of(id);
    if (i % 10 == 3) return testing::error_reply(422, "dust_output", "output 0 pays 5");
    if (i == 21) return testing::error_reply(503, "pool_full", "full");
    const std::lock_guard lock(mutex);
    submitted_at[id] = clock->now_us();
    return std::nullopt;
  }

  HttpCall call() {
    return [this](std::string_view, std::string_view path, std::string_view body,
                  std::string_view) -> base::Result<HttpReply> {
      if (path == "/v1/transactions/batch") return batch(body);
      EXPECT_EQ(path, "/v1/transactions");
      exec::Id id{};
      std::copy(body.begin(), body.end(), id.begin());
      if (index_of(id) == 7) return base::fail(base::Errc::io_error, "connection reset");
      if (auto refused = refusal(id)) return *refused;
      return testing::json_reply(202, Json{{"tx_id", base::to_hex(id)}, {"status", "pending"}});
    };
  }

  // A batch holding index 7 is lost in transport; otherwise each item is
  // answered as the single route would.
  base::Result<HttpReply> batch(std::string_view body) {
    const auto decoded = codec::decode<TxBatchBody>(base::as_bytes(body));
    EXPECT_TRUE(decoded);
    Json results = Json::array();
    std::vector<exec::Id> ids;
    for (const auto& element : *decoded) {
      exec::Id id{};
      std::copy(element.begin(), element.end(), id.begin());
      ids.push_back(id);
    }
    {
      const std::lock_guard lock(mutex);
      batches.emplace_back(clock->now_us(), index_of(ids.front()), ids.size());
    }
    for (const exec::Id& id : ids) {
      if (index_of(id) == 7) return base::fail(base::Errc::io_error, "connection reset");
    }
    for (const exec::Id& id : ids) {
      if (auto refused = refusal(id)) {
        const ApiError error = parse_api_error(refused->status, refused->content_type, refused->body);
        results.push_back(
            Json{{"tx_id", base::to_hex(id)}, {"error", {{"code", error.code}, {"message", error.message}}}});
      } else {
        results.push_back(Json{{"tx_id", base::to_hex(id)}, {"status", "pending"}});
      }
    }
    return testing::json_reply(200, Json{{"results", results}});
  }
  static std::int64_t latency(std::uint64_t i) { return 100'000 + 10'000 * static_cast<std::int64_t>(i % 10); }
};

class FakeObserver final : public ExecutionObserver {
 public:
  explicit FakeObserver(FakeLoadNode& node) : node_(node) {}
  base::Result<std::vector<Observed>> poll(std::span<const exec::Id> outstanding, LoadClock& clock) override {
    ++polls;
    std::vector<Observed> out;
    const std::lock_guard lock(node_.mutex);
    for (const auto& id : outstanding) {
      const auto i = index_of(id);
      const std::int64_t at = node_.submitted_at.at(id) + FakeLoadNode::latency(i);
      if (i == 44) {
        out.push_back({id, at, "evicted"});
      } else if (i != 55 && at <= clock.now_us()) {  // 55 never executes
        out.push_back({id, at, "executed"});
      }
    }
    return out;
  }
  int polls = 0;

 private:
  FakeLoadNode& node_;
};

// 1,500 "transactions" (their ids) for the fake node, 1,000 of them sent at
// 1,000 tx/s over three submitters on a simulated clock.
struct SimulatedRun {
  LoadPlan plan;
  SimulatedClock clock;
  FakeLoadNode node;
  FakeObserver observer{node};
  std::vector<HttpCall> submitters;
  LoadOptions options;

  SimulatedRun() {
    for (std::uint64_t i = 0; i < 1500; ++i) {
      const auto id = id_of(i);
      plan.txs.push_back({id, base::Bytes(id.begin(), id.end())});
    }
    node.clock = &clock;
    submitters = {node.call(), node.call(), node.call()};
    options.rate = 1000;
    options.duration_ms = 1000;  // 1,000 of the 1,500
    options.drain_ms = 2000;
    options.poll_interval_ms = 50;
  }
};

TEST(Load, PacesAndCountsOnASimulatedClock) {
  SimulatedRun run;
  LoadPlan& plan = run.plan;
  SimulatedClock& clock = run.clock;
  FakeObserver& observer = run.observer;
  const std::vector<HttpCall>& submitters = run.submitters;
  LoadOptions& options = run.options;
  std::vector<LoadProgress> progress;
  const auto report =
      run_load(plan, submitters, observer, clock, options, [&](const LoadProgress& p) { progress.push_back(p); });
  ASSERT_TRUE(report) << report.error().to_string();
  EXPECT_EQ(report->planned, 1500u);
  EXPECT_EQ(report->to_send, 1000u);
  EXPECT_EQ(report->submitted, 1000u);
  EXPECT_EQ(report->refused, 101u);
  EXPECT_EQ(report->refused_by_code.at("dust_output"), 100u);
  EXPECT_EQ(report->refused_by_code.at("pool_full"), 1u);
  EXPECT_EQ(report->failed, 1u);
  EXPECT_EQ(report->first_failure, "I/O error: POST /v1/transactions: connection reset");
  EXPECT_EQ(report->admitted, 898u);
  EXPECT_EQ(report->removed_by_status.at("evicted"), 1u);
  EXPECT_EQ(report->executed, 896u);  // all admitted but 44 (evicted) and 55 (never)
  // Paced exactly: the window is 1,000 due times 1 ms apart.
  EXPECT_EQ(report->send_window_us, 1'000'000);
  EXPECT_EQ(report->admitted_per_s, 898u);
  // Drained until the drain time ran out waiting for 55: sending ended at
  // the first poll after the last submission (1,000 ms), then 2 s.
  EXPECT_EQ(report->run_us, 3'000'000);
  // The last execution: index 999 (latency 190 ms) at 999 ms + 190 ms.
  EXPECT_EQ(report->executed_per_s, 896u * 1'000'000u / 1'189'000u);
  // Latencies: 100 + 10 (i mod 10) ms, for each residue but 3 about 90 times.
  EXPECT_EQ(report->latency.count, 896u);
  EXPECT_EQ(report->latency.p50_us, 150'000u);
  EXPECT_EQ(report->latency.p95_us, 190'000u);
  EXPECT_EQ(report->latency.p99_us, 190'000u);
  EXPECT_EQ(report->latency.max_us, 190'000u);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.size(), 60u);  // every 50 ms for 3 s
  EXPECT_TRUE(progress.back().draining);
  EXPECT_EQ(progress.back().executed, 896u);
  EXPECT_EQ(format_progress(progress[9]).substr(0, 7), "0.5 s: ");
  EXPECT_NE(format_report(*report).find("dust_output 100"), std::string::npos) << format_report(*report);
  EXPECT_EQ(observer.polls, 60);

  EXPECT_EQ(run_load(plan, {}, observer, clock, options).error().code, base::Errc::invalid_argument);
}

TEST(Load, BatchesAreSentWhenTheirLastIsDueAndCountedPerItem) {
  SimulatedRun run;
  const std::int64_t start = run.clock.now_us();
  run.options.batch = 8;
  const auto report = run_load(run.plan, run.submitters, run.observer, run.clock, run.options);
  ASSERT_TRUE(report) << report.error().to_string();
  EXPECT_EQ(report->submitted, 1000u);
  // The batch of indexes 0 ..= 7 was lost: its 8 failed (3 among them).
  EXPECT_EQ(report->failed, 8u);
  EXPECT_EQ(report->first_failure, "I/O error: POST /v1/transactions/batch: connection reset");
  EXPECT_EQ(report->refused_by_code.at("dust_output"), 99u);
  EXPECT_EQ(report->refused_by_code.at("pool_full"), 1u);
  EXPECT_EQ(report->refused, 100u);
  EXPECT_EQ(report->admitted, 892u);
  EXPECT_EQ(report->executed, 890u);  // all admitted but 44 (evicted) and 55 (never)
  EXPECT_EQ(report->send_window_us, 1'000'000);
  // Latency counts from the batch's send time: still 100 + 10 (i mod 10) ms.
  EXPECT_EQ(report->latency.count, 890u);
  EXPECT_EQ(report->latency.max_us, 190'000u);
  EXPECT_EQ(report->latency.p50_us, 150'000u);
  // 125 requests of 8 consecutive transactions, each sent when its last was due.
  ASSERT_EQ(run.node.batches.size(), 125u);
  for (const auto& [at, first, count] : run.node.batches) {
    EXPECT_EQ(count, 8u);
    EXPECT_EQ(first % 8, 0u);
    EXPECT_EQ(at, due_us(start, first + 7, 1000)) << first;
  }

  for (const std::uint64_t bad : {std::uint64_t{0}, std::uint64_t{kMaxBatchTransactions + 1}}) {
    run.options.batch = bad;
    EXPECT_EQ(run_load(run.plan, run.submitters, run.observer, run.clock, run.options).error().code,
              base::Errc::invalid_argument);
  }
}

TEST(Load, QueuedObservationsMayComeBeforeTheAdmission) {
  ObservedQueue queue;
  queue.push({id_of(1), 5, "executed"});
  SteadyClock clock;
  const auto first = queue.poll({}, clock);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_TRUE(queue.poll({}, clock)->empty());
}

TEST(Load, PollsTransactionStatus) {
  const HttpCall call = [](std::string_view, std::string_view path, std::string_view,
                           std::string_view) -> base::Result<HttpReply> {
    const std::string prefix = "/v1/transactions/";
    if (path == prefix + base::to_hex(id_of(1))) {
      return testing::json_reply(200, Json{{"status", "evicted"}, {"reason", "pool full"}});
    }
    if (path == prefix + base::to_hex(id_of(2))) return testing::json_reply(200, Json{{"status", "pending"}});
    return testing::error_reply(404, "not_found", "never seen");
  };
  TxStatusPoller poller(call, 2);
  SteadyClock clock;
  const std::vector<exec::Id> outstanding{id_of(1), id_of(2), id_of(3)};
  const auto first = poller.poll(outstanding, clock);  // ids 1 and 2
  ASSERT_TRUE(first) << first.error().to_string();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].tx_id, id_of(1));
  EXPECT_EQ((*first)[0].status, "evicted");
  EXPECT_FALSE((*first)[0].executed());
  const auto second = poller.poll({&outstanding[2], 1}, clock);  // only failures: the error
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, base::Errc::not_found);
}

TEST(Load, RefreshesAccountsFromTheNode) {
  std::vector<LoadAccount> accounts;
  auto signer = crypto::SigningBundle::from_seed(crypto::Profile::dual, testing::seed_of(3)).value();
  const exec::Id id = exec::account_id(signer.public_bundle());
  accounts.push_back({std::move(signer), id, 0, {}, 0});
  Json coins = Json::array();
  const HttpCall call = [&](std::string_view, std::string_view path, std::string_view,
                            std::string_view) -> base::Result<HttpReply> {
    EXPECT_EQ(path, "/v1/accounts/" + base::to_hex(id));
    return testing::json_reply(200, Json{{"id", base::to_hex(id)},
                                         {"height", 9},
                                         {"exists", true},
                                         {"nonce", 4},
                                         {"keys_id", base::to_hex(testing::hash_of_byte(1))},
                                         {"coins", coins},
                                         {"balance", 0}});
  };
  NodeApi api(call);
  EXPECT_EQ(refresh_accounts(api, accounts).error().code, base::Errc::invalid_value);  // no coins
  coins = {{{"id", base::to_hex(testing::hash_of_byte(5))}, {"amount", 10}},
           {{"id", base::to_hex(testing::hash_of_byte(6))}, {"amount", 30}},
           {{"id", base::to_hex(testing::hash_of_byte(7))}, {"amount", 20}}};
  ASSERT_TRUE(refresh_accounts(api, accounts));
  EXPECT_EQ(accounts[0].nonce, 4u);
  EXPECT_EQ(accounts[0].coin, testing::hash_of_byte(6));
  EXPECT_EQ(accounts[0].amount, 30u);
}

// Real keys, real chains: the plan's transfers all execute, in one Pulse,
// against the genesis state they start from.
TEST(Load, PlansChainsThatExecute) {
  base::testing::TempDir dir;
  DevnetSpec spec;
  spec.accounts = 2;
  spec.chain_id = 3;
  spec.amount = 1'000'000;
  spec.coins_per_account = 2;
  spec.genesis_path = dir / "genesis.json";
  const auto devnet = write_devnet(spec);
  ASSERT_TRUE(devnet) << devnet.error().to_string();
  const auto accounts = load_accounts(devnet->genesis, devnet->key_dir);
  ASSERT_TRUE(accounts) << accounts.error().to_string();
  ASSERT_EQ(accounts->size(), 2u);
  EXPECT_EQ((*accounts)[1].coin, exec::genesis_coin_id(2));

  base::Executor executor(2);
  PlanOptions options;
  options.per_account = 3;
  options.executor = &executor;
  std::vector<std::uint64_t> progress;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, 6u);
    progress.push_back(done);
  };
  const auto plan = plan_transfers(*accounts, devnet->genesis.params, options);
  ASSERT_TRUE(plan) << plan.error().to_string();
  ASSERT_EQ(plan->txs.size(), 6u);
  EXPECT_EQ(progress.back(), 6u);

  std::vector<exec::Transaction> txs;
  for (const auto& planned : plan->txs) {
    auto tx = codec::decode<exec::Transaction>(planned.encoding);
    ASSERT_TRUE(tx) << tx.error().to_string();
    EXPECT_EQ(exec::tx_id(tx->payload), planned.id);
    txs.push_back(std::move(tx).value());
  }
  EXPECT_EQ(txs[2].payload.nonce, 1u);  // round 1, account 0
  EXPECT_EQ(txs[2].payload.sender, (*accounts)[0].id);
  const auto pre = exec::MemoryState::from_writes(exec::genesis_writes(devnet->genesis));
  ASSERT_TRUE(pre);
  const auto outcome = exec::execute_pulse(*pre, txs, devnet->genesis.params, 1);
  ASSERT_TRUE(outcome) << outcome.error().to_string();
  for (const auto& receipt : outcome->receipts) EXPECT_EQ(receipt.status, exec::TxStatus::success);

  // Coins too small for the chain.
  options.per_account = 100;
  const auto poor = plan_transfers(*accounts, devnet->genesis.params, options);
  ASSERT_FALSE(poor);
  EXPECT_EQ(poor.error().code, base::Errc::invalid_argument);
}

}  // namespace
}  // namespace sion::wallet
