#pragma once
// The node's event log (docs/api.md, "Events"): every announced event gets
// the next id, the most recent ones are kept for subscribers that resume
// with Last-Event-ID, and each subscriber receives, in id order, every event
// after the one it asked for. Delivery never waits for a subscriber: a sink
// that cannot take an event says so (returns false) and is dropped; it is
// the sink's job to tell its client (the HTTP layer sends `lagged`).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sion/commit/hash.hpp"

namespace sion::node {

struct Event {
  std::uint64_t id = 0;  // assigned by the log: 1, 2, 3, ...
  std::string type;      // "pulse", "transaction"
  std::string data;      // one line of JSON
  // The accounts an account-filtered subscriber sees it for (sender and
  // payees); empty for events no filter selects (Pulses).
  std::set<commit::Hash> accounts;
};

// A subscriber's filter: every event, or only those naming one account.
struct EventFilter {
  std::optional<commit::Hash> account;
  bool matches(const Event& event) const { return !account || event.accounts.count(*account) != 0; }
};

class EventLog {
 public:
  // Returns false when the subscriber could not take the event (its buffer
  // is full or it left); it then receives nothing more.
  using Sink = std::function<bool(const Event&)>;
  using SubscriberId = std::uint64_t;

  explicit EventLog(std::size_t retained = 65'536) : retained_(retained == 0 ? 1 : retained) {}

  // Appends an event (its id assigned here) and offers it to every
  // subscriber whose filter matches. Returns the id.
  std::uint64_t publish(Event event);

  struct Subscription {
    SubscriberId id = 0;
    // When the resume point is older than the oldest event kept: the
    // oldest id kept (events after `after` and before it are gone).
    std::optional<std::uint64_t> gap_from;
  };
  // Delivers to `sink` every kept event after `after` that `filter`
  // matches, then every later one as it is published, with no event
  // missed or repeated in between. When events after `after` are no longer
  // kept, the sink first receives a `gap` event (id 0, data
  // {"oldest": <oldest id kept>}). `after` = 0 with `live_only` skips the
  // backlog (a client without Last-Event-ID sees events from now on).
  Subscription subscribe(std::uint64_t after, bool live_only, EventFilter filter, Sink sink);
  void unsubscribe(SubscriberId id);

  std::uint64_t last_id() const;
  std::size_t subscribers() const;
  std::uint64_t dropped_subscribers() const;

 private:
  struct Subscriber {
    EventFilter filter;
    Sink sink;
  };

  mutable std::mutex mutex_;
  std::size_t retained_;
  std::deque<Event> recent_;  // ids last_id_ - size + 1 .. last_id_
  std::uint64_t last_id_ = 0;
  SubscriberId next_subscriber_ = 1;
  std::map<SubscriberId, Subscriber> subscribers_;
  std::uint64_t dropped_ = 0;
};

}  // namespace sion::node
