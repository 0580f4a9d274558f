#pragma once
// The transport's shared state (private to src/net): the peer slots with
// their send queues, the counters, the io_context and the listener.
// Connection objects (connection.hpp) run the sockets; Core decides which
// link is a peer's, dials, redials and calls the handlers.
//
// Threads: fields marked "io thread" are touched only by the transport's one
// io thread, so they need no lock; PeerSlot::mutex guards what send() shares.

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio.hpp>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/net/options.hpp"
#include "sion/net/stats.hpp"

namespace sion::net::detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

class Connection;

struct QueuedFrame {
  std::shared_ptr<const base::Bytes> payload;  // shared by a broadcast's queues
  Clock::time_point ready_at{};                // not before (the delay hook); the epoch when undelayed
};

struct Counters {
  std::atomic<std::uint64_t> frames_sent{0}, bytes_sent{0}, frames_received{0}, bytes_received{0},
      dropped_queue_full{0}, dropped_blocked{0}, refused{0}, malformed{0}, oversized{0}, connects{0}, disconnects{0},
      replaced{0}, dials{0}, dial_failures{0}, accepted{0}, refused_connections{0}, write_timeouts{0},
      handler_errors{0};
  std::array<std::atomic<std::uint64_t>, kHandshakeFailureKinds> handshake_failures{};

  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t n = 1) noexcept {
    counter.fetch_add(n, std::memory_order_relaxed);
  }
};

struct PeerSlot {
  PeerSlot(asio::io_context& ioc, std::uint32_t peer_index, const Peer& peer)
      : index(peer_index), host(peer.host), port(peer.port), redial_timer(ioc) {}

  const std::uint32_t index;
  base::Bytes key;    // its ML-DSA-44 public key; set by start()
  bool dial = false;  // whether we dial it (its index is above ours); set by start()

  mutable std::mutex mutex;  // guards host, port, queue, queued_bytes, up
  std::string host;
  std::uint16_t port = 0;
  std::deque<QueuedFrame> queue;
  std::size_t queued_bytes = 0;
  bool up = false;

  std::atomic<std::int64_t> delay_ms{0};
  std::atomic<bool> blocked{false};
  std::atomic<bool> wake_posted{false};

  // io thread
  std::shared_ptr<Connection> active;   // the link that is up
  std::shared_ptr<Connection> dialing;  // our dial in progress (connect or handshake)
  asio::steady_timer redial_timer;
  bool redial_pending = false;
  std::uint64_t redial_generation = 0;
  std::chrono::milliseconds backoff{0};
};

class Core {
 public:
  Core(TransportOptions opts, TransportHandlers h);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  base::Status start();
  void stop();
  bool enqueue(std::uint32_t peer, std::shared_ptr<const base::Bytes> payload);
  base::Status set_peer_address(std::uint32_t peer, std::string host, std::uint16_t port);
  bool connected(std::uint32_t peer) const;

  PeerSlot& slot(std::uint32_t peer) { return *slots_[peer]; }
  std::size_t validators() const noexcept { return slots_.size(); }

  // From connections, on the io thread.
  void on_up(const std::shared_ptr<Connection>& connection);
  void on_closed(const std::shared_ptr<Connection>& connection);
  void deliver(std::uint32_t peer, base::Bytes payload);
  void log(const std::string& message);
  void count_handshake_failure(HandshakeFailure failure) noexcept {
    Counters::add(counters.handshake_failures[static_cast<std::size_t>(failure)]);
  }

  const TransportOptions options;
  const TransportHandlers handlers;
  Counters counters;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint16_t> bound_port{0};

  // Declared before everything that holds its sockets and timers, so that
  // it is destroyed after them.
  asio::io_context ioc;

 private:
  base::Status check_options();
  base::Status listen();
  void accept();
  void dial(std::uint32_t peer);
  void kick(std::uint32_t peer);
  void schedule_redial(PeerSlot& slot, bool reset_backoff);
  void set_up(PeerSlot& slot, bool up);
  void notify(const std::function<void(std::uint32_t)>& handler, std::uint32_t peer);
  void close_all();
  // Drops every connection the slots and the map hold; the io thread has ended.
  void release_links();
  bool on_io_thread() const noexcept { return std::this_thread::get_id() == thread_.get_id(); }

  tcp::acceptor acceptor_;
  asio::steady_timer accept_retry_;
  std::vector<std::unique_ptr<PeerSlot>> slots_;

  // io thread
  std::map<std::uint64_t, std::shared_ptr<Connection>> connections_;
  std::uint64_t next_id_ = 0;
  std::size_t pending_inbound_ = 0;
  std::minstd_rand jitter_;

  std::mutex state_mutex_;  // started_, stopped_
  bool started_ = false;
  bool stopped_ = false;
  std::thread thread_;
  std::mutex run_mutex_;
  std::condition_variable run_done_;
  bool running_ = false;
};

}  // namespace sion::net::detail
