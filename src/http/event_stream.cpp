#include "sion/http/event_stream.hpp"

#include <algorithm>
#include <utility>

namespace sion::http {

EventStream::EventStream(EventStreamLimits limits) : limits_(limits) {}

void EventStream::wake_locked(std::function<void()>& to_call) {
  if (!wake_pending_ && wake_) {
    wake_pending_ = true;
    to_call = wake_;
  }
}

bool EventStream::push(const Event& event) {
  std::string frame = format_event(event);
  std::function<void()> to_call;
  bool accepted = true;
  {
    std::lock_guard lock(mutex_);
    if (closing_ || closed_) return false;
    if (buffered_events_ + 1 > limits_.max_events || buffered_bytes_ + frame.size() > limits_.max_bytes) {
      // Behind past the bound: what is queued is dropped, the subscriber
      // is told so, and the connection closes; never a silent gap.
      lagged_ = true;
      closing_ = true;
      accepted = false;
      buffered_bytes_ -= [&] {
        std::size_t bytes = 0;
        for (const std::string& queued : queue_) bytes += queued.size();
        return bytes;
      }();
      buffered_events_ -= queued_events_;
      // Wake the writer even if a wake is pending: it may be stuck in a
      // write to this very subscriber and must start the grace time now.
      wake_pending_ = false;
      queue_.clear();
      queued_events_ = 0;
      queue_.push_back(format_event(Event{"", "lagged",
                                          "subscriber fell behind by more than " + std::to_string(limits_.max_events) +
                                              " events or " + std::to_string(limits_.max_bytes) +
                                              " bytes; reconnect with Last-Event-ID to resume"}));
    } else {
      buffered_bytes_ += frame.size();
      buffered_events_ += 1;
      queued_events_ += 1;
      queue_.push_back(std::move(frame));
    }
    wake_locked(to_call);
  }
  if (to_call) to_call();
  return accepted;
}

void EventStream::close() {
  std::function<void()> to_call;
  {
    std::lock_guard lock(mutex_);
    if (closing_ || closed_) return;
    closing_ = true;
    wake_locked(to_call);
  }
  if (to_call) to_call();
}

bool EventStream::closed() const {
  std::lock_guard lock(mutex_);
  return closed_ || closing_;
}

bool EventStream::lagged() const {
  std::lock_guard lock(mutex_);
  return lagged_;
}

void EventStream::attach(std::function<void()> wake) {
  std::function<void()> to_call;
  {
    std::lock_guard lock(mutex_);
    wake_ = std::move(wake);
    wake_pending_ = false;
    if (!queue_.empty() || closing_) wake_locked(to_call);
  }
  if (to_call) to_call();
}

EventStream::Batch EventStream::take() {
  std::lock_guard lock(mutex_);
  wake_pending_ = false;
  Batch batch;
  for (std::string& frame : queue_) batch.bytes += frame;
  queue_.clear();
  batch.events = queued_events_;
  queued_events_ = 0;
  batch.finish = closing_;
  return batch;
}

void EventStream::written(std::size_t bytes, std::size_t events) {
  std::lock_guard lock(mutex_);
  // The lagged notice is not counted against the bound, so saturate.
  buffered_bytes_ -= std::min(bytes, buffered_bytes_);
  buffered_events_ -= std::min(events, buffered_events_);
}

void EventStream::on_detach(std::function<void()> done) {
  {
    std::lock_guard lock(mutex_);
    if (!closed_) {
      on_detach_ = std::move(done);
      return;
    }
  }
  if (done) done();
}

void EventStream::detach() {
  std::function<void()> done;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    wake_ = nullptr;
    queue_.clear();
    queued_events_ = 0;
    done = std::move(on_detach_);
    on_detach_ = nullptr;
  }
  if (done) done();
}

}  // namespace sion::http
