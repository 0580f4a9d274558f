#pragma once
// The executor: the threads that parallel code runs on, owned by whoever
// calls that code (a node holds one for execution, a test or the bench its
// own), never started behind the caller's back. Parallel functions take an
// `Executor*`; nullptr runs everything on the calling thread.
//
// Work is always split up front into a fixed number of tasks, each writing
// only its own results, so results never depend on how many threads ran or
// which thread ran what.
//
// Built on oneTBB's task arenas: persistent worker threads, nested parallel
// calls that cannot deadlock (a waiting thread runs other tasks), and a
// per-executor limit on concurrency, so an API pool and an execution pool
// share a machine predictably.

#include <cstddef>
#include <memory>

namespace sion::base {

class Executor {
 public:
  // At most `threads` tasks run at once, the calling thread's included
  // (0: one per hardware thread).
  explicit Executor(unsigned threads = 0);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // How many tasks may run at once: the split that keeps every thread busy.
  unsigned concurrency() const noexcept { return concurrency_; }

  // Runs task(i) for every i < count, each exactly once; returns when all
  // have run. The calling thread takes part.
  template <class Task>
  void run(unsigned count, const Task& task) {
    run_erased(
        count, [](const void* context, unsigned i) { (*static_cast<const Task*>(context))(i); }, &task);
  }

 private:
  using Erased = void (*)(const void*, unsigned);
  void run_erased(unsigned count, Erased call, const void* context);

  struct Arena;
  std::unique_ptr<Arena> arena_;
  unsigned concurrency_ = 1;
};

// The tasks worth splitting work into on `executor` (1 without one).
inline unsigned concurrency(const Executor* executor) noexcept {
  return executor != nullptr ? executor->concurrency() : 1;
}

// Runs task(i) for every i < count: on `executor`, or in order on this
// thread without one.
template <class Task>
void run_parallel(Executor* executor, unsigned count, const Task& task) {
  if (executor == nullptr || count <= 1) {
    for (unsigned i = 0; i < count; ++i) task(i);
    return;
  }
  executor->run(count, task);
}

// Runs task(slice, begin, end) over `slices` even slices of [0, count).
template <class Task>
void for_slices(Executor* executor, std::size_t count, unsigned slices, const Task& task) {
  slices = slices == 0 ? 1 : slices;
  run_parallel(executor, slices, [&](unsigned i) { task(i, count * i / slices, count * (i + 1) / slices); });
}

}  // namespace sion::base
