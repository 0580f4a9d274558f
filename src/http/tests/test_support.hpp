#pragma once
// Raw sockets for the server tests: bytes exactly as a (mis)behaving client
// sends them, and everything the server answers until it closes.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

namespace sion::http::testing {

// A connected socket to 127.0.0.1:port (-1 on failure); reads time out
// after `read_timeout`. `receive_buffer` > 0 shrinks SO_RCVBUF first.
inline int connect_raw(std::uint16_t port, std::chrono::milliseconds read_timeout = std::chrono::milliseconds(5000),
                       int receive_buffer = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (receive_buffer > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(read_timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((read_timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

struct ReadResult {
  std::string bytes;
  bool closed = false;  // the server closed (EOF or reset), rather than a read timeout
};

// Reads until the server closes, the read times out, or `max` bytes came.
inline ReadResult read_until_close(int fd, std::size_t max = 1 << 24) {
  ReadResult result;
  char chunk[16384];
  while (result.bytes.size() < max) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n > 0) {
      result.bytes.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    result.closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
    break;
  }
  return result;
}

// Reads until `needle` appears (or close/timeout).
inline std::string read_until(int fd, std::string_view needle) {
  std::string bytes;
  char chunk[4096];
  while (bytes.find(needle) == std::string::npos) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    bytes.append(chunk, static_cast<std::size_t>(n));
  }
  return bytes;
}

// The status code of the first response in `bytes`, 0 when there is none.
inline unsigned status_of(std::string_view bytes) {
  if (bytes.size() < 12 || bytes.substr(0, 5) != "HTTP/") return 0;
  return static_cast<unsigned>(std::stoul(std::string(bytes.substr(9, 3))));
}

// Polls `done` every few milliseconds until it holds or `limit` passes.
template <class Predicate>
bool eventually(Predicate done, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Raises the soft descriptor limit towards `wanted` (up to the hard limit); returns the soft limit after.
inline rlim_t raise_fd_limit(rlim_t wanted) {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < wanted) {
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &limit);
    ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur;
}

}  // namespace sion::http::testing
