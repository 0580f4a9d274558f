#include "sion/http/server.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "beast_request.hpp"
#include "rate_limiter.hpp"
#include "sion/base/thread_name.hpp"
#include "sion/http/router.hpp"

namespace sion::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

// How long a closing connection keeps reading (and discarding) what the
// client still sends, so the client reads our answer before a reset.
constexpr std::chrono::milliseconds kLingerTime{1'000};
// Pause before accepting again when accept() fails (out of descriptors).
constexpr std::chrono::milliseconds kAcceptRetry{50};
// How long stop() waits for connections to close before abandoning them.
constexpr std::chrono::seconds kStopDrain{5};
// The most a connection's read buffer grows to for a body: Beast's largest
// single read.
constexpr std::uint64_t kBodyReadPiece = 64 * 1024;

struct Counters {
  std::atomic<std::uint64_t> open{0}, accepted{0}, refused{0}, malformed{0}, timeouts{0}, rate_limited{0},
      handler_errors{0}, sse_open{0}, sse_lagged{0}, latency_sum{0}, latency_count{0};
  std::array<std::atomic<std::uint64_t>, 5> by_class{};
  std::array<std::atomic<std::uint64_t>, kLatencyBoundsMicros.size() + 1> latency{};

  void record_latency(Clock::duration elapsed) {
    const auto micros = static_cast<std::uint64_t>(
        std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()));
    const auto bucket =
        static_cast<std::size_t>(std::lower_bound(kLatencyBoundsMicros.begin(), kLatencyBoundsMicros.end(), micros) -
                                 kLatencyBoundsMicros.begin());
    latency[bucket].fetch_add(1, std::memory_order_relaxed);
    latency_sum.fetch_add(micros, std::memory_order_relaxed);
    latency_count.fetch_add(1, std::memory_order_relaxed);
  }
};

class Connection;

// The answer to a handler that threw (docs/http.md, "Errors").
Response handler_failure() { return json_error(500, "internal", "the request handler failed"); }

}  // namespace

class Server::Core : public std::enable_shared_from_this<Server::Core> {
 public:
  explicit Core(ServerOptions opts)
      : options(std::move(opts)),
        ioc(static_cast<int>(std::max(1U, options.io_threads))),
        acceptor(asio::make_strand(ioc)),
        accept_retry(acceptor.get_executor()),
        limiter(options.rate_limit) {}

  ~Core() { join(); }

  base::Status start();
  void stop();
  void accept();
  void forget(std::uint64_t id) {
    std::lock_guard lock(mutex);
    connections.erase(id);
  }
  // Posts `fn` to `executor` unless the server has stopped (a handler posted
  // after the io threads ended would never run and would keep this alive).
  template <class Executor, class Fn>
  void post(const Executor& executor, Fn&& fn) {
    std::lock_guard lock(post_mutex);
    if (accepting_posts) asio::post(executor, std::forward<Fn>(fn));
  }
  // The handler for `request`, its path parameters filled in; or the answer
  // when there is none (docs/http.md, "Errors"): 400 for a malformed path,
  // 404, or 405 with the Allow field.
  std::variant<const Handler*, Response> find_route(Request& request) const;

  void join() {
    for (std::thread& thread : threads) {
      if (thread.joinable()) thread.join();
    }
    threads.clear();
  }

  ServerOptions options;
  Router<Handler> router;
  asio::io_context ioc;
  tcp::acceptor acceptor;
  asio::steady_timer accept_retry;
  detail::RateLimiter limiter;
  Counters counters;
  std::atomic<bool> stopping{false};
  bool started = false;
  bool stopped = false;
  std::uint16_t port = 0;
  std::vector<std::thread> threads;

  std::mutex mutex;  // connections, next_id, stopping transitions
  std::map<std::uint64_t, std::weak_ptr<Connection>> connections;
  std::uint64_t next_id = 0;

  std::mutex post_mutex;
  bool accepting_posts = true;

