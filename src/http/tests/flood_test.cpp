// More than 10,000 abusive connections at once — idle ones held open, slow
// partial requests, oversized headers and bodies, malformed request lines,
// bad chunking, garbage bytes — while a well-behaved client keeps getting
// correct answers within a bounded latency.

#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <random>
#include <thread>
#include <vector>

#include "sion/http/client.hpp"
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

constexpr int kIdle = 1000;
constexpr int kSlow = 200;
constexpr int kMalformedPerThread = 4500;
constexpr int kMalformedThreads = 2;

// One malformed request of kind `kind`; the status it must get (0: any or none).
std::pair<std::string, unsigned> malformed(int kind, std::mt19937& random) {
  switch (kind % 8) {
    case 0: {
      std::string garbage(1 + random() % 600, '\0');
      for (char& c : garbage) c = static_cast<char>(random());
      garbage[0] = '\x01';  // never a valid method
      return {garbage, 400};
    }
    case 1: return {"BR@KEN / HTTP/1.1\r\n\r\n", 400};
    case 2: return {"GET / HTTP/1.x\r\n\r\n", 400};
    case 3: return {"GET /ping HTTP/1.1\r\nX-Fill: " + std::string(9000, 'x') + "\r\n\r\n", 431};
    case 4: return {"POST /ping HTTP/1.1\r\nContent-Length: 70000\r\n\r\n" + std::string(70000, 'b'), 413};
    case 5: return {"POST /ping HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc\r\nnot-a-size\r\n", 400};
    case 6: return {"GET /ping HTTP/1.1\r\nHost: x\r\nContent-Le", 400};  // truncated by the client's close
    default: return {"GET /ping?a=1&a=2 HTTP/1.1\r\n\r\n", 400};
  }
}

TEST(Flood, ServerKeepsServingOthersThroughTenThousandBadConnections) {
  const rlim_t limit = testing::raise_fd_limit(8192);
  ASSERT_GE(limit, static_cast<rlim_t>(2 * (kIdle + kSlow) + 256)) << "raise `ulimit -n`";

  ServerOptions options;
  options.port = 0;
  options.header_timeout = 3s;
  options.request_timeout = 3s;
  options.max_connections = 4096;
  options.max_body_bytes = 64 * 1024;
  Server server(options);
  ASSERT_TRUE(server.route("GET", "/ping", [](const Request&) { return Response::text(200, "pong"); }));
  ASSERT_TRUE(server.start());

  // Idle connections that never send a byte, all open at once.
  std::vector<int> idle;
  for (int i = 0; i < kIdle; ++i) {
    const int fd = connect_raw(server.port(), 10s);
    ASSERT_GE(fd, 0) << "connection " << i;
    idle.push_back(fd);
  }

  std::atomic<bool> flooding{true};
  // The well-behaved client.
  std::atomic<int> good{0};
  std::atomic<int> bad{0};
  std::atomic<std::int64_t> worst_micros{0};
  std::thread well_behaved([&] {
    Client client = Client::create("http://127.0.0.1:" + std::to_string(server.port())).value();
    while (flooding) {
      const auto started = std::chrono::steady_clock::now();
      auto response = client.get("/ping");
      const auto micros =
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count();
      if (micros > worst_micros) worst_micros = micros;
      if (response && response->status == 200 && response->body == "pong") {
        ++good;
      } else {
        ++bad;
      }
      std::this_thread::sleep_for(2ms);
    }
  });

  // Slow clients: one byte of a request at a time, never finishing in time.
  std::atomic<int> slow_408{0};
  std::thread slow_thread([&] {
    const std::string request = "GET /ping HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(200, 's');
    std::vector<int> slow;
    for (int i = 0; i < kSlow; ++i) slow.push_back(connect_raw(server.port(), 10s));
    for (std::size_t at = 0; at < request.size() && flooding; ++at) {
      for (const int fd : slow) send_all(fd, std::string_view(request).substr(at, 1));
      std::this_thread::sleep_for(50ms);
    }
    for (const int fd : slow) {
      if (status_of(read_until_close(fd).bytes) == 408) ++slow_408;
      ::close(fd);
    }
  });

  std::atomic<int> answered{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> flooders;
  for (int t = 0; t < kMalformedThreads; ++t) {
    flooders.emplace_back([&, t] {
      std::mt19937 random(static_cast<unsigned>(1000 + t));
      for (int i = 0; i < kMalformedPerThread; ++i) {
        const auto [bytes, expected] = malformed(i, random);
        const int fd = connect_raw(server.port(), 5s);
        if (fd < 0) {
          ++wrong;
          continue;
        }
        send_all(fd, bytes);
        ::shutdown(fd, SHUT_WR);
        const auto answer = read_until_close(fd);
        ::close(fd);
        const unsigned status = status_of(answer.bytes);
        if (status == expected) {
          ++answered;
        } else if (status != 0 || !answer.closed) {
          ++wrong;  // a wrong answer, or the server never closed
        }
      }
    });
  }
  for (auto& thread : flooders) thread.join();
  flooding = false;
  slow_thread.join();
  well_behaved.join();

  // The idle connections were closed by the server's header timeout.
  int idle_closed = 0;
  for (const int fd : idle) {
    const auto answer = read_until_close(fd);
    if (answer.closed && answer.bytes.empty()) ++idle_closed;
    ::close(fd);
  }

  const ServerStats stats = server.stats();
  EXPECT_EQ(wrong.load(), 0);
  // A reset may cost a response now and then; nearly all got theirs.
  EXPECT_GE(answered.load(), kMalformedThreads * kMalformedPerThread * 99 / 100);
  EXPECT_EQ(idle_closed, kIdle);
  EXPECT_GE(slow_408.load(), kSlow * 9 / 10);
  EXPECT_GE(stats.malformed_requests, static_cast<std::uint64_t>(kMalformedThreads * kMalformedPerThread * 9 / 10));
  EXPECT_GE(stats.timeouts, static_cast<std::uint64_t>(kIdle));
  EXPECT_EQ(stats.connections_refused, 0u);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GE(good.load(), 20);
  EXPECT_LT(worst_micros.load(), 2'000'000) << "a good request waited too long";
  EXPECT_TRUE(eventually([&] { return server.stats().connections_open == 0; }, 10s));
  std::cout << "flood: " << answered << " malformed answered, " << good << " good requests, worst "
            << worst_micros / 1000 << " ms\n";
}

}  // namespace
}  // namespace sion::http
