#include "sion/net/transport.hpp"

#include <algorithm>
#include <string>
#include <system_error>
#include <utility>

#include "connection.hpp"
#include "core.hpp"
#include "sion/base/endian.hpp"
#include "sion/base/random.hpp"
#include "sion/base/thread_name.hpp"
#include "sion/crypto/signature.hpp"
#include "sion/net/identity.hpp"

namespace sion::net {
namespace detail {
namespace {

using boost::system::error_code;

// Pause before accepting again when accept() fails (out of descriptors).
constexpr std::chrono::milliseconds kAcceptRetry{50};
// How long stop() waits for the io thread to finish closing before it stops
// the io_context outright.
constexpr std::chrono::seconds kStopDrain{5};
// What start() signs and verifies to check that the signer's key is
// peers[self]'s, before any peer sees a bad signature from us.
constexpr std::string_view kSelfCheckMessage = "sion/net/self-check/v1";

}  // namespace

Core::Core(TransportOptions opts, TransportHandlers h)
    : options(std::move(opts)), handlers(std::move(h)), ioc(1), acceptor_(ioc), accept_retry_(ioc) {
  slots_.reserve(options.peers.size());
  for (std::size_t i = 0; i < options.peers.size(); ++i) {
    slots_.push_back(std::make_unique<PeerSlot>(ioc, static_cast<std::uint32_t>(i), options.peers[i]));
  }
}

Core::~Core() {
  stop();
  if (thread_.joinable()) {
    // Only when stop() ran on the io thread itself (a misuse): it cannot join itself.
    if (std::this_thread::get_id() == thread_.get_id()) {
      thread_.detach();
    } else {
      thread_.join();
    }
  }
  release_links();
}

void Core::release_links() {
  connections_.clear();
  for (auto& slot : slots_) {
    slot->active.reset();
    slot->dialing.reset();
  }
}

base::Status Core::check_options() {
  const auto fail = [](std::string reason) { return base::fail(base::Errc::invalid_argument, std::move(reason)); };
  if (options.self >= options.peers.size()) {
    return fail("self index " + std::to_string(options.self) + " is not in the peer table of " +
                std::to_string(options.peers.size()) + " validators");
  }
  if (options.peers.size() > UINT32_MAX) return fail("the peer table has more than 2^32 - 1 validators");
  for (std::size_t i = 0; i < options.peers.size(); ++i) {
    SION_TRY_CONTEXT(slots_[i]->key, "peer table entry " + std::to_string(i), mldsa_public_key(options.peers[i].keys));
    slots_[i]->dial = i > options.self;
    slots_[i]->backoff = options.reconnect_min;
  }
  if (!options.signer) return fail("no signer for validator " + std::to_string(options.self));
  if (options.max_frame_bytes == 0) return fail("max_frame_bytes is 0");
  if (options.max_queue_frames == 0 || options.max_queue_bytes == 0) return fail("a send queue bound is 0");
  if (options.max_pending_handshakes == 0) return fail("max_pending_handshakes is 0");
  if (options.handshake_timeout.count() <= 0 || options.write_timeout.count() <= 0) {
    return fail("handshake_timeout and write_timeout must be positive");
  }
  if (options.reconnect_min.count() <= 0 || options.reconnect_max < options.reconnect_min) {
    return fail("reconnect_min must be positive and at most reconnect_max");
  }
  const base::Result<base::Bytes> probe = call_signer(options.signer, base::as_bytes(kSelfCheckMessage));
  if (!probe) return fail("the signer failed: " + probe.error().reason);
  if (!crypto::verify(crypto::Scheme::ml_dsa_44, slots_[options.self]->key, base::as_bytes(kSelfCheckMessage),
                      *probe)) {
    return fail("the signer's key is not the ML-DSA-44 key of validator " + std::to_string(options.self) +
                " in the peer table");
  }
  return {};
}

base::Status Core::listen() {
  const std::string where = options.listen_address + " port " + std::to_string(options.listen_port);
  error_code ec;
  const asio::ip::address address = asio::ip::make_address(options.listen_address, ec);
  if (ec) {
    return base::fail(base::Errc::invalid_argument,
                      "not an IP address to listen on: \"" + options.listen_address + "\"");
  }
  const tcp::endpoint endpoint(address, options.listen_port);
  if (acceptor_.open(endpoint.protocol(), ec); ec) {
    return base::fail(base::Errc::io_error, "cannot open a socket for " + where + ": " + ec.message());
  }
  // A restarted validator binds its port again while old connections linger in TIME_WAIT.
  acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  error_code ignored;
  if (acceptor_.bind(endpoint, ec); ec) {
    acceptor_.close(ignored);
    return base::fail(base::Errc::io_error, "cannot bind " + where + ": " + ec.message());
  }
  if (acceptor_.listen(asio::socket_base::max_listen_connections, ec); ec) {
    acceptor_.close(ignored);
    return base::fail(base::Errc::io_error, "cannot listen on " + where + ": " + ec.message());
  }
  bound_port = acceptor_.local_endpoint(ec).port();
  return {};
}

base::Status Core::start() {
  {
    std::lock_guard lock(state_mutex_);
    if (started_) return base::fail(base::Errc::invalid_argument, "the transport was started already");
    started_ = true;
  }
  SION_TRY_STATUS(check_options());
  SION_TRY_STATUS(listen());
  base::ByteArray<4> seed{};
  if (!base::random_bytes(seed)) seed.fill(0x5a);  // jitter only: any seed will do
  jitter_.seed(base::load_le<std::uint32_t>(seed.data()));
  accept();
  for (std::uint32_t peer = options.self + 1; peer < slots_.size(); ++peer) {
    asio::post(ioc, [this, peer] { dial(peer); });
  }
  running_ = true;
  try {
    thread_ = std::thread([this] {
      base::name_this_thread("sion-net");
      ioc.run();
      std::lock_guard lock(run_mutex_);
      running_ = false;
      run_done_.notify_all();
    });
  } catch (const std::system_error& e) {
    running_ = false;
    error_code ignored;
    acceptor_.close(ignored);
    return base::fail(base::Errc::io_error, std::string("cannot start the io thread: ") + e.what());
  }
  return {};
}

void Core::stop() {
  {
    std::lock_guard lock(state_mutex_);
    if (!started_ || stopped_) return;
    stopped_ = true;
  }
  stopping = true;
  if (!thread_.joinable()) {
    // start() failed before the thread ran.
    error_code ignored;
    acceptor_.close(ignored);
    return;
  }
  if (on_io_thread()) {
    close_all();
    ioc.stop();
    return;
  }
  asio::post(ioc, [this] { close_all(); });
  {
    std::unique_lock lock(run_mutex_);
    if (!run_done_.wait_for(lock, kStopDrain, [this] { return !running_; })) ioc.stop();
  }
  thread_.join();
  // Completions that were queued while the thread ended: they see
  // `stopping` and return, releasing their connections.
  ioc.restart();
  ioc.poll();
  release_links();
}

void Core::close_all() {
  error_code ignored;
  acceptor_.close(ignored);
  accept_retry_.cancel();
  for (auto& slot : slots_) {
    slot->redial_pending = false;
    slot->redial_timer.cancel();
  }
  std::vector<std::shared_ptr<Connection>> open;
  open.reserve(connections_.size());
  for (const auto& [id, connection] : connections_) open.push_back(connection);
  for (const auto& connection : open) connection->close("the transport is stopping");
}

void Core::accept() {
  acceptor_.async_accept([this](const error_code& ec, tcp::socket socket) {
    if (stopping) return;
    if (ec) {
      if (ec == asio::error::operation_aborted) return;
      // Out of descriptors or memory: pause instead of spinning.
      accept_retry_.expires_after(kAcceptRetry);
      accept_retry_.async_wait([this](const error_code& wait_ec) {
        if (!wait_ec && !stopping) accept();
      });
      return;
    }
    if (pending_inbound_ >= options.max_pending_handshakes) {
      Counters::add(counters.refused_connections);
      error_code ignored;
      socket.close(ignored);
    } else {
      Counters::add(counters.accepted);
      ++pending_inbound_;
      auto connection = std::make_shared<Connection>(*this, next_id_++, std::move(socket), Role::responder, 0);
      connections_.emplace(connection->id(), connection);
      connection->accepted();
    }
    accept();
  });
}

void Core::dial(std::uint32_t peer) {
  if (stopping) return;
  PeerSlot& s = slot(peer);
  if (s.active || s.dialing) return;
  std::string host;
  std::uint16_t port = 0;
  {
    std::lock_guard lock(s.mutex);
    host = s.host;
    port = s.port;
  }
  if (port == 0) return;  // set_peer_address() dials once the port is known
  Counters::add(counters.dials);
  auto connection = std::make_shared<Connection>(*this, next_id_++, tcp::socket(ioc), Role::initiator, peer);
  connections_.emplace(connection->id(), connection);
  s.dialing = connection;
  connection->dial(host, port);
}

void Core::kick(std::uint32_t peer) {
  PeerSlot& s = slot(peer);
  if (stopping || !s.dial || s.active || s.dialing) return;
  if (s.redial_pending) {
    s.redial_pending = false;
    s.redial_timer.cancel();
  }
  dial(peer);
}

void Core::schedule_redial(PeerSlot& s, bool reset_backoff) {
  if (stopping || !s.dial) return;
  if (reset_backoff) s.backoff = options.reconnect_min;
  const std::chrono::milliseconds base = s.backoff;
  s.backoff = std::min(base * 2, options.reconnect_max);
  // Wait between half the backoff and all of it, so that validators that
  // lost a peer together do not all dial again in the same instant.
  const auto half = base.count() / 2;
  const auto delay = std::chrono::milliseconds(
      base.count() - half + static_cast<std::int64_t>(jitter_() % static_cast<std::uint64_t>(half + 1)));
  s.redial_pending = true;
  const std::uint64_t generation = ++s.redial_generation;
  s.redial_timer.expires_after(delay);
  s.redial_timer.async_wait([this, peer = s.index, generation](const error_code& ec) {
    if (ec || stopping) return;
    PeerSlot& again = slot(peer);
    if (!again.redial_pending || again.redial_generation != generation) return;
    again.redial_pending = false;
    dial(peer);
  });
}

void Core::set_up(PeerSlot& s, bool up) {
  std::lock_guard lock(s.mutex);
  s.up = up;
}

void Core::notify(const std::function<void(std::uint32_t)>& handler, std::uint32_t peer) {
  if (stopping || !handler) return;
  try {
    handler(peer);
  } catch (...) {
    Counters::add(counters.handler_errors);
  }
}

void Core::on_up(const std::shared_ptr<Connection>& connection) {
  PeerSlot& s = slot(connection->peer());
  if (connection->role() == Role::responder) {
    --pending_inbound_;
  } else if (s.dialing == connection) {
    s.dialing.reset();
  }
  if (s.active) {
    // A restarted peer's new link replaces the one it abandoned.
    std::shared_ptr<Connection> old = std::move(s.active);
    set_up(s, false);
    Counters::add(counters.disconnects);
    Counters::add(counters.replaced);
    notify(handlers.on_peer_down, s.index);
    old->close("replaced by a newer link from the same validator");
  }
  s.active = connection;
  set_up(s, true);
  Counters::add(counters.connects);
  log("link with validator " + std::to_string(s.index) + " up (" + connection->remote() + ")");
  notify(handlers.on_peer_up, s.index);
}

void Core::on_closed(const std::shared_ptr<Connection>& connection) {
  connections_.erase(connection->id());
  if (connection->role() == Role::responder && !connection->was_up()) --pending_inbound_;
  if (!connection->peer_known()) return;
  PeerSlot& s = slot(connection->peer());
  if (s.active == connection) {
    s.active.reset();
    set_up(s, false);
    Counters::add(counters.disconnects);
    notify(handlers.on_peer_down, s.index);
    // A link that stayed up a while starts the backoff again; one that
    // drops at once (say the peer refuses our Auth) keeps doubling it.
    schedule_redial(s, Clock::now() - connection->up_since() >= options.reconnect_max);
  } else if (s.dialing == connection) {
    s.dialing.reset();
    schedule_redial(s, false);
  }
}

void Core::deliver(std::uint32_t peer, base::Bytes payload) {
  if (slot(peer).blocked.load(std::memory_order_relaxed)) {
    Counters::add(counters.dropped_blocked);
    return;
  }
  Counters::add(counters.frames_received);
  Counters::add(counters.bytes_received, payload.size());
  if (stopping || !handlers.on_frame) return;
  try {
    handlers.on_frame(peer, std::move(payload));
  } catch (...) {
    Counters::add(counters.handler_errors);
  }
}

void Core::log(const std::string& message) {
  if (stopping || !handlers.on_log) return;
  try {
    handlers.on_log(message);
  } catch (...) {
    Counters::add(counters.handler_errors);
  }
}

bool Core::enqueue(std::uint32_t peer, std::shared_ptr<const base::Bytes> payload) {
  if (peer >= slots_.size() || peer == options.self || payload->empty() || payload->size() > options.max_frame_bytes ||
      stopping.load(std::memory_order_relaxed)) {
    Counters::add(counters.refused);
    return false;
  }
  PeerSlot& s = slot(peer);
  if (s.blocked.load(std::memory_order_relaxed)) {
    Counters::add(counters.dropped_blocked);
    return true;
  }
  const std::int64_t delay = s.delay_ms.load(std::memory_order_relaxed);
  QueuedFrame frame{std::move(payload),
                    delay > 0 ? Clock::now() + std::chrono::milliseconds(delay) : Clock::time_point{}};
  const std::size_t size = frame.payload->size();
  bool up = false;
  {
    std::lock_guard lock(s.mutex);
    if (s.queue.size() >= options.max_queue_frames || size > options.max_queue_bytes - s.queued_bytes) {
      Counters::add(counters.dropped_queue_full);
      return false;
    }
    s.queued_bytes += size;
    s.queue.push_back(std::move(frame));
    up = s.up;
  }
  // A link coming up pumps the queue itself (it sets `up` under the same
  // lock first), so only a link that is up needs waking.
  if (up && !s.wake_posted.exchange(true)) {
    asio::post(ioc, [this, peer] {
      PeerSlot& woken = slot(peer);
      woken.wake_posted.store(false);
      if (woken.active) woken.active->pump();
    });
  }
  return true;
}

base::Status Core::set_peer_address(std::uint32_t peer, std::string host, std::uint16_t port) {
  if (peer >= slots_.size() || peer == options.self) {
    return base::fail(base::Errc::invalid_argument, "no peer " + std::to_string(peer) + " to set an address for");
  }
  PeerSlot& s = slot(peer);
  {
    std::lock_guard lock(s.mutex);
    s.host = std::move(host);
    s.port = port;
  }
  bool running = false;
  {
    std::lock_guard lock(state_mutex_);
    running = started_ && !stopped_;
  }
  if (running && peer > options.self) asio::post(ioc, [this, peer] { kick(peer); });
  return {};
}

bool Core::connected(std::uint32_t peer) const {
  if (peer >= slots_.size()) return false;
  std::lock_guard lock(slots_[peer]->mutex);
  return slots_[peer]->up;
}

}  // namespace detail

Transport::Transport(TransportOptions options, TransportHandlers handlers)
    : core_(std::make_unique<detail::Core>(std::move(options), std::move(handlers))) {}

Transport::~Transport() { core_->stop(); }

base::Status Transport::start() { return core_->start(); }

void Transport::stop() { core_->stop(); }

std::uint16_t Transport::port() const noexcept { return core_->bound_port.load(); }

std::uint32_t Transport::self() const noexcept { return core_->options.self; }

std::size_t Transport::validators() const noexcept { return core_->validators(); }

base::Status Transport::set_peer_address(std::uint32_t peer, std::string host, std::uint16_t port) {
  return core_->set_peer_address(peer, std::move(host), port);
}

bool Transport::send(std::uint32_t peer, base::Bytes payload) {
  return core_->enqueue(peer, std::make_shared<const base::Bytes>(std::move(payload)));
}

std::size_t Transport::broadcast(base::Bytes payload) {
  const auto shared = std::make_shared<const base::Bytes>(std::move(payload));
  std::size_t taken = 0;
  for (std::uint32_t peer = 0; peer < core_->validators(); ++peer) {
    if (peer != core_->options.self && core_->enqueue(peer, shared)) ++taken;
  }
  return taken;
}

bool Transport::connected(std::uint32_t peer) const { return core_->connected(peer); }

std::vector<std::uint32_t> Transport::connected_peers() const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t peer = 0; peer < core_->validators(); ++peer) {
    if (core_->connected(peer)) out.push_back(peer);
  }
  return out;
}