  std::mutex run_mutex;
  std::condition_variable run_done;
  unsigned running = 0;
};

namespace {

using Core = Server::Core;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::shared_ptr<Core> core, tcp::socket socket, std::uint64_t id)
      : core_(std::move(core)),
        socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        keepalive_(socket_.get_executor()),
        id_(id) {
    error_code ec;
    const tcp::endpoint remote = socket_.remote_endpoint(ec);
    if (!ec) {
      address_ = remote.address().to_string();
      loopback_ = remote.address().is_loopback();
    }
  }

  asio::any_io_executor executor() { return socket_.get_executor(); }

  void start() {
    if (core_->stopping) return close_now();
    arm(core_->options.header_timeout);
    read_request();
  }

  void close_now() {
    if (closed_) return;
    closed_ = true;
    ++timer_generation_;
    error_code ignored;
    socket_.close(ignored);
    timer_.cancel();
    keepalive_.cancel();
    if (stream_) {
      stream_->detach();
      core_->counters.sse_open.fetch_sub(1, std::memory_order_relaxed);
    }
    core_->counters.open.fetch_sub(1, std::memory_order_relaxed);
    core_->forget(id_);
  }

  // An asynchronous handler's answer, on this connection's strand.
  void send_reply(Response response) {
    if (closed_ || phase_ != Phase::handling) return;
    send(std::move(response), keep_alive_);
  }

 private:
  enum class Phase { header, body, handling, writing, idle, streaming, lingering };

  class ReplyTarget final : public detail::ReplyTarget {
   public:
    explicit ReplyTarget(std::shared_ptr<Connection> connection) : connection_(std::move(connection)) {}
    bool deliver(Response response, bool dropped) override {
      if (done_.exchange(true)) return false;
      std::shared_ptr<Connection> connection = std::move(connection_);
      if (dropped) connection->core_->counters.handler_errors.fetch_add(1, std::memory_order_relaxed);
      Core& core = *connection->core_;
      const asio::any_io_executor executor = connection->executor();
      core.post(executor, [connection, response = std::move(response)]() mutable {
        connection->send_reply(std::move(response));
      });
      return true;
    }

   private:
    std::atomic<bool> done_{false};
    std::shared_ptr<Connection> connection_;
  };

  void arm(std::chrono::milliseconds duration) {
    timed_out_ = false;
    timer_.expires_after(duration);
    timer_.async_wait([self = shared_from_this(), generation = ++timer_generation_](error_code ec) {
      if (ec || generation != self->timer_generation_ || self->closed_) return;
      self->on_timeout();
    });
  }

  void disarm() {
    ++timer_generation_;
    timer_.cancel();
  }

  void on_timeout() {
    switch (phase_) {
      case Phase::header:
      case Phase::body: {
        // The read handler answers 408 (or just closes when nothing came).
        timed_out_ = true;
        error_code ignored;
        socket_.cancel(ignored);
        return;
      }
      case Phase::writing:
      case Phase::streaming: core_->counters.timeouts.fetch_add(1, std::memory_order_relaxed); break;
      case Phase::handling:
      case Phase::idle:
      case Phase::lingering: break;
    }
    close_now();
  }

  void read_request() {
    phase_ = Phase::header;
    parser_.emplace();
    detail::configure_parser(*parser_, core_->options);
    bhttp::async_read_header(socket_, buffer_, *parser_,
                             [self = shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(error_code ec) {
    if (closed_) return;
    if (ec) return on_read_error(ec);
    received_ = Clock::now();
    has_received_ = true;
    if (parser_->is_done()) return on_request();
    phase_ = Phase::body;
    arm(core_->options.request_timeout);
    // Beast reads a body in pieces the size of the buffer's free space (at
    // least 512 bytes, at most 64 KiB): left at the capacity a header needed,
    // the buffer would take a 20 KB transaction in some forty recv calls.
    if (const auto length = parser_->content_length(); length && *length > buffer_.capacity()) {
      buffer_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*length, kBodyReadPiece)));
    }
    // A client that asked to wait (RFC 9110 §10.1.1) is told to send the body.
    const auto expect = parser_->get()[bhttp::field::expect];
    if (!iequals(std::string_view(expect.data(), expect.size()), "100-continue")) return read_body();
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](error_code write_ec, std::size_t) {
                        if (self->closed_) return;
                        if (write_ec) return self->close_now();
                        self->read_body();
                      });
  }

  void read_body() {
    bhttp::async_read(socket_, buffer_, *parser_, [self = shared_from_this()](error_code read_ec, std::size_t) {
      if (self->closed_) return;
      if (read_ec) return self->on_read_error(read_ec);
      self->on_request();
    });
  }

  void on_read_error(error_code ec) {
    Counters& counters = core_->counters;
    const bool started_request = phase_ == Phase::body || buffer_.size() > 0 || (parser_ && parser_->got_some());
    if (ec == asio::error::operation_aborted && timed_out_) {
      counters.timeouts.fetch_add(1, std::memory_order_relaxed);
      if (!started_request) return close_now();
      return send_error(408, "timeout",
                        phase_ == Phase::body ? "the request body did not arrive in time"
                                              : "the request header did not arrive in time");
    }
    if (ec == bhttp::error::end_of_stream) return close_now();
    if (ec.category() != bhttp::make_error_code(bhttp::error::bad_method).category()) {
      // A socket error: reset, aborted by stop(), ...
      return close_now();
    }
    counters.malformed.fetch_add(1, std::memory_order_relaxed);
    const detail::RequestError error = detail::request_error(ec, core_->options);
    send_error(error.status, error.code, error.message);
  }

  // An error answer after which the connection closes.
  void send_error(unsigned status, std::string_view code, std::string_view message) {
    send(json_error(status, code, message), false);
  }

  void on_request() {
    disarm();
    ++requests_;
    phase_ = Phase::handling;
    detail::BeastRequest message = parser_->release();
    keep_alive_ = message.keep_alive() && requests_ < core_->options.max_requests_per_connection &&
                  !core_->stopping.load(std::memory_order_relaxed);
    auto request = detail::to_request(message);
    if (!request) {
      core_->counters.malformed.fetch_add(1, std::memory_order_relaxed);
      return send_error(400, "bad_request", request.error().reason);
    }
    request->client_address = address_;
    request->received = received_;
    if (!core_->limiter.allow(address_, loopback_, received_)) {
      core_->counters.rate_limited.fetch_add(1, std::memory_order_relaxed);
      Response limited = json_error(429, "rate_limited", "too many requests from " + address_ + "; retry later");
      limited.headers.emplace_back("Retry-After", "1");
      return send(std::move(limited), keep_alive_);
    }
    auto routed = core_->find_route(*request);
    if (auto* answer = std::get_if<Response>(&routed)) {
      // A malformed path closes the connection; no route keeps it open.
      if (answer->status != 400) return send(std::move(*answer), keep_alive_);
      core_->counters.malformed.fetch_add(1, std::memory_order_relaxed);
      return send(std::move(*answer), false);
    }
    std::visit([&](const auto& handler) { dispatch(handler, std::move(*request)); }, *std::get<const Handler*>(routed));
  }

  void handler_failed() {
    core_->counters.handler_errors.fetch_add(1, std::memory_order_relaxed);
    send(handler_failure(), keep_alive_);
  }

  void dispatch(const SyncHandler& handler, Request request) {
    std::optional<Response> response;
    try {
      response = handler(request);
    } catch (...) {
      return handler_failed();
    }
    send(std::move(*response), keep_alive_);
  }

  void dispatch(const AsyncHandler& handler, Request request) {
    auto target = std::make_shared<ReplyTarget>(shared_from_this());
    try {
      handler(std::move(request), Reply(target));
    } catch (...) {
      // The Reply, if it went down with the exception, has answered already.
      if (target->deliver(handler_failure(), false)) {
        core_->counters.handler_errors.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }

  void dispatch(const StreamHandler& handler, Request request) {
    const ServerOptions& options = core_->options;
    auto stream = std::make_shared<EventStream>(
        EventStreamLimits{options.sse_max_buffered_bytes, options.sse_max_buffered_events});
    std::optional<Response> refusal;
    try {
      refusal = handler(request, stream);
    } catch (...) {
      stream->detach();
      return handler_failed();
    }
    if (refusal) {
      stream->detach();
      return send(std::move(*refusal), keep_alive_);
    }
    start_stream(std::move(stream));
  }

  void send(Response response, bool keep_alive) {
    if (closed_) return;
    phase_ = Phase::writing;
    auto message = std::make_shared<bhttp::response<bhttp::string_body>>();
    message->version(11);
    // Beast refuses codes outside 100..999; a handler's bad code is our bug.
    if (response.status < 100 || response.status > 999) response = json_error(500, "internal", "bad status code");
    message->result(response.status);
    core_->counters.by_class[std::clamp(response.status / 100, 1U, 5U) - 1].fetch_add(1, std::memory_order_relaxed);
    const std::string_view reason = status_reason(response.status);
    if (reason != "Unknown") message->reason(reason);
    if (!response.body.empty() || response.status != 204)
      message->set(bhttp::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) message->insert(name, value);
    message->body() = std::move(response.body);
    message->keep_alive(keep_alive);
    message->prepare_payload();
    close_after_write_ = !keep_alive;
    arm(core_->options.request_timeout);
    bhttp::async_write(socket_, *message,
                       [self = shared_from_this(), message](error_code ec, std::size_t) { self->on_write(ec); });
  }

  void on_write(error_code ec) {
    if (closed_) return;
    disarm();
    if (has_received_) core_->counters.record_latency(Clock::now() - received_);
    has_received_ = false;
    if (ec) return close_now();
    if (close_after_write_) return linger();
    wait_idle();
  }

  void wait_idle() {
    if (buffer_.size() > 0) {  // a pipelined request is already here
      arm(core_->options.header_timeout);
      return read_request();
    }
    phase_ = Phase::idle;
    arm(core_->options.idle_timeout);
    socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](error_code ec) {
      if (self->closed_) return;
      if (ec) return self->close_now();
      self->arm(self->core_->options.header_timeout);
      self->read_request();
    });
  }

  // Half-closes, then reads and discards until the client closes too (or the
  // linger time ends), so an unread request does not reset our answer away.
  void linger() {
    phase_ = Phase::lingering;
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    arm(kLingerTime);
    if (!reading_for_close_) read_for_close();
  }

  void read_for_close() {
    reading_for_close_ = true;
    socket_.async_read_some(asio::buffer(discard_), [self = shared_from_this()](error_code ec, std::size_t) {
      if (self->closed_) return;
      if (ec) return self->close_now();
      self->read_for_close();
    });
  }

  // ---- Event streams. ----

  void start_stream(std::shared_ptr<EventStream> stream) {
    phase_ = Phase::streaming;
    stream_ = std::move(stream);
    core_->counters.sse_open.fetch_add(1, std::memory_order_relaxed);
    core_->counters.by_class[1].fetch_add(1, std::memory_order_relaxed);
    if (has_received_) core_->counters.record_latency(Clock::now() - received_);
    has_received_ = false;
    // The body runs until the connection closes (RFC 9112 §6.3), so the
    // frames go out as they are, without chunking.
    pending_header_ =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        "Connection: close\r\nX-Accel-Buffering: no\r\n\r\n";
    std::weak_ptr<Connection> weak = shared_from_this();
    std::weak_ptr<Core> core = core_;
    stream_->attach([weak, core] {
      const auto self = weak.lock();
      const auto owner = core.lock();
      if (!self || !owner) return;
      owner->post(self->executor(), [self] { self->pump(); });
    });
    pump();
    arm_keepalive();
    // The client sends nothing more; a read ending tells us it left.
    read_for_close();
  }

  void pump() {
    if (closed_ || phase_ != Phase::streaming) return;
    if (!lag_counted_ && stream_->lagged()) {
      lag_counted_ = true;
      core_->counters.sse_lagged.fetch_add(1, std::memory_order_relaxed);
      // The write in flight (to a client that stopped reading) gets the grace time too.
      if (writing_) arm(core_->options.sse_lagged_grace);
    }
    if (writing_) return;  // the write's completion pumps again
    EventStream::Batch batch = stream_->take();
    std::string out = std::move(pending_header_);
    pending_header_.clear();
    const std::size_t header_bytes = out.size();
    out += batch.bytes;
    if (out.empty()) {
      if (batch.finish) finish_stream();
      return;
    }
    write_stream(std::move(out), header_bytes, batch.events, batch.finish);
  }

  void write_stream(std::string bytes, std::size_t uncounted, std::size_t events, bool finish) {
    writing_ = true;
    out_ = std::move(bytes);
    // A lagging client gets the grace time to take its last event; others the write timeout.
    arm(lag_counted_ ? core_->options.sse_lagged_grace : core_->options.request_timeout);
    asio::async_write(socket_, asio::buffer(out_),
                      [self = shared_from_this(), uncounted, events, finish](error_code ec, std::size_t n) {
                        if (self->closed_) return;
                        self->writing_ = false;
                        self->disarm();
                        if (ec) return self->close_now();
                        self->stream_->written(n - std::min(n, uncounted), events);
                        if (finish) return self->finish_stream();
                        self->pump();
                      });
  }

  void finish_stream() {
    phase_ = Phase::lingering;
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    keepalive_.cancel();
    arm(kLingerTime);  // read_for_close() is already reading
  }

  void arm_keepalive() {
    keepalive_.expires_after(core_->options.sse_keepalive);
    keepalive_.async_wait([self = shared_from_this()](error_code ec) {
      if (ec || self->closed_ || self->phase_ != Phase::streaming) return;
      if (!self->writing_) self->write_stream(format_comment("keep-alive"), SIZE_MAX, 0, false);
      self->arm_keepalive();
    });
  }

  std::shared_ptr<Core> core_;  // first: the socket and timers need its io_context until they are gone
  tcp::socket socket_;
  asio::steady_timer timer_;
  asio::steady_timer keepalive_;
  const std::uint64_t id_;
  std::string address_;
  bool loopback_ = false;

  Phase phase_ = Phase::header;
  bool closed_ = false;
  bool timed_out_ = false;
  std::uint64_t timer_generation_ = 0;
  beast::flat_buffer buffer_;
  std::optional<detail::BeastParser> parser_;
  std::uint64_t requests_ = 0;
  bool keep_alive_ = true;
  bool close_after_write_ = false;
  Clock::time_point received_{};
  bool has_received_ = false;
  bool reading_for_close_ = false;
  std::array<char, 4096> discard_{};

  std::shared_ptr<EventStream> stream_;
  std::string pending_header_;
  std::string out_;
  bool writing_ = false;
  bool lag_counted_ = false;
};

}  // namespace

