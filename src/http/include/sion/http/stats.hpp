#pragma once
// The server's counters and request latency histogram, read by the node for
// its metrics (Prometheus exposition uses the bucket bounds as `le`).

#include <array>
#include <cstddef>
#include <cstdint>

namespace sion::http {

// Upper bounds of the latency buckets in microseconds (integers, so the
// exposition is exact); one more bucket counts everything above the last.
inline constexpr std::array<std::uint64_t, 16> kLatencyBoundsMicros = {
    100,    250,     500,     1'000,   2'500,     5'000,     10'000,    25'000,
    50'000, 100'000, 250'000, 500'000, 1'000'000, 2'500'000, 5'000'000, 10'000'000};

struct ServerStats {
  std::uint64_t connections_open = 0;
  std::uint64_t connections_accepted = 0;
  std::uint64_t connections_refused = 0;              // over max_connections
  std::array<std::uint64_t, 5> responses_by_class{};  // [0] 1xx ... [4] 5xx
  std::uint64_t malformed_requests = 0;
  std::uint64_t timeouts = 0;  // header, body, write or idle-with-partial-request
  std::uint64_t rate_limited = 0;
  std::uint64_t handler_errors = 0;  // exceptions and dropped replies
  std::uint64_t sse_streams_open = 0;
  std::uint64_t sse_lagged = 0;
  // Non-cumulative: latency_buckets[i] counts requests with latency <=
  // kLatencyBoundsMicros[i] and above the bound before; the last counts the rest.
  std::array<std::uint64_t, kLatencyBoundsMicros.size() + 1> latency_buckets{};
  std::uint64_t latency_sum_micros = 0;
  std::uint64_t latency_count = 0;
};

}  // namespace sion::http
