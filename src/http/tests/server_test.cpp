// The server over real sockets on 127.0.0.1 (ephemeral ports): routing,
// synchronous and asynchronous handlers, limits, timeouts, rate limiting,
// keep-alive, and the client against it.

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "sion/base/json.hpp"
#include "sion/http/client.hpp"
#include "sion/http/parse.hpp"
#include "sion/http/server.hpp"
#include "sion/http/testing/raw_socket.hpp"

namespace sion::http {
namespace {

using namespace std::chrono_literals;
using testing::connect_raw;
using testing::eventually;
using testing::read_until_close;
using testing::send_all;
using testing::status_of;

ServerOptions test_options() {
  ServerOptions options;
  options.port = 0;
  return options;
}

std::string url_of(const Server& server) { return "http://127.0.0.1:" + std::to_string(server.port()); }

Client client_of(const Server& server) { return Client::create(url_of(server)).value(); }

std::string error_code_of(const ClientResponse& response) {
  auto json = base::parse_json(response.body);
  if (!json) return "not JSON: " + response.body;
  return (*json)["error"]["code"].get<std::string>();
}

// Sends raw bytes on a new connection and returns everything until close.
testing::ReadResult round_trip(const Server& server, std::string_view bytes) {
  const int fd = connect_raw(server.port());
  EXPECT_GE(fd, 0);
  send_all(fd, bytes);
  auto result = read_until_close(fd);
  ::close(fd);
  return result;
}

// Threads an async handler starts, joined at the end of the test.
class Workers {
 public:
  ~Workers() {
    std::lock_guard lock(mutex_);
    for (auto& thread : threads_) thread.join();
  }
  template <class F>
  void run(F&& work) {
    std::lock_guard lock(mutex_);
    threads_.emplace_back(std::forward<F>(work));
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

TEST(Server, RoutesWithPathAndQueryParameters) {
  Server server(test_options());
  ASSERT_TRUE(server.route("GET", "/v1/pulses/{height}/shares/{row}/{col}", [](const Request& request) {
    return Response::text(200, *request.param("height") + "," + *request.param("row") + "," + *request.param("col") +
                                   "," + request.query.at("proof") + "," + request.client_address);
  }));
  ASSERT_TRUE(
      server.route("POST", "/v1/echo", [](const Request& request) { return Response::json(201, request.body); }));
  ASSERT_TRUE(server.start());
  EXPECT_NE(server.port(), 0);
  Client client = client_of(server);

  auto got = client.get("/v1/pulses/7/shares/1/2?proof=a%20b");
  ASSERT_TRUE(got) << got.error().to_string();
  EXPECT_EQ(got->status, 200u);
  EXPECT_EQ(got->body, "7,1,2,a b,127.0.0.1");

  auto posted = client.post("/v1/echo", "{\"x\":1}");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 201u);
  EXPECT_EQ(posted->body, "{\"x\":1}");
  EXPECT_EQ(*posted->header("content-type"), "application/json");

  auto missing = client.get("/v1/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404u);
  EXPECT_EQ(error_code_of(*missing), "not_found");

  auto wrong = client.post("/v1/pulses/7/shares/1/2", "");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405u);
  EXPECT_EQ(error_code_of(*wrong), "method_not_allowed");
  ASSERT_NE(wrong->header("Allow"), nullptr);
  EXPECT_EQ(*wrong->header("Allow"), "GET");

  auto duplicate = client.get("/v1/pulses/7/shares/1/2?proof=1&proof=2");
  ASSERT_TRUE(duplicate);
  EXPECT_EQ(duplicate->status, 400u);

  // The server records a request once its answer is written, which may be
  // just after the client has read it.
  ServerStats stats = server.stats();
  for (int i = 0; i < 200 && stats.latency_count < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stats = server.stats();
  }
  EXPECT_EQ(stats.connections_accepted, 1u);  // one kept-alive connection for all five
  EXPECT_GE(stats.responses_by_class[1], 2u);
  EXPECT_GE(stats.responses_by_class[3], 3u);
  EXPECT_EQ(stats.latency_count, 5u);
  std::uint64_t bucketed = 0;
  for (const auto count : stats.latency_buckets) bucketed += count;
  EXPECT_EQ(bucketed, 5u);
  EXPECT_FALSE(server.route("GET", "/late", [](const Request&) { return Response{}; }));  // after start()
}

Request parsed(std::string_view bytes) { return parse_request(base::as_bytes(bytes), ServerOptions{}).value(); }

TEST(Server, DispatchesParsedRequestsWithoutASocket) {
  Workers workers;
  Server server(test_options());  // never started
  ASSERT_TRUE(server.route("GET", "/v1/pulses/{height}", [](const Request& request) {
    return Response::text(200, *request.param("height") + "," + request.query.at("proof"));
  }));
  ASSERT_TRUE(server.route("POST", "/v1/check", [&](Request request, Reply reply) {
    if (request.body == "throw") throw std::runtime_error("handler bug");
    workers.run([request = std::move(request), reply = std::move(reply)]() mutable {
      if (request.body == "drop") return;  // the Reply goes away uncalled
      reply(Response::json(202, request.body));
    });
  }));
  ASSERT_TRUE(server.route("GET", "/v1/throws", [](const Request&) -> Response { throw std::runtime_error("bug"); }));
  std::atomic<int> detached{0};
  ASSERT_TRUE(
      server.route("GET", "/v1/events",
                   [&](const Request& request, const std::shared_ptr<EventStream>& stream) -> std::optional<Response> {
                     if (request.query_param("refuse")) return json_error(404, "not_found", "no such stream");
                     stream->on_detach([&] { ++detached; });
                     stream->push(Event{"7", "pulse", "{}"});
                     return std::nullopt;
                   }));

  const Response found = server.dispatch(parsed("GET /v1/pulses/%37?proof=a+b HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(found.status, 200u);
  EXPECT_EQ(found.body, "7,a b");
  const Response missing = server.dispatch(parsed("GET /v1/nothing HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(missing.status, 404u);
  EXPECT_NE(missing.body.find("\"not_found\""), std::string::npos);
  const Response wrong = server.dispatch(parsed("DELETE /v1/pulses/7 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(wrong.status, 405u);
  ASSERT_NE(find_field(wrong.headers, "Allow"), nullptr);
  EXPECT_EQ(*find_field(wrong.headers, "Allow"), "GET");
  const Response malformed = server.dispatch(parsed("GET /v1/pulses/%zz HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(malformed.status, 400u);
  EXPECT_NE(malformed.body.find("\"bad_request\""), std::string::npos);
  EXPECT_EQ(server.dispatch(parsed("GET /v1/throws HTTP/1.1\r\n\r\n")).status, 500u);

  // An asynchronous handler's answer is waited for, however it comes.
  const Response answered = server.dispatch(parsed("POST /v1/check HTTP/1.1\r\nContent-Length: 2\r\n\r\nok"));
  EXPECT_EQ(answered.status, 202u);
  EXPECT_EQ(answered.body, "ok");
  const Response dropped = server.dispatch(parsed("POST /v1/check HTTP/1.1\r\nContent-Length: 4\r\n\r\ndrop"));
  EXPECT_EQ(dropped.status, 500u);
  const Response thrown = server.dispatch(parsed("POST /v1/check HTTP/1.1\r\nContent-Length: 5\r\n\r\nthrow"));
  EXPECT_EQ(thrown.status, 500u);

  // A stream: what was queued at once, then detached as if the client left.
  const Response stream = server.dispatch(parsed("GET /v1/events HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(stream.status, 200u);
  EXPECT_EQ(stream.content_type, "text/event-stream");
  EXPECT_EQ(stream.body, "id: 7\nevent: pulse\ndata: {}\n\n");
  EXPECT_EQ(detached, 1);
  EXPECT_EQ(server.dispatch(parsed("GET /v1/events?refuse=1 HTTP/1.1\r\n\r\n")).status, 404u);
  EXPECT_EQ(detached, 1);
  // Nothing was counted: no connection carried these.
  EXPECT_EQ(server.stats().responses_by_class[1], 0u);
}

TEST(Server, AsyncRepliesFromAnotherThreadAndDroppedRepliesAnswer500) {
  Workers workers;
  Server server(test_options());
  ASSERT_TRUE(server.route("POST", "/v1/check", [&](Request request, Reply reply) {
    workers.run([request = std::move(request), reply = std::move(reply)]() mutable {
      std::this_thread::sleep_for(20ms);
      reply(Response::text(200, "checked " + request.body));
      reply(Response::text(200, "twice"));  // ignored
    });
  }));
  ASSERT_TRUE(server.route("GET", "/v1/dropped", [&](Request, Reply reply) {
    workers.run([reply = std::move(reply)]() mutable {
      std::this_thread::sleep_for(10ms);
      Reply gone = std::move(reply);
    });
  }));
  ASSERT_TRUE(server.route("GET", "/v1/throws", [](const Request&) -> Response { throw std::runtime_error("x"); }));
  ASSERT_TRUE(server.route("GET", "/v1/throws-async", [](Request, Reply) { throw std::runtime_error("x"); }));
  ASSERT_TRUE(server.start());
  Client client = client_of(server);

  auto checked = client.post("/v1/check", "tx", "text/plain");
  ASSERT_TRUE(checked) << checked.error().to_string();
  EXPECT_EQ(checked->status, 200u);
  EXPECT_EQ(checked->body, "checked tx");
  for (const char* path : {"/v1/dropped", "/v1/throws", "/v1/throws-async"}) {
    auto failed = client.get(path);
    ASSERT_TRUE(failed) << path;
    EXPECT_EQ(failed->status, 500u) << path;
    EXPECT_EQ(error_code_of(*failed), "internal");
  }
  // The connection survived all of them.
  EXPECT_EQ(server.stats().connections_accepted, 1u);
  EXPECT_EQ(server.stats().handler_errors, 3u);
}

TEST(Server, RefusesOversizedBodiesAndHeaders) {
  ServerOptions options = test_options();
  options.max_body_bytes = 1024;
  options.max_header_bytes = 2048;
  Server server(options);
  ASSERT_TRUE(server.route("POST", "/", [](const Request& request) { return Response::text(200, request.body); }));
  ASSERT_TRUE(server.start());

  Client client = client_of(server);
  auto fits = client.post("/", std::string(1024, 'a'));
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->status, 200u);
  auto too_big = client.post("/", std::string(1025, 'a'));
  ASSERT_TRUE(too_big) << too_big.error().to_string();
  EXPECT_EQ(too_big->status, 413u);
  EXPECT_EQ(error_code_of(*too_big), "body_too_large");

  // A declared length over the limit is refused before the body is sent.
  auto declared = round_trip(server, "POST / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n");
  EXPECT_EQ(status_of(declared.bytes), 413u);
  EXPECT_TRUE(declared.closed);

  auto chunked = round_trip(server, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" +
                                        std::string(2048, 'b') + "\r\n0\r\n\r\n");
  EXPECT_EQ(status_of(chunked.bytes), 413u);

  auto header = round_trip(server, "GET / HTTP/1.1\r\nX-Big: " + std::string(4096, 'h') + "\r\n\r\n");
  EXPECT_EQ(status_of(header.bytes), 431u);
  EXPECT_NE(header.bytes.find("header_too_large"), std::string::npos);
  EXPECT_TRUE(header.closed);
}

TEST(Server, TellsAWaitingClientToContinue) {
  Server server(test_options());
  ASSERT_TRUE(server.route("POST", "/", [](const Request& request) { return Response::text(200, request.body); }));
  ASSERT_TRUE(server.start());
  const int fd = connect_raw(server.port());
  send_all(fd, "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(testing::read_until(fd, "\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
  send_all(fd, "hello");
  auto answer = read_until_close(fd);
  ::close(fd);
  EXPECT_EQ(status_of(answer.bytes), 200u);
  EXPECT_NE(answer.bytes.find("\r\n\r\nhello"), std::string::npos);
}

TEST(Server, AnswersMalformedRequestsWith4xxAndCloses) {
  Server server(test_options());
  ASSERT_TRUE(server.route("GET", "/", [](const Request&) { return Response::text(200, "ok"); }));
  ASSERT_TRUE(server.start());
  const std::vector<std::pair<std::string, unsigned>> cases = {
      {"\x16\x03\x01garbage\r\n\r\n", 400},
      {"GET / HTTP/1.1 extra\r\n\r\n", 400},
      {"G(T / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/9.9\r\n\r\n", 400},
      {"GET / HTTQ/1.1\r\n\r\n", 400},
      {"GET * HTTP/1.1\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", 400},
      {"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nBad Header\r\n\r\n", 400},
      {"GET /a%zz HTTP/1.1\r\n\r\n", 400},
      {"GET /?a=1&a=2 HTTP/1.1\r\n\r\n", 400},
  };
  for (const auto& [bytes, status] : cases) {
    auto answer = round_trip(server, bytes);
    EXPECT_EQ(status_of(answer.bytes), status) << bytes << "\n-> " << answer.bytes;
    EXPECT_NE(answer.bytes.find("{\"error\":{\"code\":"), std::string::npos) << answer.bytes;
    EXPECT_TRUE(answer.closed);
  }
  // Truncated: the client gives up half-way; the server answers (if it can) and closes.
  const int fd = connect_raw(server.port());
  send_all(fd, "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc");
  ::shutdown(fd, SHUT_WR);
  auto truncated = read_until_close(fd);
  ::close(fd);
  EXPECT_TRUE(truncated.closed);
  EXPECT_TRUE(truncated.bytes.empty() || status_of(truncated.bytes) == 400u) << truncated.bytes;
  EXPECT_GE(server.stats().malformed_requests, cases.size());
  // And it still serves.
  auto fine = client_of(server).get("/");
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->status, 200u);
}

TEST(Server, TimesOutSlowHeadersAndBodies) {
  ServerOptions options = test_options();
  options.header_timeout = 300ms;
  options.request_timeout = 300ms;
  Server server(options);
  ASSERT_TRUE(server.route("POST", "/", [](const Request&) { return Response::text(200, "ok"); }));
  ASSERT_TRUE(server.start());

  const auto started = std::chrono::steady_clock::now();
  const int slow_header = connect_raw(server.port());
  send_all(slow_header, "POST / HTTP/1.1\r\nHost: x\r\n");
  const int slow_body = connect_raw(server.port());
  send_all(slow_body, "POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc");
  const int silent = connect_raw(server.port());
  auto header = read_until_close(slow_header);
  auto body = read_until_close(slow_body);
  auto nothing = read_until_close(silent);
  const auto elapsed = std::chrono::steady_clock::now() - started;
  ::close(slow_header);
  ::close(slow_body);
  ::close(silent);
  EXPECT_EQ(status_of(header.bytes), 408u);
  EXPECT_TRUE(header.closed);
  EXPECT_EQ(status_of(body.bytes), 408u);
  EXPECT_TRUE(body.closed);
  EXPECT_TRUE(nothing.bytes.empty());
  EXPECT_TRUE(nothing.closed);
  EXPECT_LT(elapsed, 3s);
  EXPECT_EQ(server.stats().timeouts, 3u);
}

TEST(Server, ClosesIdleKeepAliveConnections) {
  ServerOptions options = test_options();
  options.idle_timeout = 200ms;
  Server server(options);
  ASSERT_TRUE(server.route("GET", "/", [](const Request&) { return Response::text(200, "ok"); }));
  ASSERT_TRUE(server.start());
  const int fd = connect_raw(server.port());
  send_all(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  auto answer = read_until_close(fd);
  ::close(fd);
  EXPECT_EQ(status_of(answer.bytes), 200u);
  EXPECT_TRUE(answer.closed);
  EXPECT_TRUE(eventually([&] { return server.stats().connections_open == 0; }));
}

TEST(Server, RefusesConnectionsOverTheLimit) {
  ServerOptions options = test_options();
  options.max_connections = 2;
  Server server(options);
  ASSERT_TRUE(server.route("GET", "/", [](const Request&) { return Response::text(200, "ok"); }));
  ASSERT_TRUE(server.start());
  const int first = connect_raw(server.port());
  const int second = connect_raw(server.port());
  ASSERT_TRUE(eventually([&] { return server.stats().connections_open == 2; }));
  const int third = connect_raw(server.port());
  auto refused = read_until_close(third);
  EXPECT_TRUE(refused.closed);
  EXPECT_TRUE(refused.bytes.empty());
  EXPECT_EQ(server.stats().connections_refused, 1u);
  ::close(third);
  ::close(first);
  ASSERT_TRUE(eventually([&] { return server.stats().connections_open == 1; }));
  auto again = client_of(server).get("/");
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_EQ(again->status, 200u);
  ::close(second);
}

TEST(Server, RateLimitsPerAddressUnlessLoopbackIsExempt) {
  for (const bool exempt : {false, true}) {
    ServerOptions options = test_options();
    options.rate_limit = RateLimit{2, 3, exempt};
    Server server(options);
    ASSERT_TRUE(server.route("GET", "/", [](const Request&) { return Response::text(200, "ok"); }));
    ASSERT_TRUE(server.start());
    Client client = client_of(server);
    int ok = 0;
    int limited = 0;
    for (int i = 0; i < 10; ++i) {
      auto response = client.get("/");
      ASSERT_TRUE(response);
      if (response->status == 200) ++ok;
      if (response->status == 429) {
        ++limited;
        EXPECT_EQ(error_code_of(*response), "rate_limited");
        EXPECT_EQ(*response->header("Retry-After"), "1");
      }
    }
    if (exempt) {
      EXPECT_EQ(ok, 10);
      EXPECT_EQ(server.stats().rate_limited, 0u);
    } else {
      // The burst of 3, and maybe one more refilled while the loop ran.
      EXPECT_GE(ok, 3);
      EXPECT_LE(ok, 5);
      EXPECT_EQ(ok + limited, 10);
      EXPECT_EQ(server.stats().rate_limited, static_cast<std::uint64_t>(limited));
    }
  }
}

TEST(Server, ClientReconnectsWhenTheServerClosedTheConnection) {
  ServerOptions options = test_options();
  options.max_requests_per_connection = 2;
  Server server(options);
  ASSERT_TRUE(server.route("GET", "/", [](const Request&) { return Response::text(200, "ok"); }));
  ASSERT_TRUE(server.start());
  Client client = client_of(server);
  for (int i = 0; i < 5; ++i) {
    auto response = client.get("/");
    ASSERT_TRUE(response) << response.error().to_string();
    EXPECT_EQ(response->status, 200u);
  }
  EXPECT_EQ(server.stats().connections_accepted, 3u);

  // A client whose server went away says so.
  server.stop();
  auto gone = client.get("/");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, base::Errc::io_error);
}

TEST(Server, ReportsBindFailuresWithAddressAndPort) {
  Server first(test_options());
  ASSERT_TRUE(first.start());
  ServerOptions options = test_options();
  options.port = first.port();
  Server second(options);
  auto started = second.start();
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, base::Errc::io_error);
  EXPECT_NE(started.error().reason.find("127.0.0.1 port " + std::to_string(first.port())), std::string::npos)
      << started.error().reason;
  // The operating system's reason, not that of the cleanup after it.
  EXPECT_NE(started.error().reason.find("in use"), std::string::npos) << started.error().reason;
  options.address = "not-an-address";
  Server third(options);
  EXPECT_EQ(third.start().error().code, base::Errc::invalid_argument);
}

TEST(Server, StopsWithRequestsInFlight) {
  std::atomic<bool> release{false};  // outlives the workers that poll it
  Workers workers;
  auto server = std::make_unique<Server>(test_options());
  ASSERT_TRUE(server->route("GET", "/slow", [&](Request, Reply reply) {
    workers.run([&release, reply = std::move(reply)]() mutable {
      while (!release) std::this_thread::sleep_for(5ms);
      reply(Response::text(200, "late"));  // after the server is gone: nothing happens
    });
  }));
  ASSERT_TRUE(server->start());
  const int fd = connect_raw(server->port(), 3000ms);
  send_all(fd, "GET /slow HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(eventually([&] { return server->stats().connections_open == 1; }));
  std::this_thread::sleep_for(20ms);
  const auto started = std::chrono::steady_clock::now();
  server.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  release = true;
  auto answer = read_until_close(fd);
  ::close(fd);
  EXPECT_TRUE(answer.closed);
  EXPECT_TRUE(answer.bytes.empty());
}

}  // namespace
}  // namespace sion::http
