#pragma once
// Routes: a method and a path pattern of literal segments and {name}
// parameters ("/v1/pulses/{height}/shares/{row}/{col}"), each with a value
// (the server stores its handlers here). Matching is by segments after
// percent-decoding; a path that matches no pattern is "not found", one that
// matches only with other methods is "method not allowed" with the list.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/http/message.hpp"

namespace sion::http {

class RoutePattern {
 public:
  // A pattern starts with '/'; a segment is literal text or one {name}
  // (letters, digits, '_'); names are unique in a pattern.
  static base::Result<RoutePattern> parse(std::string_view pattern);

  // The parameters when `segments` (percent-decoded) match.
  bool match(const std::vector<std::string>& segments, Params& params) const;
  const std::string& text() const noexcept { return text_; }
  // Same shape: the same literals and parameters at the same places.
  bool same_shape(const RoutePattern& other) const noexcept;

 private:
  struct Segment {
    std::string text;
    bool is_param = false;
  };
  std::string text_;
  std::vector<Segment> segments_;
};

// Splits a path at '/' and percent-decodes each segment ("%2F" stays inside
// its segment). Refuses a path not starting with '/' and bad escapes.
base::Result<std::vector<std::string>> split_path(std::string_view path);

enum class MatchKind { found, not_found, method_not_allowed };

template <class Value>
class Router {
 public:
  struct Match {
    MatchKind kind = MatchKind::not_found;
    const Value* value = nullptr;
    Params params;
    std::string allow;  // "GET, POST" for method_not_allowed
  };

  // Refuses a malformed pattern or the same method on a pattern of the same shape.
  base::Status add(std::string_view method, std::string_view pattern, Value value) {
    SION_TRY(RoutePattern parsed, RoutePattern::parse(pattern));
    for (const Route& route : routes_) {
      if (route.method == method && route.pattern.same_shape(parsed)) {
        return base::fail(base::Errc::invalid_argument,
                          "route " + std::string(method) + " " + std::string(pattern) + " is already registered");
      }
    }
    routes_.push_back(Route{std::string(method), std::move(parsed), std::move(value)});
    return {};
  }

  // Patterns are tried in the order they were added.
  Match match(std::string_view method, const std::vector<std::string>& segments) const {
    Match result;
    std::vector<std::string> allowed;
    for (const Route& route : routes_) {
      Params params;
      if (!route.pattern.match(segments, params)) continue;
      if (route.method == method) {
        result.kind = MatchKind::found;
        result.value = &route.value;
        result.params = std::move(params);
        return result;
      }
      allowed.push_back(route.method);
    }
    if (allowed.empty()) return result;
    result.kind = MatchKind::method_not_allowed;
    result.allow = join_methods(std::move(allowed));
    return result;
  }

  std::size_t size() const noexcept { return routes_.size(); }

 private:
  struct Route {
    std::string method;
    RoutePattern pattern;
    Value value;
  };
  static std::string join_methods(std::vector<std::string> methods);
  std::vector<Route> routes_;
};

// Sorted, without repeats, joined by ", " (the Allow field, RFC 9110 §10.2.1).
std::string allow_list(std::vector<std::string> methods);

template <class Value>
std::string Router<Value>::join_methods(std::vector<std::string> methods) {
  return allow_list(std::move(methods));
}

}  // namespace sion::http
