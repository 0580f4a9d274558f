#pragma once
// Fork-join over a few threads, for work split once, up front, so that
// results never depend on scheduling (tree hashing, signature checks).

#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace sion::base {

// The threads to use for `threads` (0: one per core).
inline unsigned thread_count(unsigned threads) noexcept {
  return threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// Runs task(i) for every i < count, task(0) on this thread. A thread that
// cannot be started has its share done here, so results never depend on
// how many threads ran.
template <class Task>
void run_parallel(unsigned count, const Task& task) {
  std::vector<std::thread> workers;
  workers.reserve(count);
  unsigned started = 1;
  try {
    for (; started < count; ++started) workers.emplace_back([&task, started] { task(started); });
  } catch (const std::system_error&) {
  }
  for (unsigned i = started; i < count; ++i) task(i);
  task(0);
  for (auto& worker : workers) worker.join();
}

// Runs task(slice, begin, end) over `slices` even slices of [0, count).
template <class Task>
void for_slices(std::size_t count, unsigned slices, const Task& task) {
  slices = std::max(1u, slices);
  run_parallel(slices, [&](unsigned i) { task(i, count * i / slices, count * (i + 1) / slices); });
}

}  // namespace sion::base