std::variant<const Handler*, Response> Server::Core::find_route(Request& request) const {
  auto segments = split_path(request.path);
  if (!segments) return json_error(400, "bad_request", segments.error().reason);
  auto match = router.match(request.method, *segments);
  if (match.kind == MatchKind::not_found) return json_error(404, "not_found", "no route for " + request.path);
  if (match.kind == MatchKind::method_not_allowed) {
    Response refused = json_error(405, "method_not_allowed", request.method + " is not allowed on " + request.path);
    refused.headers.emplace_back("Allow", match.allow);
    return refused;
  }
  request.path_params = std::move(match.params);
  return match.value;
}

namespace {

// Where Server::dispatch waits for an asynchronous handler's Reply.
class WaitingReply final : public detail::ReplyTarget {
 public:
  bool deliver(Response response, bool /*dropped*/) override {
    std::lock_guard lock(mutex_);
    if (response_) return false;
    response_ = std::move(response);
    done_.notify_all();
    return true;
  }
  Response wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return response_.has_value(); });
    return std::move(*response_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  std::optional<Response> response_;
};

}  // namespace

Response Server::dispatch(Request request) const {
  auto routed = core_->find_route(request);
  if (auto* answer = std::get_if<Response>(&routed)) return std::move(*answer);
  const Handler& handler = *std::get<const Handler*>(routed);
  if (const auto* sync = std::get_if<SyncHandler>(&handler)) {
    try {
      return (*sync)(request);
    } catch (...) {
      return handler_failure();
    }
  }
  if (const auto* async = std::get_if<AsyncHandler>(&handler)) {
    // The Reply answers once, whether called, dropped or lost to an
    // exception, so the wait ends.
    auto target = std::make_shared<WaitingReply>();
    try {
      (*async)(std::move(request), Reply(target));
    } catch (...) {
      target->deliver(handler_failure(), false);
    }
    return target->wait();
  }
  const ServerOptions& options = core_->options;
  auto stream =
      std::make_shared<EventStream>(EventStreamLimits{options.sse_max_buffered_bytes, options.sse_max_buffered_events});
  std::optional<Response> answer;  // the handler's refusal, if it refused
  try {
    answer = std::get<StreamHandler>(handler)(request, stream);
  } catch (...) {
    answer = handler_failure();
  }
  if (!answer) {
    // Accepted: what it queued at once, and then the client leaves.
    answer = Response{200, "text/event-stream", stream->take().bytes, {}};
  }
  stream->detach();
  return std::move(*answer);
}

