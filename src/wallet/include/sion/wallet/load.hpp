#pragma once
// The load generator's run: a paced sender and an observer of executions
// over a LoadPlan, and the report of what came of it.
//
// Pacing: transaction i (in plan order) is due at start + i / rate; several
// submitters, each with its own HttpCall, take the next transaction in
// turn, wait until it is due and submit it, recording the submit time (when
// the request was sent) per tx id. With a batch size N > 1 a submitter
// takes the next N transactions instead, waits until the last of them is due
// and sends them in one POST /v1/transactions/batch; each records the time
// the batch was sent and is counted from its own result, as a single
// submission's would be. The run's own thread polls an
// ExecutionObserver (events or tx status queries) every poll interval for
// admitted transactions that have executed, records their execution time
// and reports progress. After the sending window it waits up to drain_ms for
// the admitted transactions still outstanding.
//
// Time comes from a LoadClock, so a test drives the whole run on a simulated
// clock with a fake transport. The submitter threads are the run's own:
// started by run_load and joined before it returns.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/wallet/http_call.hpp"
#include "sion/wallet/load_plan.hpp"
#include "sion/wallet/node_api.hpp"

namespace sion::wallet {

// Microseconds on some monotonic clock.
class LoadClock {
 public:
  virtual ~LoadClock() = default;
  virtual std::int64_t now_us() = 0;
  virtual void sleep_until_us(std::int64_t when) = 0;
  // The run announces the threads that take part (enter() once per thread
  // before any starts, leave() as each ends): a simulated clock advances only
  // while every one sleeps. A real clock ignores them.
  virtual void enter() {}
  virtual void leave() {}
};

// std::chrono::steady_clock.
class SteadyClock final : public LoadClock {
 public:
  std::int64_t now_us() override;
  void sleep_until_us(std::int64_t when) override;
};

// A transaction seen done: executed, or removed from the mempool
// (evicted, expired, replaced, dropped) and never to execute.
struct Observed {
  exec::Id tx_id{};
  std::int64_t at_us = 0;  // on the run's clock
  std::string status = "executed";
  std::uint64_t height = 0;  // executed: the Pulse's height
  bool executed() const noexcept { return status == "executed"; }
};

class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  // Called on the run's thread every poll interval with the admitted
  // transactions not yet seen done; returns those now seen done (others may
  // be returned too, and are kept until their admission is recorded).
  virtual base::Result<std::vector<Observed>> poll(std::span<const exec::Id> outstanding, LoadClock& clock) = 0;
  // Whether the observer sees Pulse certificates; then certified_at(h) is
  // when the certificate of Pulse h was seen on the run's clock, once it was.
  virtual bool sees_certificates() const { return false; }
  virtual std::optional<std::int64_t> certified_at(std::uint64_t /*height*/) { return std::nullopt; }
};

// Queries GET /v1/transactions/{id} for up to `per_poll` outstanding
// transactions a poll, taking them in turn.
class TxStatusPoller final : public ExecutionObserver {
 public:
  explicit TxStatusPoller(HttpCall call, std::size_t per_poll = 256) : api_(std::move(call)), per_poll_(per_poll) {}
  base::Result<std::vector<Observed>> poll(std::span<const exec::Id> outstanding, LoadClock& clock) override;

 private:
  NodeApi api_;
  std::size_t per_poll_;
  std::size_t cursor_ = 0;
};

// Observations pushed by another thread (an event stream's reader, which
// stamps each with the run's clock), handed over at each poll.
class ObservedQueue final : public ExecutionObserver {
 public:
  void push(Observed observed);
  // The certificate of Pulse `height` seen at `at_us` (the first time counts).
  void certify(std::uint64_t height, std::int64_t at_us);
  base::Result<std::vector<Observed>> poll(std::span<const exec::Id> outstanding, LoadClock& clock) override;
  bool sees_certificates() const override { return true; }
  std::optional<std::int64_t> certified_at(std::uint64_t height) override;

