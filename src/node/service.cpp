#include "sion/node/service.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <utility>

#include "sion/base/clock.hpp"
#include "sion/base/json.hpp"
#include "sion/base/thread_name.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/node/log.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::node {
namespace {

// POST /v1/testing/links {"peer": i, "blocked": b, "delay_ms": n}: cuts or
// slows this validator's link to validator i while the process runs
// (net::Transport's test hooks), for the partition and latency tests.
base::Status register_link_control(http::Server& server, ConsensusDriver& consensus) {
  return server.route("POST", "/v1/testing/links", [&consensus](const http::Request& request) -> http::Response {
    auto document = base::parse_json(request.body);
    if (!document) return http::json_error(400, "bad_json", document.error().reason);
    auto object = base::JsonView(*document).as_object();
    if (!object) return http::json_error(400, "bad_request", object.error().reason);
    auto peer = object->u64("peer", consensus.transport().validators() - 1);
    if (!peer) return http::json_error(400, "bad_request", peer.error().reason);
    const auto index = static_cast<std::uint32_t>(*peer);
    if (auto blocked = object->optional_field("blocked")) {
      auto value = blocked->as_bool();
      if (!value) return http::json_error(400, "bad_request", value.error().reason);
      consensus.transport().set_blocked(index, *value);
    }
    if (auto delay = object->optional_field("delay_ms")) {
      auto value = delay->as_u64(60'000);
      if (!value) return http::json_error(400, "bad_request", value.error().reason);
      consensus.transport().set_link_delay(index, std::chrono::milliseconds(*value));
    }
    if (auto finished = object->finish(); !finished)
      return http::json_error(400, "bad_request", finished.error().reason);
    return http::Response::json(200, R"({"ok":true})");
  });
}

}  // namespace

base::Result<ServiceOptions> service_options(const NodeConfig& config) {
  ServiceOptions options;
  options.node.data_dir = config.data_dir;
  SION_TRY(options.node.genesis, exec::read_genesis_file(config.genesis_file));
  SION_TRY_CONTEXT(wallet::KeySecret validator, "validator key file " + config.validator_key_file,
                   wallet::read_key_secret(config.validator_key_file));
  options.node.validator = std::make_shared<const crypto::SigningBundle>(std::move(validator.bundle));
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

  ConsensusDriverOptions& consensus = options.consensus.emplace();
  consensus.timing.min_block_interval_ms = config.pulse.interval_ms;
  consensus.timing.idle_block_interval_ms = std::max(config.consensus.idle_interval_ms, config.pulse.interval_ms);
  consensus.timing.round_timeout_ms = config.consensus.round_timeout_ms;
  consensus.timing.max_round_timeout_ms = std::uint64_t{config.consensus.round_timeout_ms} * 8;
  consensus.listen = config.consensus.listen;
  consensus.profile = validator.profile;
  consensus.seed = validator.seed->seed;
  consensus.batch_interval_ms = config.consensus.batch_interval_ms;
  consensus.max_batch_transactions = config.consensus.max_batch_transactions;
  const exec::Genesis& genesis = options.node.genesis;
  for (const auto& peer : config.peers) {
    const ledger::Id& id = peer.first;
    const auto at = std::find_if(genesis.validators.begin(), genesis.validators.end(),
                                 [&](const exec::GenesisValidator& v) { return exec::account_id(v.keys) == id; });
    if (at == genesis.validators.end()) {
      return base::fail(base::Errc::invalid_value, fmt::format("peers: {} is not a validator of the genesis file {}",
                                                               base::to_hex(id), config.genesis_file));
    }
    consensus.peers.emplace(static_cast<std::uint32_t>(at - genesis.validators.begin()), peer.second);
  }
  options.testing_routes = config.testing.control_routes;
  consensus.equivocate = config.testing.equivocate;
  consensus.link_delay = std::chrono::milliseconds(config.testing.link_delay_ms);
  if (const std::uint64_t allowed = config.testing.fail_consensus_writes_after; allowed != 0) {
    auto writes = std::make_shared<std::atomic<std::uint64_t>>(0);
    consensus.write_fault = [writes, allowed]() -> base::Status {
      if (writes->fetch_add(1) < allowed) return {};
      return base::fail(base::Errc::io_error, "injected write failure (testing.fail_consensus_writes_after)");
    };
  }
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
  if (service->options_.consensus) {
    SION_TRY(service->consensus_,
             ConsensusDriver::start(*service->node_, service->options_.node.data_dir, *service->options_.consensus));
  }
  service->server_ = std::make_unique<http::Server>(service->options_.server);
  service->api_ = std::make_unique<Api>(*service->node_, *service->server_, service->options_.api);
  SION_TRY_STATUS(service->api_->register_routes());
  if (service->options_.testing_routes && service->consensus_) {
    SION_TRY_STATUS(register_link_control(*service->server_, *service->consensus_));
    component_logger("api")->warn("TEST HOOK: POST /v1/testing/links is served (testing.control_routes)");
  }
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
  if (consensus_) consensus_->stop();
  if (server_) server_->stop();
  api_.reset();
  server_.reset();
}

void Service::produce_loop() {
  const auto log = component_logger("node");
  // With consensus only the mempool's expiry runs here, once a second.
  const std::chrono::milliseconds period = consensus_ ? std::chrono::milliseconds(1000) : options_.interval;
  auto next = std::chrono::steady_clock::now() + period;
  bool failed = false;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait_until(lock, next, [this] { return stopping_; });
      if (stopping_) return;
    }
    next += period;
    // After a stall (a slow disk, a suspended process) skip the missed
    // ticks instead of producing a burst of Pulses.
    if (next < std::chrono::steady_clock::now()) next = std::chrono::steady_clock::now() + period;
    if (failed) continue;
    const std::uint64_t now = base::unix_time_ms();
    node_->expire(now);
    if (consensus_) continue;  // consensus orders the Pulses
    auto produced = node_->produce(now);
    if (!produced) {
      log->critical("stopped producing: {}", produced.error().to_string());
      failed = true;
    }
  }
}

}  // namespace sion::node
