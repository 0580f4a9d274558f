#pragma once
// The request a handler receives and the response it gives, and the one JSON
// error shape every error answer of the server (and of the node's own
// handlers) uses: {"error":{"code":"not_found","message":"..."}} (docs/http.md).

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sion::http {

// Header fields in arrival order; names as sent (compare case-insensitively).
using Fields = std::vector<std::pair<std::string, std::string>>;
using Params = std::map<std::string, std::string, std::less<>>;

// ASCII case-insensitive equality (field names, RFC 9110 §5.1).
bool iequals(std::string_view a, std::string_view b) noexcept;

// The value of the first field named `name` (case-insensitive), or nullptr.
const std::string* find_field(const Fields& fields, std::string_view name) noexcept;

struct Request {
  std::string method;  // as sent, e.g. "GET"
  std::string target;  // as sent, e.g. "/v1/pulses/7?proof=true"
  std::string path;    // the target before '?', still percent-encoded
  Params path_params;  // {name} segments of the matched route, percent-decoded
  Params query;        // percent-decoded; '+' is a space; a name twice is refused
  Fields headers;
  std::string body;
  std::string client_address;                        // "127.0.0.1", "::1"; empty when parsed without a socket
  std::chrono::steady_clock::time_point received{};  // when the header was complete

  // The first field of that name (case-insensitive), or nullptr.
  const std::string* header(std::string_view name) const noexcept;
  const std::string* param(std::string_view name) const noexcept;
  const std::string* query_param(std::string_view name) const noexcept;
  // The Last-Event-ID header of a reconnecting event-stream client (WHATWG
  // HTML, "Server-sent events"), so the application can resume after it.
  std::optional<std::string> last_event_id() const;
};

struct Response {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  Fields headers;  // extra fields; Content-Length, Connection and Date are the server's

  static Response json(unsigned status, std::string body);
  static Response text(unsigned status, std::string body);
};

// {"error":{"code":<code>,"message":<message>}} with that status; invalid
// UTF-8 in the message is replaced, never refused.
Response json_error(unsigned status, std::string_view code, std::string_view message);

// "OK", "Not Found", ... ("Unknown" for a code without a registered name).
std::string_view status_reason(unsigned status) noexcept;

}  // namespace sion::http