 private:
  std::mutex mutex_;
  std::vector<Observed> queue_;
  std::map<std::uint64_t, std::int64_t> certified_;
};

struct LoadOptions {
  std::uint64_t rate = 1000;             // transactions per second, at least 1
  std::uint64_t duration_ms = 10'000;    // the sending window: rate * duration_ms / 1000 transactions at most
  std::uint64_t drain_ms = 30'000;       // after it, how long to wait for executions
  std::uint64_t poll_interval_ms = 200;  // observer polls and progress reports
  std::uint64_t batch = 1;  // transactions per request: 1 (POST /v1/transactions) ..= kMaxBatchTransactions
};

struct LoadProgress {
  std::int64_t elapsed_us = 0;
  std::uint64_t to_send = 0;
  std::uint64_t submitted = 0;
  std::uint64_t admitted = 0;
  std::uint64_t refused = 0;
  std::uint64_t failed = 0;  // transport errors and replies that break docs/api.md
  std::uint64_t executed = 0;
  bool draining = false;  // sending is over
};
// One line: "12.4 s: submitted 1200/5000, admitted 1198, refused 2, failed 0, executed 900".
std::string format_progress(const LoadProgress& progress);
using LoadProgressCallback = std::function<void(const LoadProgress&)>;

struct LatencyStats {
  std::uint64_t count = 0;
  std::uint64_t p50_us = 0;
  std::uint64_t p95_us = 0;
  std::uint64_t p99_us = 0;
  std::uint64_t max_us = 0;
};

struct LoadReport {
  std::uint64_t planned = 0;
  std::uint64_t to_send = 0;  // min(planned, rate * duration)
  std::uint64_t submitted = 0;
  std::uint64_t admitted = 0;
  std::uint64_t refused = 0;
  std::map<std::string, std::uint64_t> refused_by_code;  // the node's error code ("" if it sent none)
  std::uint64_t failed = 0;
  std::string first_failure;  // what the first failure was
  std::uint64_t executed = 0;
  std::map<std::string, std::uint64_t> removed_by_status;  // admitted, then evicted, expired, ...
  std::int64_t send_window_us = 0;   // from the start to the later of the last reply and the last due time
  std::int64_t run_us = 0;           // from the start to the end of the drain
  std::uint64_t admitted_per_s = 0;  // admitted * 10^6 / send_window_us
  std::uint64_t executed_per_s = 0;  // executed * 10^6 / (last execution - start)
  LatencyStats latency;              // submit -> executed, over the executed transactions
  // submit -> the certificate of the transaction's Pulse seen, over the
  // executed transactions whose certificate was seen (observers that see
  // certificates; the run waits up to 5 s after the drain for them).
  LatencyStats finality;
};
std::string format_report(const LoadReport& report);

// Transaction `index`'s due time: start + floor(index * 10^6 / rate) µs.
std::int64_t due_us(std::int64_t start_us, std::uint64_t index, std::uint64_t rate) noexcept;

// The nearest-rank percentile (p in 1 ..= 100) of ascending values: the
// value at rank ceil(p n / 100); 0 for no values.
std::uint64_t nearest_rank(std::span<const std::uint64_t> sorted, unsigned p) noexcept;
LatencyStats latency_stats(std::vector<std::uint64_t> latencies_us);

// Sends `plan` through `submitters` (at least one; one thread each) as
// `options` paces it. invalid_argument for no submitters, a rate of 0, a
// poll interval of 0 or a batch size outside 1 ..= kMaxBatchTransactions; every other problem (a refusal, a transport error, a
// failed poll) is counted in the report, and the run goes on.
base::Result<LoadReport> run_load(const LoadPlan& plan, std::span<const HttpCall> submitters,
                                  ExecutionObserver& observer, LoadClock& clock, const LoadOptions& options,
                                  const LoadProgressCallback& progress = {});

}  // namespace sion::wallet
