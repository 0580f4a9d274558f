#pragma once
// A server-sent event stream to one subscriber. The application pushes
// events from any thread without blocking; the server writes them to the
// socket. Each stream buffers at most a bounded number of bytes and events not
// yet written: a subscriber that falls behind past that bound is sent a final
// `event: lagged` and disconnected, so it never silently misses events and
// never slows the others (docs/http.md, "Event streams").

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "sion/http/event.hpp"

namespace sion::http {

struct EventStreamLimits {
  std::size_t max_bytes = 1024 * 1024;
  std::size_t max_events = 4096;
};

class EventStream {
 public:
  explicit EventStream(EventStreamLimits limits);
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  // Queues the event. False, and nothing queued, when the stream is closed
  // (the client left, the app closed it, or it lagged). Never blocks.
  bool push(const Event& event);
  // Ends the stream after the events already queued.
  void close();
  // The client left, the server stopped, or the stream lagged or was closed.
  bool closed() const;
  bool lagged() const;
  // Calls `done` once when the server detaches the stream (the connection
  // is gone: the client left, the server stopped, or it finished a closed
  // or lagged stream), or at once if it has. An application that feeds the
  // stream from a subscription drops the subscription here, instead of
  // waiting for a push to fail, which may never come (an idle chain, a
  // filter nothing matches). Called without the stream's lock held; a
  // later call replaces `done`.
  void on_detach(std::function<void()> done);

  // ---- For the server that writes the stream. ----
  struct Batch {
    std::string bytes;       // frames to write, in order
    std::size_t events = 0;  // how many buffered events they hold
    bool finish = false;     // after writing them, close the connection
  };
  // `wake` is called (from the pushing thread, at most once until the next
  // take()) when frames are waiting.
  void attach(std::function<void()> wake);
  // Takes every queued frame; they stay counted against the bound until written().
  Batch take();
  void written(std::size_t bytes, std::size_t events);
  // The connection is gone; later pushes are refused.
  void detach();

 private:
  void wake_locked(std::function<void()>& to_call);

  const EventStreamLimits limits_;
  mutable std::mutex mutex_;
  std::deque<std::string> queue_;
  std::size_t queued_events_ = 0;
  std::size_t buffered_bytes_ = 0;  // queued plus taken but not yet written
  std::size_t buffered_events_ = 0;
  bool closing_ = false;  // close() or lagged: no more pushes, finish after the queue
  bool closed_ = false;   // the connection is gone
  bool lagged_ = false;
  bool wake_pending_ = false;
  std::function<void()> wake_;
  std::function<void()> on_detach_;
};

}  // namespace sion::http