base::Status Server::Core::start() {
  if (started) return base::fail(base::Errc::invalid_argument, "the HTTP server was started already");
  const std::string where = options.address + " port " + std::to_string(options.port);
  error_code ec;
  const asio::ip::address address = asio::ip::make_address(options.address, ec);
  if (ec)
    return base::fail(base::Errc::invalid_argument, "not an IP address to listen on: \"" + options.address + "\"");
  const tcp::endpoint endpoint(address, options.port);
  if (acceptor.open(endpoint.protocol(), ec); ec) {
    return base::fail(base::Errc::io_error, "cannot open a socket for " + where + ": " + ec.message());
  }
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  // The close gets its own error code: reusing `ec` would replace the
  // reason ("Address already in use") with the close's "Success".
  error_code ignored;
  if (acceptor.bind(endpoint, ec); ec) {
    acceptor.close(ignored);
    return base::fail(base::Errc::io_error, "cannot bind " + where + ": " + ec.message());
  }
  if (acceptor.listen(asio::socket_base::max_listen_connections, ec); ec) {
    acceptor.close(ignored);
    return base::fail(base::Errc::io_error, "cannot listen on " + where + ": " + ec.message());
  }
  port = acceptor.local_endpoint(ec).port();
  started = true;
  accept();
  const unsigned count = std::max(1U, options.io_threads);
  running = count;
  for (unsigned i = 0; i < count; ++i) {
    threads.emplace_back([this] {
      base::name_this_thread("sion-http");
      ioc.run();
      std::lock_guard lock(run_mutex);
      --running;
      run_done.notify_all();
    });
  }
  return {};
}

