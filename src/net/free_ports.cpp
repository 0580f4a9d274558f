#include "sion/net/free_ports.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <string>

namespace sion::net {

bool loopback_port_free(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return bound;
}

base::Result<std::uint16_t> free_loopback_ports(std::uint16_t count, int attempts) {
  constexpr int kLowest = 20'000;
  constexpr int kEnd = 60'000;
  if (count == 0 || count >= kEnd - kLowest) {
    return base::fail(base::Errc::invalid_argument, "a block of " + std::to_string(count) + " ports");
  }
  std::random_device entropy;
  std::uniform_int_distribution<int> pick(kLowest, kEnd - count);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const auto first = static_cast<std::uint16_t>(pick(entropy));
    bool all = true;
    for (std::uint16_t i = 0; all && i < count; ++i) all = loopback_port_free(static_cast<std::uint16_t>(first + i));
    if (all) return first;
  }
  return base::fail(base::Errc::io_error, "found no " + std::to_string(count) + " consecutive free loopback ports in " +
                                              std::to_string(attempts) + " tries");
}

}  // namespace sion::net
