#pragma once
// Fork-join over a few threads, for the trees' hashing: the work of one call
// is split once, up front, so results never depend on scheduling.

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace sion::commit::detail {

// The threads to use for `threads` (0: one per core).
inline unsigned thread_count(unsigned threads) noexcept {
  return threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// Runs task(i) for every i < count, task(0) on this thread.
template <class Task>
void run_parallel(unsigned count, const Task& task) {
  std::vector<std::thread> workers;
  workers.reserve(count);
  for (unsigned i = 1; i < count; ++i) workers.emplace_back([&task, i] { task(i); });
  task(0);
  for (auto& worker : workers) worker.join();
}

// Runs task(slice, begin, end) over `slices` even slices of [0, count).
template <class Task>
void for_slices(std::size_t count, unsigned slices, const Task& task) {
  slices = std::max(1u, slices);
  run_parallel(slices, [&](unsigned i) { task(i, count * i / slices, count * (i + 1) / slices); });
}

}  // namespace sion::commit::detail
