#include "sion/http/sse_reader.hpp"

namespace sion::http {

void SseParser::feed(std::string_view bytes) {
  for (const char c : bytes) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      skip_lf_ = c == '\r';
      line(pending_);
      pending_.clear();
    } else {
      pending_.push_back(c);
    }
  }
}

std::optional<Event> SseParser::next() {
  if (ready_.empty()) return std::nullopt;
  Event event = std::move(ready_.front());
  ready_.pop_front();
  return event;
}

void SseParser::line(std::string_view text) {
  if (text.empty()) {
    dispatch();
    return;
  }
  if (text.front() == ':') return;  // a comment
  const std::size_t colon = text.find(':');
  const std::string_view field = text.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "event") {
    type_ = std::string(value);
  } else if (field == "data") {
    data_ += value;
    data_ += '\n';
    has_data_ = true;
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_ = std::string(value);
  }
  // "retry" and unknown fields are ignored.
}

void SseParser::dispatch() {
  if (has_data_) {
    data_.pop_back();  // the last LF
    ready_.push_back(Event{last_id_, type_.empty() ? "message" : type_, std::move(data_)});
  }
  data_.clear();
  type_.clear();
  has_data_ = false;
}

}  // namespace sion::http