void Server::Core::accept() {
  acceptor.async_accept(asio::make_strand(ioc), [self = shared_from_this()](error_code ec, tcp::socket socket) {
    if (self->stopping) return;
    if (ec) {
      if (ec == asio::error::operation_aborted) return;
      // Out of descriptors or memory: pause instead of spinning.
      self->accept_retry.expires_after(kAcceptRetry);
      self->accept_retry.async_wait([self](error_code wait_ec) {
        if (!wait_ec && !self->stopping) self->accept();
      });
      return;
    }
    Counters& stats = self->counters;
    if (stats.open.load(std::memory_order_relaxed) >= self->options.max_connections) {
      stats.refused.fetch_add(1, std::memory_order_relaxed);
      error_code ignored;
      socket.close(ignored);
    } else {
      std::shared_ptr<Connection> connection;
      {
        std::lock_guard lock(self->mutex);
        if (!self->stopping) {
          stats.open.fetch_add(1, std::memory_order_relaxed);
          stats.accepted.fetch_add(1, std::memory_order_relaxed);
          connection = std::make_shared<Connection>(self, std::move(socket), self->next_id);
          self->connections.emplace(self->next_id++, connection);
        }
      }
      if (connection) asio::dispatch(connection->executor(), [connection] { connection->start(); });
    }
    self->accept();
  });
}

