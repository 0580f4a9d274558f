#include "sion/base/thread_name.hpp"

#include <pthread.h>

#include <algorithm>
#include <array>

namespace sion::base {

void name_this_thread(std::string_view name) noexcept {
  std::array<char, 16> buffer{};  // the kernel's TASK_COMM_LEN, with the terminator
  const std::size_t length = std::min(name.size(), buffer.size() - 1);
  std::copy_n(name.data(), length, buffer.data());
  // Naming is a courtesy: a failure changes nothing the node does.
  (void)pthread_setname_np(pthread_self(), buffer.data());
}

}  // namespace sion::base
