#pragma once
// Raw sockets for tests of servers built on this layer (its own and the
// node's API): bytes exactly as a (mis)behaving client sends them, and what
// the server answers, until it closes or one response at a time on a
// kept-alive connection. Header only, for tests.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "sion/http/message.hpp"

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

// One response read off a connection.
struct RawResponse {
  unsigned status = 0;
  std::string head;  // status line and fields, up to the blank line
  std::string body;

  // The value of the first field called `name` (case-insensitive), without
  // surrounding white space; nullopt when there is none.
  std::optional<std::string> field(std::string_view name) const {
    std::string_view rest(head);
    rest.remove_prefix(std::min(rest.size(), rest.find("\r\n")));
    while (rest.size() > 2) {
      rest.remove_prefix(2);
      const std::string_view line = rest.substr(0, rest.find("\r\n"));
      rest.remove_prefix(line.size());
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos || !iequals(line.substr(0, colon), name)) continue;
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
      return std::string(value);
    }
    return std::nullopt;
  }
  // Whether the server closes the connection after this response.
  bool closes() const {
    const auto connection = field("Connection");
    return connection && iequals(*connection, "close");
  }
};

// Reads one response with a Content-Length body (what a server answers a
// request on a kept-alive connection); `pending` carries bytes read past it
// into the next call. nullopt when the connection closed, the read timed out
// or the header is malformed before a whole response came.
inline std::optional<RawResponse> read_response(int fd, std::string& pending) {
  const auto fill = [&] {
    char chunk[16384];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    pending.append(chunk, static_cast<std::size_t>(n));
    return true;
  };
  std::size_t end = 0;
  while ((end = pending.find("\r\n\r\n")) == std::string::npos) {
    if (!fill()) return std::nullopt;
  }
  RawResponse response;
  response.head = pending.substr(0, end);
  response.status = status_of(response.head);
  std::size_t length = 0;
  if (const auto declared = response.field("Content-Length")) {
    const char* last = declared->data() + declared->size();
    if (std::from_chars(declared->data(), last, length).ptr != last) return std::nullopt;
  }
  if (response.status == 0) return std::nullopt;
  const std::size_t total = end + 4 + length;
  while (pending.size() < total) {
    if (!fill()) return std::nullopt;
  }
  response.body = pending.substr(end + 4, length);
  pending.erase(0, total);
  return response;
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
