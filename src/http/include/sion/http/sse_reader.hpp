#pragma once
// The reading side of the event stream format (WHATWG HTML, "Server-sent
// events", "Interpreting an event stream"): bytes in, events out.

#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "sion/http/event.hpp"

namespace sion::http {

class SseParser {
 public:
  // Feeds bytes as they arrive; complete events become available to next().
  void feed(std::string_view bytes);
  std::optional<Event> next();
  // The last event id buffer: the last `id` field seen.
  const std::string& last_event_id() const noexcept { return last_id_; }

 private:
  void line(std::string_view text);
  void dispatch();

  std::string pending_;   // an incomplete line
  bool skip_lf_ = false;  // the last line ended with CR; a following LF belongs to it
  std::string last_id_;
  std::string type_;
  std::string data_;
  bool has_data_ = false;
  std::deque<Event> ready_;
};

}  // namespace sion::http
