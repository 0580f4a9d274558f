#pragma once
// A running node: the Node, its consensus (ConsensusDriver), its HTTP API
// and the mempool's housekeeping, started from a node.toml
// (docs/node-config.md) and stopped cleanly (`sion node`, `sion devnet`).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sion/base/result.hpp"
#include "sion/http/server.hpp"
#include "sion/node/api.hpp"
#include "sion/node/config.hpp"
#include "sion/node/consensus_driver.hpp"
#include "sion/node/node.hpp"

namespace sion::node {

struct ServiceOptions {
  NodeOptions node;
  http::ServerOptions server;
  ApiOptions api;
  // The validator's consensus (service_options() always sets it). Without
  // it the node orders alone: it builds a Pulse from its own mempool every
  // `interval` (tests of the API that need no network).
  std::optional<ConsensusDriverOptions> consensus;
  bool testing_routes = false;  // POST /v1/testing/links (docs/node-config.md, "[testing]")
  std::chrono::milliseconds interval{1000};
};

// Everything a NodeConfig names, read and checked: the genesis file, the
// validator's key file, the limits. Errors name the file they come from.
base::Result<ServiceOptions> service_options(const NodeConfig& config);

class Service {
 public:
  // Opens the node, starts the API and the producer. Errors: the node's,
  // or the API's bind error (naming the address).
  static base::Result<std::unique_ptr<Service>> start(ServiceOptions options);
  ~Service();  // stop()
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Stops producing, closes the API and waits for both. Idempotent.
  void stop();
  // Blocks until stop() is called or `until` returns true (checked every
  // 100 ms; `sion node` passes a check of its signal flag).
  template <class Predicate>
  void wait(Predicate until) {
    std::unique_lock lock(mutex_);
    while (!stopping_ && !until()) wake_.wait_for(lock, std::chrono::milliseconds(100));
  }

  Node& node() noexcept { return *node_; }
  std::uint16_t api_port() const noexcept { return server_->port(); }
  // Null without consensus options.
  ConsensusDriver* consensus() noexcept { return consensus_.get(); }

 private:
  Service() = default;
  void produce_loop();

  ServiceOptions options_;
  std::unique_ptr<Node> node_;
  std::unique_ptr<ConsensusDriver> consensus_;
  std::unique_ptr<http::Server> server_;
  std::unique_ptr<Api> api_;
  std::thread producer_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace sion::node
