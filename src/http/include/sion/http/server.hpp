#pragma once
// The HTTP/1.1 server (Boost.Beast over Boost.Asio): a router of synchronous,
// asynchronous and event-stream handlers, with the limits, timeouts and rate
// limiting of docs/http.md. It knows nothing of ledgers; the node registers
// its routes before start().
//
//   http::Server server(options);
//   SION_TRY_STATUS(server.route("GET", "/v1/pulses/{height}", [](const http::Request& r) { ... }));
//   SION_TRY_STATUS(server.route("POST", "/v1/transactions", [&](http::Request r, http::Reply reply) {
//     pool.submit([r = std::move(r), reply = std::move(reply)]() mutable { reply(check(r)); });
//   }));
//   SION_TRY_STATUS(server.start());
//
// Threads: `io_threads` threads, owned by the server, run every socket and
// every synchronous handler (so those must be cheap); stop() (or the
// destructor) closes every connection and joins them.

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "sion/base/result.hpp"
#include "sion/http/event_stream.hpp"
#include "sion/http/message.hpp"
#include "sion/http/options.hpp"
#include "sion/http/reply.hpp"
#include "sion/http/stats.hpp"

namespace sion::http {

using SyncHandler = std::function<Response(const Request&)>;
using AsyncHandler = std::function<void(Request, Reply)>;
// An event-stream route: the handler keeps `stream` (pushing to it from any
// thread) and returns nullopt to accept, or returns a response to refuse.
using StreamHandler =
    std::function<std::optional<Response>(const Request&, const std::shared_ptr<EventStream>& stream)>;
using Handler = std::variant<SyncHandler, AsyncHandler, StreamHandler>;

class Server {
 public:
  explicit Server(ServerOptions options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Registers a handler; only before start(). Refuses a malformed pattern or
  // a method and pattern already registered. A handler throwing an exception
  // answers 500.
  base::Status add_route(std::string_view method, std::string_view pattern, Handler handler);

  // The handler's kind from its signature: Response(const Request&),
  // void(Request, Reply) or std::optional<Response>(const Request&, const std::shared_ptr<EventStream>&).
  template <class F>
  base::Status route(std::string_view method, std::string_view pattern, F&& handler) {
    if constexpr (std::is_invocable_r_v<std::optional<Response>, F&, const Request&,
                                        const std::shared_ptr<EventStream>&>) {
      return add_route(method, pattern, StreamHandler(std::forward<F>(handler)));
    } else if constexpr (std::is_invocable_v<F&, Request, Reply>) {
      return add_route(method, pattern, AsyncHandler(std::forward<F>(handler)));
    } else {
      static_assert(std::is_invocable_r_v<Response, F&, const Request&>, "not a handler signature");
      return add_route(method, pattern, SyncHandler(std::forward<F>(handler)));
    }
  }

  // Answers one request (as parse_request() gives it) as a connection
  // would after reading it, without a socket, the rate limit or the
  // counters: the route is matched (400 for a malformed path, 404, 405 with
  // Allow), the handler runs on the calling thread, an asynchronous
  // handler's Reply is waited for, and a handler that throws answers 500.
  // An event-stream route that accepts answers 200 text/event-stream with
  // the frames its handler queued (a replayed backlog) as the body; the
  // stream is then detached, as when a client leaves. Callable before or
  // after start(); for tests and fuzzing of the routes an application
  // registers.
  Response dispatch(Request request) const;

  // Binds, listens and starts the io threads. io_error naming the address
  // and port when binding fails; invalid_argument for a bad address.
  base::Status start();
  // Closes the listener and every connection (open event streams read as
  // closed), then joins the io threads. Idempotent.
  void stop();

  // The bound port (the ephemeral one when options.port was 0); 0 before start().
  std::uint16_t port() const noexcept;
  const ServerOptions& options() const noexcept;
  ServerStats stats() const;

  class Core;

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace sion::http
