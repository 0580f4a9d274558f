#include "sion/node/event_log.hpp"

#include <string>
#include <utility>

namespace sion::node {

std::uint64_t EventLog::publish(Event event) {
  // Sinks run under the lock, so that a subscriber joining now sees each
  // event exactly once (from the backlog or live). A sink must not block:
  // the HTTP layer's sinks only append to a bounded buffer.
  std::lock_guard lock(mutex_);
  event.id = ++last_id_;
  for (auto it = subscribers_.begin(); it != subscribers_.end();) {
    if (it->second.filter.matches(event) && !it->second.sink(event)) {
      it = subscribers_.erase(it);
      ++dropped_;
    } else {
      ++it;
    }
  }
  recent_.push_back(std::move(event));
  if (recent_.size() > retained_) recent_.pop_front();
  return last_id_;
}

EventLog::Subscription EventLog::subscribe(std::uint64_t after, bool live_only, EventFilter filter, Sink sink) {
  std::lock_guard lock(mutex_);
  Subscription subscription;
  if (!live_only) {
    const std::uint64_t oldest = recent_.empty() ? last_id_ + 1 : recent_.front().id;
    if (after + 1 < oldest && after < last_id_) {
      subscription.gap_from = oldest;
      Event gap{0, "gap", "{\"oldest\":" + std::to_string(oldest) + "}", {}};
      if (!sink(gap)) {
        ++dropped_;
        return subscription;
      }
    }
    for (const Event& event : recent_) {
      if (event.id <= after || !filter.matches(event)) continue;
      if (!sink(event)) {
        ++dropped_;
        return subscription;  // id 0: never registered
      }
    }
  }
  subscription.id = next_subscriber_++;
  subscribers_.emplace(subscription.id, Subscriber{std::move(filter), std::move(sink)});
  return subscription;
}

void EventLog::unsubscribe(SubscriberId id) {
  std::lock_guard lock(mutex_);
  subscribers_.erase(id);
}

std::uint64_t EventLog::last_id() const {
  std::lock_guard lock(mutex_);
  return last_id_;
}

std::size_t EventLog::subscribers() const {
  std::lock_guard lock(mutex_);
  return subscribers_.size();
}

std::uint64_t EventLog::dropped_subscribers() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace sion::node
