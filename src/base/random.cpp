#include "sion/base/random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace sion::base {

Status random_bytes(MutableByteView out) {
  std::size_t done = 0;
  while (done < out.size()) {
    // getrandom returns at most 32 MiB per call and may be interrupted.
    const ssize_t got = getrandom(out.data() + done, out.size() - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      secure_wipe(out.data(), done);
      return fail(Errc::io_error, std::string("getrandom failed: ") + std::strerror(err));
    }
    done += static_cast<std::size_t>(got);
  }
  return {};
}

}  // namespace sion::base