void Transport::set_link_delay(std::uint32_t peer, std::chrono::milliseconds delay) {
  if (peer >= core_->validators()) return;
  core_->slot(peer).delay_ms.store(std::max<std::int64_t>(0, delay.count()), std::memory_order_relaxed);
}

void Transport::set_blocked(std::uint32_t peer, bool blocked) {
  if (peer >= core_->validators()) return;
  core_->slot(peer).blocked.store(blocked, std::memory_order_relaxed);
}

TransportStats Transport::stats() const {
  const detail::Counters& c = core_->counters;
  const auto get = [](const std::atomic<std::uint64_t>& value) { return value.load(std::memory_order_relaxed); };
  TransportStats stats;
  stats.frames_sent = get(c.frames_sent);
  stats.bytes_sent = get(c.bytes_sent);
  stats.frames_received = get(c.frames_received);
  stats.bytes_received = get(c.bytes_received);
  stats.frames_dropped_queue_full = get(c.dropped_queue_full);
  stats.frames_dropped_blocked = get(c.dropped_blocked);
  stats.frames_refused = get(c.refused);
  stats.malformed_frames = get(c.malformed);
  stats.oversized_frames = get(c.oversized);
  for (std::size_t i = 0; i < stats.handshake_failures.size(); ++i) {
    stats.handshake_failures[i] = get(c.handshake_failures[i]);
  }
  stats.connects = get(c.connects);
  stats.disconnects = get(c.disconnects);
  stats.replaced = get(c.replaced);
  stats.dials = get(c.dials);
  stats.dial_failures = get(c.dial_failures);
  stats.accepted = get(c.accepted);
  stats.refused_connections = get(c.refused_connections);
  stats.write_timeouts = get(c.write_timeouts);
  stats.handler_errors = get(c.handler_errors);
  return stats;
}

const TransportOptions& Transport::options() const noexcept { return core_->options; }

}  // namespace sion::net
