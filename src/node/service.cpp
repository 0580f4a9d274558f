#include "sion/node/service.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <utility>

#include "sion/base/thread_name.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/node/log.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::node {
namespace {

std::uint64_t wall_ms() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

}  // namespace

base::Result<ServiceOptions> service_options(const NodeConfig& config) {
  ServiceOptions options;
  options.node.data_dir = config.data_dir;
  SION_TRY(options.node.genesis, exec::read_genesis_file(config.genesis_file));
  SION_TRY_CONTEXT(crypto::SigningBundle validator, "validator key file " + config.validator_key_file,
                   wallet::read_key_file(config.validator_key_file));
  options.node.validator = std::make_shared<const crypto::SigningBundle>(std::move(validator));
  options.node.policy.min_fee_per_byte = config.mempool.min_fee_per_byte;
  options.node.pool.max_transactions = config.mempool.max_transactions;
  options.node.pool.max_bytes = config.mempool.max_bytes;
  options.node.pool.max_per_sender = config.mempool.max_per_sender;
  options.node.pool.expiry_ms = std::uint64_t{config.mempool.expiry_seconds} * 1000;
  options.node.pool.replacement_bump_percent = config.mempool.replacement_bump_percent;
  options.server.address = config.api.address.host;
  options.server.port = config.api.address.port;
  options.server.max_body_bytes = config.api.max_body_bytes;
  options.server.max_connections = config.api.max_connections;
  options.server.rate_limit.requests_per_second = config.api.rate_per_client;
  options.server.request_timeout = std::chrono::milliseconds(config.api.request_timeout_ms);
  options.interval = std::chrono::milliseconds(config.pulse.interval_ms);
  return options;
}

base::Result<std::unique_ptr<Service>> Service::start(ServiceOptions options) {
  std::unique_ptr<Service> service(new Service());
  service->options_ = std::move(options);
  const auto log = component_logger("node");
  SION_TRY(service->node_, Node::open(service->options_.node));
  {
    auto lock = service->node_->read_lock();
    log->info("chain {} at height {}, state root {}", service->node_->genesis().params.chain_id,
              service->node_->chain().height(), base::to_hex(service->node_->chain().head().state_root));
  }
  service->server_ = std::make_unique<http::Server>(service->options_.server);
  service->api_ = std::make_unique<Api>(*service->node_, *service->server_, service->options_.api);
  SION_TRY_STATUS(service->api_->register_routes());
  SION_TRY_STATUS(service->server_->start());
  component_logger("api")->info("serving the API on http://{}:{}", service->options_.server.address,
                                service->server_->port());
  service->producer_ = std::thread([raw = service.get()] {
    base::name_this_thread("sion-produce");
    raw->produce_loop();
  });
  return service;
}

Service::~Service() { stop(); }

void Service::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !producer_.joinable() && !server_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (producer_.joinable()) producer_.join();
  if (server_) server_->stop();
  api_.reset();
  server_.reset();
}

void Service::produce_loop() {
  const auto log = component_logger("node");
  auto next = std::chrono::steady_clock::now() + options_.interval;
  bool failed = false;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait_until(lock, next, [this] { return stopping_; });
      if (stopping_) return;
    }
    next += options_.interval;
    // After a stall (a slow disk, a suspended process) skip the missed
    // ticks instead of producing a burst of Pulses.
    if (next < std::chrono::steady_clock::now()) next = std::chrono::steady_clock::now() + options_.interval;
    if (failed) continue;
    const std::uint64_t now = wall_ms();
    node_->expire(now);
    auto produced = node_->produce(now);
    if (!produced) {
      log->critical("stopped producing: {}", produced.error().to_string());
      failed = true;
    }
  }
}

}  // namespace sion::node
