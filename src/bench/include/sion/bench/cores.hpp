#pragma once
// The cores a measurement ran on, for its note (docs/performance.md: every
// note is generated from what ran): the threads a parallel call resolves to,
// and pinning a measurement to one core, so that a row named "one core"
// stays on one even where the code it times starts helper threads.

#include <string>

#include "sion/base/executor.hpp"

namespace sion::bench {

// Cores this process may run on (its CPU affinity mask); at least 1.
unsigned usable_cores() noexcept;

// "one core", "two cores" or "N cores" for a call run on `executor`
// (nullptr: the calling thread alone), capped at the usable cores: threads
// beyond them share a core.
std::string cores_note(const base::Executor* executor);

// While alive, this thread and every thread it starts run on the one core
// it was on; the destructor restores the mask. pinned() is false where the
// affinity could not be set (the note must not then say "one core").
class OneCore {
 public:
  OneCore() noexcept;
  ~OneCore();
  OneCore(const OneCore&) = delete;
  OneCore& operator=(const OneCore&) = delete;

  bool pinned() const noexcept { return pinned_; }
  // "one core" when pinned, else what usable_cores() allows.
  std::string note() const;

 private:
  bool pinned_ = false;
  bool saved_ = false;
  unsigned char saved_mask_[128] = {};  // a cpu_set_t, kept opaque here
};

}  // namespace sion::bench
