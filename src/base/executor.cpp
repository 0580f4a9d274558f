#include "sion/base/executor.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <thread>

namespace sion::base {

struct Executor::Arena {
  explicit Arena(int threads) : arena(threads) {}
  tbb::task_arena arena;
};

Executor::Executor(unsigned threads) {
  concurrency_ = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  arena_ = std::make_unique<Arena>(static_cast<int>(concurrency_));
}

Executor::~Executor() = default;

void Executor::run_erased(unsigned count, Erased call, const void* context) {
  if (count == 0) return;
  if (count == 1 || concurrency_ == 1) {
    for (unsigned i = 0; i < count; ++i) call(context, i);
    return;
  }
  // One task per index, handed out statically: the split is the caller's,
  // decided before any thread runs.
  arena_->arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<unsigned>(0, count, 1),
        [&](const tbb::blocked_range<unsigned>& range) {
          for (unsigned i = range.begin(); i != range.end(); ++i) call(context, i);
        },
        tbb::static_partitioner());
  });
}

}  // namespace sion::base
