#include "sion/wallet/load.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <thread>
#include <utility>

#include "sion/wallet/tx_batch.hpp"

namespace sion::wallet {
namespace {

using base::Errc;

constexpr std::uint64_t kMicros = 1'000'000;

bool is_removal(std::string_view status) {
  return status == "evicted" || status == "expired" || status == "replaced" || status == "dropped";
}

std::string seconds_text(std::int64_t us) {
  const std::int64_t tenths = std::max<std::int64_t>(us, 0) / 100'000;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " s";
}

// What the run records, shared by its threads under one mutex.
struct RunState {
  struct Record {
    std::int64_t submit_at = -1;
    std::int64_t done_at = -1;
    std::uint64_t height = 0;
    bool admitted = false;
    bool executed = false;
  };

  explicit RunState(const LoadPlan& plan, std::uint64_t to_send) : records(to_send) {
    for (std::uint64_t i = 0; i < to_send; ++i) index_of.emplace(plan.txs[i].id, i);
  }

  std::mutex mutex;
  std::vector<Record> records;
  std::map<exec::Id, std::uint64_t, commit::HashOrder> index_of;     // never changes after construction
  std::map<exec::Id, std::uint64_t, commit::HashOrder> outstanding;  // admitted, not yet seen done
  std::map<std::uint64_t, Observed> early;                           // seen done before its admission was recorded
  LoadReport report;
  std::int64_t last_reply_at = 0;

  void fail(const base::Error& error) {
    ++report.failed;
    if (report.first_failure.empty()) report.first_failure = error.to_string();
  }

  void done(std::uint64_t index, const Observed& observed) {
    Record& record = records[index];
    record.done_at = observed.at_us;
    record.height = observed.height;
    if (observed.executed()) {
      record.executed = true;
      ++report.executed;
    } else {
      ++report.removed_by_status[observed.status];
    }
  }

  void submitted(std::uint64_t index, std::int64_t sent_at, std::int64_t reply_at,
                 const base::Result<Submission>& result) {
    const std::lock_guard lock(mutex);
    records[index].submit_at = sent_at;
    ++report.submitted;
    last_reply_at = std::max(last_reply_at, reply_at);
    if (!result) return fail(result.error());
    if (result->refusal) {
      ++report.refused;
      ++report.refused_by_code[result->refusal->code];
      return;
    }
    ++report.admitted;
    records[index].admitted = true;
    if (const auto seen = early.find(index); seen != early.end()) {
      done(index, seen->second);
      early.erase(seen);
    } else {
      outstanding.emplace(result->tx_id, index);
    }
  }

  void observed(const std::vector<Observed>& seen) {
    const std::lock_guard lock(mutex);
    for (const auto& item : seen) {
      if (const auto it = outstanding.find(item.tx_id); it != outstanding.end()) {
        done(it->second, item);
        outstanding.erase(it);
        continue;
      }
      const auto planned = index_of.find(item.tx_id);
      if (planned == index_of.end()) continue;  // not ours
      const Record& record = records[planned->second];
      if (!record.admitted && record.done_at < 0) early.emplace(planned->second, item);
    }
  }

  LoadProgress progress(std::int64_t elapsed, bool draining) {
    const std::lock_guard lock(mutex);
    return {elapsed,        report.to_send, report.submitted, report.admitted,
            report.refused, report.failed,  report.executed,  draining};
  }

