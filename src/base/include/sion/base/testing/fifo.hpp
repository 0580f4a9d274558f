#pragma once
// For tests that a reader refuses a FIFO instead of blocking on it (header
// only): runs the read on another thread and, if it has not returned within
// five seconds, opens the FIFO's write end so that the blocked read returns
// and the test can fail instead of hanging.

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <utility>

namespace sion::base::testing {

// read()'s result, or nullopt if it blocked.
template <class Read>
auto read_unless_blocked(const std::string& fifo, Read read) -> std::optional<decltype(read())> {
  auto reading = std::async(std::launch::async, std::move(read));
  if (reading.wait_for(std::chrono::seconds(5)) == std::future_status::ready) return reading.get();
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  if (fd >= 0) ::close(fd);
  reading.wait();
  return std::nullopt;
}

}  // namespace sion::base::testing
