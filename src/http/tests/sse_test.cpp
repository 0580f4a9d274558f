// Server-sent event streams end to end: order, keep-alive comments,
// Last-Event-ID, closed(), and a slow subscriber that lags out while a fast
// one on the same server gets every event.

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "sion/http/client.hpp"
#include "sion/http/server.hpp"
#include "sion/http/sse_reader.hpp"
#include "sion/http/testing/raw_socket.hpp"

namespace sion::http {
namespace {

using namespace std::chrono_literals;
using testing::connect_raw;
using testing::eventually;
using testing::read_until;
using testing::read_until_close;
using testing::send_all;

// The streams the route handed out, for the test to push to.
class Subscribers {
 public:
  std::optional<Response> add(const Request& request, const std::shared_ptr<EventStream>& stream) {
    std::lock_guard lock(mutex_);
    if (request.query_param("refuse")) return json_error(404, "not_found", "no such stream");
    streams_.push_back(stream);
    last_event_ids_.push_back(request.last_event_id().value_or("<none>"));
    return std::nullopt;
  }
  std::size_t count() {
    std::lock_guard lock(mutex_);
    return streams_.size();
  }
  std::shared_ptr<EventStream> at(std::size_t i) {
    std::lock_guard lock(mutex_);
    return streams_.at(i);
  }
  std::string last_event_id(std::size_t i) {
    std::lock_guard lock(mutex_);
    return last_event_ids_.at(i);
  }
  void push_all(const Event& event) {
    std::lock_guard lock(mutex_);
    for (const auto& stream : streams_) stream->push(event);
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<EventStream>> streams_;
  std::vector<std::string> last_event_ids_;
};

struct Fixture {
  explicit Fixture(ServerOptions options = {})
      : server([&] {
          options.port = 0;
          return options;
        }()) {
    EXPECT_TRUE(
        server.route("GET", "/v1/events", [this](const Request& request, const std::shared_ptr<EventStream>& stream) {
          return subscribers.add(request, stream);
        }));
    EXPECT_TRUE(server.start());
  }
  Client client() { return Client::create("http://127.0.0.1:" + std::to_string(server.port())).value(); }

  Subscribers subscribers;
  Server server;
};

TEST(EventStreams, DeliverEventsInOrderAndSeeLastEventId) {
  Fixture fixture;
  Client client = fixture.client();
  auto subscription = client.subscribe("/v1/events", "41");
  ASSERT_TRUE(subscription) << subscription.error().to_string();
  ASSERT_EQ(fixture.subscribers.count(), 1u);
  EXPECT_EQ(fixture.subscribers.last_event_id(0), "41");
  auto stream = fixture.subscribers.at(0);
  std::thread pusher([&] {
    for (int i = 42; i < 242; ++i)
      stream->push(Event{std::to_string(i), "executed", "tx " + std::to_string(i) + "\nok"});
  });
  for (int i = 42; i < 242; ++i) {
    auto event = subscription->next_event(5s);
    ASSERT_TRUE(event) << event.error().to_string();
    ASSERT_TRUE(event->has_value()) << "timed out at " << i;
    EXPECT_EQ(**event, (Event{std::to_string(i), "executed", "tx " + std::to_string(i) + "\nok"}));
  }
  pusher.join();
  EXPECT_EQ(subscription->last_event_id(), "241");
  // Nothing more: a timeout, and the subscription stays usable.
  auto none = subscription->next_event(50ms);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  stream->push(Event{"", "", "after"});
  auto after = subscription->next_event(5s);
  ASSERT_TRUE(after && after->has_value());
  EXPECT_EQ((*after)->data, "after");
  EXPECT_EQ((*after)->type, "message");
  // The application ends the stream: the reader sees it closed.
  stream->close();
  auto closed = subscription->next_event(5s);
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().code, base::Errc::io_error);

  // A refused subscription is an error quoting the server's body.
  auto refused = client.subscribe("/v1/events?refuse=1");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, base::Errc::not_found);
  EXPECT_NE(refused.error().reason.find("no such stream"), std::string::npos);
}

TEST(EventStreams, SendKeepAliveCommentsAndNoticeTheClientLeaving) {
  ServerOptions options;
  options.sse_keepalive = 100ms;
  Fixture fixture(options);
  const int fd = connect_raw(fixture.server.port());
  send_all(fd, "GET /v1/events HTTP/1.1\r\nAccept: text/event-stream\r\n\r\n");
  const std::string head = read_until(fd, ": keep-alive\n\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Content-Type: text/event-stream\r\n"), std::string::npos);
  EXPECT_NE(head.find(": keep-alive\n\n"), std::string::npos);
  EXPECT_EQ(fixture.subscribers.last_event_id(0), "<none>");
  auto stream = fixture.subscribers.at(0);
  EXPECT_FALSE(stream->closed());
  EXPECT_EQ(fixture.server.stats().sse_streams_open, 1u);
  // The application hears of the client leaving without pushing.
  auto detached = std::make_shared<std::atomic<int>>(0);
  stream->on_detach([detached] { ++*detached; });
  EXPECT_EQ(*detached, 0);
  ::close(fd);
  EXPECT_TRUE(eventually([&] { return *detached == 1; }));
  EXPECT_TRUE(stream->closed());
  EXPECT_FALSE(stream->push(Event{"1", "", "x"}));
  EXPECT_TRUE(eventually([&] { return fixture.server.stats().sse_streams_open == 0; }));
  EXPECT_EQ(*detached, 1);
}