  std::vector<exec::Id> outstanding_ids() {
    const std::lock_guard lock(mutex);
    std::vector<exec::Id> ids;
    ids.reserve(outstanding.size());
    for (const auto& [id, index] : outstanding) ids.push_back(id);
    return ids;
  }
};

}  // namespace

std::int64_t SteadyClock::now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void SteadyClock::sleep_until_us(std::int64_t when) {
  std::this_thread::sleep_until(std::chrono::steady_clock::time_point(std::chrono::microseconds(when)));
}

base::Result<std::vector<Observed>> TxStatusPoller::poll(std::span<const exec::Id> outstanding, LoadClock& clock) {
  std::vector<Observed> out;
  if (outstanding.empty() || per_poll_ == 0) return out;
  const std::size_t count = std::min(per_poll_, outstanding.size());
  std::size_t failures = 0;
  std::optional<base::Error> last;
  for (std::size_t j = 0; j < count; ++j) {
    const exec::Id& id = outstanding[(cursor_ + j) % outstanding.size()];
    auto state = api_.tx_status(id);
    if (!state) {
      ++failures;
      last = std::move(state).error();
      continue;
    }
    if (state->executed() || is_removal(state->status)) out.push_back({id, clock.now_us(), state->status});
  }
  cursor_ += count;
  if (failures == count && last) return base::fail(std::move(*last));
  return out;
}

void ObservedQueue::push(Observed observed) {
  const std::lock_guard lock(mutex_);
  queue_.push_back(std::move(observed));
}

void ObservedQueue::certify(std::uint64_t height, std::int64_t at_us) {
  const std::lock_guard lock(mutex_);
  certified_.emplace(height, at_us);
}

std::optional<std::int64_t> ObservedQueue::certified_at(std::uint64_t height) {
  const std::lock_guard lock(mutex_);
  const auto found = certified_.find(height);
  if (found == certified_.end()) return std::nullopt;
  return found->second;
}

base::Result<std::vector<Observed>> ObservedQueue::poll(std::span<const exec::Id>, LoadClock&) {
  const std::lock_guard lock(mutex_);
  return std::exchange(queue_, {});
}

std::string format_progress(const LoadProgress& p) {
  return seconds_text(p.elapsed_us) + ": submitted " + std::to_string(p.submitted) + "/" + std::to_string(p.to_send) +
         ", admitted " + std::to_string(p.admitted) + ", refused " + std::to_string(p.refused) + ", failed " +
         std::to_string(p.failed) + ", executed " + std::to_string(p.executed) + (p.draining ? " (draining)" : "");
}

std::string format_report(const LoadReport& r) {
  std::string out = "planned " + std::to_string(r.planned) + ", sent " + std::to_string(r.submitted) + " of " +
                    std::to_string(r.to_send) + " in " + seconds_text(r.send_window_us) + "\n";
  out += "admitted " + std::to_string(r.admitted) + " (" + std::to_string(r.admitted_per_s) + " tx/s)\n";
  out += "refused " + std::to_string(r.refused);
  for (const auto& [code, count] : r.refused_by_code) {
    out += ", " + (code.empty() ? std::string("(no code)") : code) + " " + std::to_string(count);
  }
  out += "\nfailed " + std::to_string(r.failed) + (r.first_failure.empty() ? "" : " (first: " + r.first_failure + ")");
  out += "\nexecuted " + std::to_string(r.executed) + " (" + std::to_string(r.executed_per_s) + " tx/s)";
  for (const auto& [status, count] : r.removed_by_status) out += ", " + status + " " + std::to_string(count);
  out += "\nlatency submit -> executed (us): p50 " + std::to_string(r.latency.p50_us) + ", p95 " +
         std::to_string(r.latency.p95_us) + ", p99 " + std::to_string(r.latency.p99_us) + ", max " +
         std::to_string(r.latency.max_us) + " over " + std::to_string(r.latency.count) + "\n";
  return out;
}

std::int64_t due_us(std::int64_t start_us, std::uint64_t index, std::uint64_t rate) noexcept {
  // index < 2^32 (a plan's bound) keeps index * 10^6 within 64 bits.
  return start_us + static_cast<std::int64_t>(index * kMicros / (rate == 0 ? 1 : rate));
}

std::uint64_t nearest_rank(std::span<const std::uint64_t> sorted, unsigned p) noexcept {
  if (sorted.empty()) return 0;
  const std::uint64_t n = sorted.size();
  const std::uint64_t rank = std::max<std::uint64_t>(1, (std::uint64_t{p} * n + 99) / 100);
  return sorted[std::min(rank, n) - 1];
}

LatencyStats latency_stats(std::vector<std::uint64_t> latencies_us) {
  std::sort(latencies_us.begin(), latencies_us.end());
  LatencyStats stats;
  stats.count = latencies_us.size();
  stats.p50_us = nearest_rank(latencies_us, 50);
  stats.p95_us = nearest_rank(latencies_us, 95);
  stats.p99_us = nearest_rank(latencies_us, 99);
  stats.max_us = latencies_us.empty() ? 0 : latencies_us.back();
  return stats;
}

base::Result<LoadReport> run_load(const LoadPlan& plan, std::span<const HttpCall> submitters,
                                  ExecutionObserver& observer, LoadClock& clock, const LoadOptions& options,
                                  const LoadProgressCallback& progress) {
  if (submitters.empty() || options.rate == 0 || options.poll_interval_ms == 0) {
    return base::fail(Errc::invalid_argument, "a load run needs a submitter, a rate and a poll interval");
  }
  if (options.batch == 0 || options.batch > kMaxBatchTransactions) {
    return base::fail(Errc::invalid_argument, "a load run's batch size is 1 to " +
                                                  std::to_string(kMaxBatchTransactions) + ", not " +
                                                  std::to_string(options.batch));
  }
  const std::uint64_t budget = options.rate * options.duration_ms / 1000;
  RunState state(plan, std::min<std::uint64_t>(plan.txs.size(), budget));
  const std::uint64_t to_send = state.records.size();
  state.report.planned = plan.txs.size();
  state.report.to_send = to_send;
  const auto interval = static_cast<std::int64_t>(options.poll_interval_ms * 1000);
  const auto drain = static_cast<std::int64_t>(options.drain_ms * 1000);

  const std::size_t count = submitters.size();
  for (std::size_t i = 0; i <= count; ++i) clock.enter();  // this thread and every submitter
  const std::int64_t start = clock.now_us();
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::size_t> finished{0};
  const std::uint64_t batch = options.batch;
  const auto submit_loop = [&](const HttpCall& call) {
    NodeApi api(call);
    std::vector<base::ByteView> encodings;
    std::vector<exec::Id> ids;
    for (;;) {
      const std::uint64_t first = next.fetch_add(batch);
      if (first >= to_send) break;
      const std::uint64_t end = std::min(to_send, first + batch);
      // No transaction leaves before it is due: a batch waits for its last.
      clock.sleep_until_us(due_us(start, end - 1, options.rate));
      const std::int64_t sent_at = clock.now_us();
      if (batch == 1) {
        auto result = api.submit_encoded(plan.txs[first].encoding, plan.txs[first].id);
        state.submitted(first, sent_at, clock.now_us(), result);
        continue;
      }
      encodings.clear();
      ids.clear();
      for (std::uint64_t i = first; i < end; ++i) {
        encodings.emplace_back(plan.txs[i].encoding);
        ids.push_back(plan.txs[i].id);
      }
      const auto results = api.submit_batch(encodings, ids);
      const std::int64_t reply_at = clock.now_us();
      for (std::uint64_t i = first; i < end; ++i) {
        state.submitted(i, sent_at, reply_at,
                        results ? base::Result<Submission>((*results)[i - first])
                                : base::Result<Submission>(base::fail(results.error())));
      }
    }
    finished.fetch_add(1);
    clock.leave();
  };

  std::vector<std::thread> threads;
  threads.reserve(count);
  try {
    for (std::size_t s = 0; s < count; ++s) threads.emplace_back(submit_loop, std::cref(submitters[s]));
  } catch (const std::exception& e) {
    next.store(to_send);
    for (std::size_t s = threads.size(); s < count; ++s) clock.leave();
    clock.leave();
    for (auto& thread : threads) thread.join();
    return base::fail(Errc::io_error, std::string("starting a load submitter: ") + e.what());
  }

  std::int64_t next_poll = start + interval;
  std::int64_t send_end = -1;
  for (;;) {
    clock.sleep_until_us(next_poll);
    next_poll += interval;
    const std::vector<exec::Id> ids = state.outstanding_ids();
    auto seen = observer.poll(ids, clock);
    const std::int64_t now = clock.now_us();
    if (seen) {
      state.observed(*seen);
    } else {
      const std::lock_guard lock(state.mutex);
      state.fail(seen.error());
    }
    const bool sent = finished.load() == count;
    if (sent && send_end < 0) send_end = now;
    if (progress) progress(state.progress(now - start, sent));
    if (sent) {
      const std::lock_guard lock(state.mutex);
      if ((state.outstanding.empty() && state.early.empty()) || now >= send_end + drain) break;
    }
  }
  const std::int64_t end = clock.now_us();
  if (observer.sees_certificates()) {
    // Certificates follow execution by a round of Pulse votes.
    std::uint64_t highest = 0;
    for (const auto& record : state.records) {
      if (record.executed) highest = std::max(highest, record.height);
    }
    const std::int64_t give_up = end + 5 * static_cast<std::int64_t>(kMicros);
    while (highest != 0 && !observer.certified_at(highest) && clock.now_us() < give_up) {
      clock.sleep_until_us(clock.now_us() + interval);
    }
  }
  clock.leave();
  for (auto& thread : threads) thread.join();

  LoadReport report = std::move(state.report);
  report.run_us = end - start;
  report.send_window_us =
      std::max<std::int64_t>(1, std::max(state.last_reply_at, due_us(start, to_send, options.rate)) - start);
  report.admitted_per_s = report.admitted * kMicros / static_cast<std::uint64_t>(report.send_window_us);
  std::vector<std::uint64_t> latencies;
  std::int64_t last_execution = start;
  for (const auto& record : state.records) {
    if (!record.executed) continue;
    last_execution = std::max(last_execution, record.done_at);
    latencies.push_back(static_cast<std::uint64_t>(std::max<std::int64_t>(0, record.done_at - record.submit_at)));
  }
  report.executed_per_s =
      report.executed * kMicros / static_cast<std::uint64_t>(std::max<std::int64_t>(1, last_execution - start));
  report.latency = latency_stats(std::move(latencies));
  std::vector<std::uint64_t> finality;
  for (const auto& record : state.records) {
    if (!record.executed) continue;
    if (const auto certified = observer.certified_at(record.height)) {
      finality.push_back(static_cast<std::uint64_t>(std::max<std::int64_t>(0, *certified - record.submit_at)));
    }
  }
  report.finality = latency_stats(std::move(finality));
  return report;
}

}  // namespace sion::wallet
