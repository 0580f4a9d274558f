#include "sion/http/router.hpp"

#include <algorithm>

#include "sion/http/query.hpp"

namespace sion::http {

namespace {

bool is_name_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

base::Result<std::vector<std::string>> split_path(std::string_view path) {
  if (path.empty() || path.front() != '/') {
    return base::fail(base::Errc::invalid_value, "the path must start with '/'");
  }
  std::vector<std::string> segments;
  std::string_view rest = path.substr(1);
  while (true) {
    const std::size_t slash = rest.find('/');
    SION_TRY(std::string segment, percent_decode(rest.substr(0, slash)));
    segments.push_back(std::move(segment));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  return segments;
}

base::Result<RoutePattern> RoutePattern::parse(std::string_view pattern) {
  const auto bad = [&](std::string_view why) {
    return base::fail(base::Errc::invalid_argument,
                      "route pattern \"" + std::string(pattern) + "\": " + std::string(why));
  };
  if (pattern.empty() || pattern.front() != '/') return bad("must start with '/'");
  RoutePattern out;
  out.text_ = std::string(pattern);
  std::string_view rest = pattern.substr(1);
  while (true) {
    const std::size_t slash = rest.find('/');
    const std::string_view text = rest.substr(0, slash);
    Segment segment;
    if (!text.empty() && text.front() == '{') {
      if (text.size() < 3 || text.back() != '}') return bad("a parameter is {name}");
      segment.text = std::string(text.substr(1, text.size() - 2));
      segment.is_param = true;
      if (!std::all_of(segment.text.begin(), segment.text.end(), is_name_char)) {
        return bad("a parameter name is letters, digits and '_'");
      }
      for (const Segment& other : out.segments_) {
        if (other.is_param && other.text == segment.text) return bad("parameter {" + segment.text + "} twice");
      }
    } else {
      if (text.find_first_of("{}%?#") != std::string_view::npos) return bad("a literal segment has no {, }, %, ? or #");
      segment.text = std::string(text);
    }
    out.segments_.push_back(std::move(segment));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  return out;
}

bool RoutePattern::match(const std::vector<std::string>& segments, Params& params) const {
  if (segments.size() != segments_.size()) return false;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (segments_[i].is_param) {
      // A parameter matches one non-empty segment.
      if (segments[i].empty()) return false;
    } else if (segments_[i].text != segments[i]) {
      return false;
    }
  }
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (segments_[i].is_param) params[segments_[i].text] = segments[i];
  }
  return true;
}

bool RoutePattern::same_shape(const RoutePattern& other) const noexcept {
  if (segments_.size() != other.segments_.size()) return false;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    if (segments_[i].is_param != other.segments_[i].is_param) return false;
    if (!segments_[i].is_param && segments_[i].text != other.segments_[i].text) return false;
  }
  return true;
}

std::string allow_list(std::vector<std::string> methods) {
  std::sort(methods.begin(), methods.end());
  methods.erase(std::unique(methods.begin(), methods.end()), methods.end());
  std::string out;
  for (const std::string& method : methods) {
    if (!out.empty()) out += ", ";
    out += method;
  }
  return out;
}

}  // namespace sion::http
