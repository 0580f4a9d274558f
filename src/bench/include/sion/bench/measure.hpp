#pragma once
// Timing helpers for `sion bench`: warm-up, auto-calibrated batches, median
// and 95th percentile. Numbers from these helpers are compared across runs and
// machines (docs/performance.md), so every measurement is taken the same way.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace sion::bench {

// Makes the compiler treat `value` as read (and memory as clobbered), so the
// work that produced it cannot be optimised away or moved out of a loop.
template <class T>
inline void do_not_optimize(const T& value) noexcept {
  __asm__ __volatile__("" : : "m"(value) : "memory");
}

struct MeasureOptions {
  // Time spent running the operation before sampling: caches, branch
  // predictors and the clock frequency settle.
  std::chrono::nanoseconds warmup{std::chrono::milliseconds(50)};
  // time_per_call batches calls so one sample lasts at least this long, which
  // makes the clock's own cost negligible even for sub-microsecond calls.
  std::chrono::nanoseconds min_sample_time{std::chrono::milliseconds(2)};
  // Sampling stops at max_samples, or once this much time has been spent
  // sampling and at least min_samples were taken.
  std::chrono::nanoseconds budget{std::chrono::seconds(1)};
  std::size_t max_samples = 21;
  std::size_t min_samples = 3;

  // The defaults, or the shorter ones of `sion bench --quick`.
  static MeasureOptions for_run(bool quick) noexcept;
};

// Seconds per call.
struct Stats {
  double median = 0;
  double p95 = 0;  // nearest-rank 95th percentile
  std::size_t samples = 0;
  std::uint64_t calls_per_sample = 0;
};

// Median and nearest-rank 95th percentile of per-call times; all zero for no
// samples.
Stats summarize(std::span<const double> seconds_per_call);

enum class TimeUnit { ns, us, ms, s };

std::string_view unit_symbol(TimeUnit unit) noexcept;  // "ns", "µs", "ms", "s"
double seconds_in(TimeUnit unit, double seconds) noexcept;

namespace detail {
using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
// Runs the operation `calls` times in a row; returns the seconds the calls
// took (setup the batch does around them not counted).
using Batch = std::function<double(std::uint64_t calls)>;
enum class Batching { calibrated, one_call };
Stats measure(const Batch& batch, const MeasureOptions& options, Batching batching);
}  // namespace detail

// For cheap operations: calls fn in calibrated batches. fn must feed its
// result to do_not_optimize (or into its next input) so it is not elided.
template <class Fn>
Stats time_per_call(Fn&& fn, const MeasureOptions& options) {
  // The loop lives here, where fn's body is visible and can be inlined; the
  // type-erased call happens once per batch, not once per call.
  return detail::measure(
      [&fn](std::uint64_t calls) {
        const auto start = detail::Clock::now();
        for (std::uint64_t i = 0; i < calls; ++i) fn();
        return detail::seconds_since(start);
      },
      options, detail::Batching::calibrated);
}

// For expensive operations that need fresh input each time: setup() runs
// before every call, outside the clock (a copy to damage, a state to
// mutate); otherwise as time_each_call.
template <class Setup, class Fn>
Stats time_each_call_after(Setup&& setup, Fn&& fn, const MeasureOptions& options) {
  return detail::measure(
      [&setup, &fn](std::uint64_t) {
        setup();
        const auto start = detail::Clock::now();
        fn();
        return detail::seconds_since(start);
      },
      options, detail::Batching::one_call);
}

// For expensive (millisecond-scale) operations: one call per sample, no
// batching, so a slow call is not repeated more than the budget allows.
template <class Fn>
Stats time_each_call(Fn&& fn, const MeasureOptions& options) {
  return time_each_call_after([] {}, fn, options);
}

}  // namespace sion::bench