void Server::Core::stop() {
  if (!started || stopped) return;
  stopped = true;
  std::vector<std::shared_ptr<Connection>> open;
  {
    std::lock_guard lock(mutex);
    stopping = true;
    for (const auto& [id, weak] : connections) {
      if (auto connection = weak.lock()) open.push_back(std::move(connection));
    }
  }
  asio::post(acceptor.get_executor(), [self = shared_from_this()] {
    error_code ignored;
    self->acceptor.close(ignored);
    self->accept_retry.cancel();
  });
  for (const auto& connection : open) asio::post(connection->executor(), [connection] { connection->close_now(); });
  open.clear();
  // The io threads end when no work is left; if something still runs after
  // the drain time, stop the io_context outright.
  {
    std::unique_lock lock(run_mutex);
    if (!run_done.wait_for(lock, kStopDrain, [this] { return running == 0; })) ioc.stop();
  }
  join();
  {
    std::lock_guard lock(post_mutex);
    accepting_posts = false;
  }
  // Handlers posted while the threads were ending (replies, stream wake-ups).
  ioc.restart();
  ioc.poll();
}

Server::Server(ServerOptions options) : core_(std::make_shared<Core>(std::move(options))) {}

Server::~Server() { stop(); }

base::Status Server::add_route(std::string_view method, std::string_view pattern, Handler handler) {
  if (core_->started) return base::fail(base::Errc::invalid_argument, "routes are added before start()");
  return core_->router.add(method, pattern, std::move(handler));
}

