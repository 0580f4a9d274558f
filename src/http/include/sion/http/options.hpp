#pragma once
// What an operator can set on the HTTP server; every limit and its default is
// described in docs/http.md.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sion::http {

// A token bucket per client address: `requests_per_second` refill, `burst`
// capacity. requests_per_second == 0 turns limiting off.
struct RateLimit {
  std::uint32_t requests_per_second = 0;
  std::uint32_t burst = 0;      // 0: the same as requests_per_second
  bool exempt_loopback = true;  // 127.0.0.0/8 and ::1 are never limited
};

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 8730;  // 0: an ephemeral port, Server::port() after start()
  unsigned io_threads = 2;
  std::size_t max_body_bytes = 4 * 1024 * 1024;        // larger bodies get 413
  std::size_t max_header_bytes = 8 * 1024;             // request line and fields; larger get 431
  std::size_t max_connections = 1024;                  // over it, a new connection is closed at once
  std::chrono::milliseconds header_timeout{10'000};    // accept (or first byte) to complete header
  std::chrono::milliseconds request_timeout{30'000};   // complete header to complete body; also each write
  std::chrono::milliseconds idle_timeout{60'000};      // keep-alive wait for the next request
  std::uint64_t max_requests_per_connection = 10'000;  // then the answer says Connection: close
  RateLimit rate_limit;
  // Server-sent events.
  std::chrono::milliseconds sse_keepalive{15'000};   // ": keep-alive" comment when nothing else was sent
  std::size_t sse_max_buffered_bytes = 1024 * 1024;  // per subscriber, not yet written to the socket
  std::size_t sse_max_buffered_events = 4096;
  std::chrono::milliseconds sse_lagged_grace{5'000};  // to deliver the final `lagged` event, then close
};

}  // namespace sion::http
