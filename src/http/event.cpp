#include "sion/http/event.hpp"

namespace sion::http {

namespace {

// A field value may not hold CR, LF (they end the line) or NUL (readers
// ignore an id holding one).
void append_field(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += ": ";
  for (const char c : value) {
    if (c != '\r' && c != '\n' && c != '\0') out.push_back(c);
  }
  out += '\n';
}

}  // namespace

std::string format_event(const Event& event) {
  std::string out;
  out.reserve(event.data.size() + event.id.size() + event.type.size() + 32);
  if (!event.id.empty()) append_field(out, "id", event.id);
  if (!event.type.empty()) append_field(out, "event", event.type);
  std::string_view data = event.data;
  while (true) {
    const std::size_t end = data.find_first_of("\r\n");
    out += "data: ";
    out += data.substr(0, end);
    out += '\n';
    if (end == std::string_view::npos) break;
    const std::size_t next = (data[end] == '\r' && end + 1 < data.size() && data[end + 1] == '\n') ? end + 2 : end + 1;
    data = data.substr(next);
  }
  out += '\n';
  return out;
}

std::string format_comment(std::string_view text) {
  std::string out = ": ";
  for (const char c : text) {
    if (c != '\r' && c != '\n') out.push_back(c);
  }
  out += "\n\n";
  return out;
}

}  // namespace sion::http