base::Status Server::start() { return core_->start(); }

void Server::stop() { core_->stop(); }

std::uint16_t Server::port() const noexcept { return core_->port; }

const ServerOptions& Server::options() const noexcept { return core_->options; }

ServerStats Server::stats() const {
  const Counters& c = core_->counters;
  const auto get = [](const std::atomic<std::uint64_t>& value) { return value.load(std::memory_order_relaxed); };
  ServerStats stats;
  stats.connections_open = get(c.open);
  stats.connections_accepted = get(c.accepted);
  stats.connections_refused = get(c.refused);
  for (std::size_t i = 0; i < stats.responses_by_class.size(); ++i) stats.responses_by_class[i] = get(c.by_class[i]);
  stats.malformed_requests = get(c.malformed);
  stats.timeouts = get(c.timeouts);
  stats.rate_limited = get(c.rate_limited);
  stats.handler_errors = get(c.handler_errors);
  stats.sse_streams_open = get(c.sse_open);
  stats.sse_lagged = get(c.sse_lagged);
  for (std::size_t i = 0; i < stats.latency_buckets.size(); ++i) stats.latency_buckets[i] = get(c.latency[i]);
  stats.latency_sum_micros = get(c.latency_sum);
  stats.latency_count = get(c.latency_count);
  return stats;
}

}  // namespace sion::http
