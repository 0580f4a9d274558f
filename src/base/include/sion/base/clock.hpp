#pragma once
// The wall clock in milliseconds since the Unix epoch: what a node stamps on
// blocks, Pulses and mempool entries (never used to measure a duration:
// that is std::chrono::steady_clock's job).

#include <chrono>
#include <cstdint>

namespace sion::base {

inline std::uint64_t unix_time_ms() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

}  // namespace sion::base
