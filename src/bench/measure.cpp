#include "sion/bench/measure.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sion::bench {
namespace {

// Bounds a batch if the operation was optimised away and costs nothing, so
// the doubling of the warm-up still ends.
constexpr std::uint64_t kMaxCallsPerBatch = std::uint64_t{1} << 32;

// Warm-up batches shorter than this say more about the clock than about the
// operation, so calibration ignores them.
constexpr double kMinCalibrationBatch = 100e-6;

// How often the sampling loop may re-calibrate a batch that came out short.
constexpr int kMaxRecalibrations = 4;

double to_seconds(std::chrono::nanoseconds duration) { return std::chrono::duration<double>(duration).count(); }

}  // namespace

MeasureOptions MeasureOptions::for_run(bool quick) noexcept {
  MeasureOptions options;
  if (quick) {
    options.warmup = std::chrono::milliseconds(10);
    options.budget = std::chrono::milliseconds(200);
    options.max_samples = 7;
  }
  return options;
}

Stats summarize(std::span<const double> seconds_per_call) {
  Stats stats;
  if (seconds_per_call.empty()) return stats;
  std::vector<double> sorted(seconds_per_call.begin(), seconds_per_call.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  stats.samples = n;
  stats.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  // Nearest rank: the smallest sample with at least 95% of samples at or
  // below it, i.e. rank ceil(0.95 n), computed in integers to avoid rounding.
  const std::size_t rank = (95 * n + 99) / 100;
  stats.p95 = sorted[rank - 1];
  return stats;
}

std::string_view unit_symbol(TimeUnit unit) noexcept {
  switch (unit) {
    case TimeUnit::ns: return "ns";
    case TimeUnit::us: return "µs";
    case TimeUnit::ms: return "ms";
    case TimeUnit::s: return "s";
  }
  return "s";
}

double seconds_in(TimeUnit unit, double seconds) noexcept {
  switch (unit) {
    case TimeUnit::ns: return seconds * 1e9;
    case TimeUnit::us: return seconds * 1e6;
    case TimeUnit::ms: return seconds * 1e3;
    case TimeUnit::s: return seconds;
  }
  return seconds;
}

namespace detail {

Stats measure(const Batch& batch, const MeasureOptions& options, Batching batching) {
  const bool calibrate = batching == Batching::calibrated;

  // Warm up, at least one batch (first calls pay for page faults and lazy
  // initialisation). When calibrating, double the batch each time, until one
  // batch at least was long enough to time, and estimate the cost of a call
  // from the fastest such batch: preemption and a slow clock ramp only ever
  // make a batch slower, and an overestimate would make samples too short.
  std::uint64_t calls = 1;
  double warm = 0;
  double per_call = 0;  // 0: no batch long enough to time yet
  for (;;) {
    const double elapsed = batch(calls);
    warm += elapsed;
    if (elapsed >= kMinCalibrationBatch) {
      const double estimate = elapsed / static_cast<double>(calls);
      per_call = per_call == 0 ? estimate : std::min(per_call, estimate);
    }
    const bool warmed = warm >= to_seconds(options.warmup) && (!calibrate || per_call > 0);
    if (warmed || calls == kMaxCallsPerBatch) break;
    if (calibrate) calls *= 2;
  }

  std::uint64_t per_sample = 1;
  if (calibrate) {
    // An operation no batch could time is as cheap as it gets.
    const double wanted = per_call > 0 ? std::ceil(to_seconds(options.min_sample_time) / per_call)
                                       : static_cast<double>(kMaxCallsPerBatch);
    per_sample = static_cast<std::uint64_t>(std::clamp(wanted, 1.0, static_cast<double>(kMaxCallsPerBatch)));
  }

  std::vector<double> samples;
  samples.reserve(std::max(options.min_samples, options.max_samples));
  const double budget = to_seconds(options.budget);
  const double min_sample = to_seconds(options.min_sample_time);
  double spent = 0;
  int recalibrations = 0;
  while (samples.size() < options.min_samples || (samples.size() < options.max_samples && spent < budget)) {
    const double elapsed = batch(per_sample);
    spent += elapsed;
    // One preempted warm-up batch overestimates the cost of a call and makes
    // samples too short to time well. A sample is a longer batch, so a short
    // one re-calibrates from itself and is dropped (a few times at most, so a
    // run always ends).
    if (calibrate && elapsed < min_sample / 2 && recalibrations < kMaxRecalibrations &&
        per_sample < kMaxCallsPerBatch) {
      ++recalibrations;
      const double wanted = std::ceil(static_cast<double>(per_sample) * min_sample / std::max(elapsed, 1e-9));
      per_sample = static_cast<std::uint64_t>(
          std::clamp(wanted, static_cast<double>(per_sample) + 1, static_cast<double>(kMaxCallsPerBatch)));
      continue;
    }
    samples.push_back(elapsed / static_cast<double>(per_sample));
  }

  Stats stats = summarize(samples);
  stats.calls_per_sample = per_sample;
  return stats;
}

}  // namespace detail
}  // namespace sion::bench