TEST(EventStreams, OnDetachRunsOnceAndAtOnceWhenAlreadyDetached) {
  EventStream stream(EventStreamLimits{});
  int calls = 0;
  stream.on_detach([&] { ++calls; });
  stream.close();  // closing is not yet detaching: the server still writes what is queued
  EXPECT_EQ(calls, 0);
  stream.detach();
  stream.detach();
  EXPECT_EQ(calls, 1);
  int late = 0;
  stream.on_detach([&] { ++late; });
  EXPECT_EQ(late, 1);
}

TEST(EventStreams, SlowSubscriberLagsOutWhileAFastOneGetsEverything) {
  ServerOptions options;
  options.sse_max_buffered_bytes = 2 << 20;  // 200 ms of a stalled fast reader at this pace
  options.sse_max_buffered_events = 8192;
  options.sse_lagged_grace = 30s;  // the test reads the slow socket only after the pushes
  Fixture fixture(options);
  constexpr int kEvents = 8000;
  const std::string payload(1000, 'p');

  // The slow one: a tiny receive buffer and nobody reading.
  const int slow = connect_raw(fixture.server.port(), 5000ms, 4096);
  ASSERT_GE(slow, 0);
  send_all(slow, "GET /v1/events HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(eventually([&] { return fixture.subscribers.count() == 1; }));
  Client client = fixture.client();
  auto fast = client.subscribe("/v1/events");
  ASSERT_TRUE(fast);
  ASSERT_EQ(fixture.subscribers.count(), 2u);

  std::atomic<int> received{0};
  std::atomic<bool> in_order{true};
  std::thread reader([&] {
    for (int i = 0; i < kEvents; ++i) {
      auto event = fast->next_event(10s);
      if (!event || !event->has_value() || (*event)->id != std::to_string(i)) {
        in_order = false;
        return;
      }
      received = i + 1;
    }
  });
  // Paced in bursts, so only a reader that stops reading falls behind.
  for (int i = 0; i < kEvents; ++i) {
    fixture.subscribers.push_all(Event{std::to_string(i), "", payload});
    if (i % 20 == 19) std::this_thread::sleep_for(2ms);
  }
  reader.join();
  EXPECT_TRUE(in_order);
  EXPECT_EQ(received.load(), kEvents);
  ASSERT_TRUE(eventually([&] { return fixture.server.stats().sse_lagged == 1; }));
  EXPECT_TRUE(fixture.subscribers.at(0)->lagged());
  EXPECT_FALSE(fixture.subscribers.at(1)->lagged());

  // The slow one reads now: a prefix of the events in order, then `lagged`, then the end.
  auto rest = read_until_close(slow);
  ::close(slow);
  EXPECT_TRUE(rest.closed);
  const std::size_t body = rest.bytes.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  SseParser parser;
  parser.feed(std::string_view(rest.bytes).substr(body + 4));
  int next_id = 0;
  std::optional<Event> last;
  while (auto event = parser.next()) {
    if (event->type == "message") {
      EXPECT_EQ(event->id, std::to_string(next_id++));
    }
    last = std::move(event);
  }
  EXPECT_GT(next_id, 0);
  EXPECT_LT(next_id, kEvents);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->type, "lagged");
  EXPECT_NE(last->data.find("fell behind"), std::string::npos);
}

TEST(EventStreams, StopClosesOpenStreams) {
  auto fixture = std::make_unique<Fixture>();
  Client client = fixture->client();
  auto subscription = client.subscribe("/v1/events");
  ASSERT_TRUE(subscription);
  auto stream = fixture->subscribers.at(0);
  fixture->server.stop();
  EXPECT_TRUE(stream->closed());
  EXPECT_FALSE(stream->push(Event{"1", "", "x"}));
  auto after = subscription->next_event(5s);
  EXPECT_FALSE(after);
  fixture.reset();
}

}  // namespace
}  // namespace sion::http
