#pragma once
// One server-sent event and its framing on the wire (WHATWG HTML, "Server-sent
// events", the event stream format): "id:", "event:" and one "data:" line per
// line of data, then an empty line.

#include <string>
#include <string_view>

namespace sion::http {

struct Event {
  std::string id;    // empty: no id line (a reader keeps its last event id)
  std::string type;  // empty: no event line (a reader sees "message")
  std::string data;

  bool operator==(const Event&) const = default;
};

// The frame for `event`. CR, LF and NUL in id and type are dropped (they
// would end the field); data is split at CRLF, LF and CR into data lines.
std::string format_event(const Event& event);

// A comment frame (": <text>\n\n"), which readers ignore; keeps idle
// connections alive through proxies.
std::string format_comment(std::string_view text);

}  // namespace sion::http
