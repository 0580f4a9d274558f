#pragma once
// The node's HTTP API (docs/api.md): the routes, registered on an
// http::Server, each reading the node through its thread-safe interface.
// Submissions are verified on the admission workers, never on the HTTP
// threads.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/http/server.hpp"
#include "sion/node/node.hpp"
#include "sion/node/submission_body.hpp"
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
  // The codes of POST /v1/transactions (and batch item) refusals made
  // before the mempool sees the transaction: the content type, the JSON,
  // the hex, the codec.
  static constexpr std::array<std::string_view, 4> kSubmissionErrorCodes = {"unsupported_media_type", "bad_json",
                                                                            "bad_hex", "bad_encoding"};
  // How many submissions were refused with each of them, in that order.
  std::vector<std::pair<std::string_view, std::uint64_t>> submission_errors() const;

 private:
  http::Response metrics() const;
  // The error answer to a submission refused with one of kSubmissionErrorCodes, counted.
  http::Response refuse_submission(unsigned status, std::string_view code, std::string_view message);
  // Counts a refusal when `code` is one of kSubmissionErrorCodes.
  void count_refusal(std::string_view code);
  // POST /v1/transactions/batch once its body is read: decodes the elements
  // and submits them in chunks on the admission workers; the last chunk to
  // finish answers.
  struct Batch;
  void submit_batch(std::vector<BatchElement> elements, http::Reply reply);

  Node& node_;
  http::Server& server_;
  ApiOptions options_;
  unsigned admission_workers_;
  WorkQueue admission_;
  std::atomic<std::uint64_t> busy_{0};
  std::array<std::atomic<std::uint64_t>, kSubmissionErrorCodes.size()> submission_errors_{};
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace sion::node
