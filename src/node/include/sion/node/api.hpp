#pragma once
// The node's HTTP API (docs/api.md): the routes, registered on an
// http::Server, each reading the node through its thread-safe interface.
// Submissions are verified on the admission workers, never on the HTTP
// threads.

#include <chrono>
#include <cstdint>
#include <memory>

#include "sion/base/result.hpp"
#include "sion/http/server.hpp"
#include "sion/node/node.hpp"
#include "sion/node/work_queue.hpp"

namespace sion::node {

struct ApiOptions {
  unsigned admission_threads = 0;             // 0: one per core
  std::size_t admission_queue = 4096;         // submissions waiting for a worker; more answer 503
  std::size_t event_buffer_bytes = 4u << 20;  // per subscriber, before it is told it lagged
  std::size_t event_buffer_events = 16384;
};

class Api {
 public:
  Api(Node& node, http::Server& server, ApiOptions options = {});
  ~Api();  // stops the admission workers
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  // Registers every route on the server (before it starts).
  base::Status register_routes();
  // The API's own counters for /metrics.
  std::uint64_t admission_busy() const noexcept { return busy_.load(); }

 private:
  http::Response metrics() const;

  Node& node_;
  http::Server& server_;
  ApiOptions options_;
  WorkQueue admission_;
  std::atomic<std::uint64_t> busy_{0};
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace sion::node
