#include "sion/bench/cores.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "sion/base/executor.hpp"

namespace sion::bench {

static_assert(sizeof(cpu_set_t) <= 128, "OneCore keeps the saved mask in 128 bytes");

unsigned usable_cores() noexcept {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max(1, CPU_COUNT(&mask)));
}

namespace {

std::string count_note(unsigned cores) {
  switch (cores) {
    case 1: return "one core";
    case 2: return "two cores";
    default: return fmt::format("{} cores", cores);
  }
}

}  // namespace

std::string cores_note(const base::Executor* executor) {
  return count_note(std::min(base::concurrency(executor), usable_cores()));
}

OneCore::OneCore() noexcept {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  if (sched_getaffinity(0, sizeof saved, &saved) != 0) return;
  std::memcpy(saved_mask_, &saved, sizeof saved);
  saved_ = true;
  const int cpu = sched_getcpu();
  if (cpu < 0 || !CPU_ISSET(static_cast<unsigned>(cpu), &saved)) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(static_cast<unsigned>(cpu), &one);
  pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
}

OneCore::~OneCore() {
  if (!saved_ || !pinned_) return;
  cpu_set_t saved;
  std::memcpy(&saved, saved_mask_, sizeof saved);
  (void)sched_setaffinity(0, sizeof saved, &saved);
}

std::string OneCore::note() const { return pinned_ ? "one core" : count_note(usable_cores()); }

}  // namespace sion::bench
