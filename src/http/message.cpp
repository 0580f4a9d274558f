#include "sion/http/message.hpp"

#include <nlohmann/json.hpp>

namespace sion::http {

namespace {

char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

const std::string* find_param(const Params& params, std::string_view name) noexcept {
  const auto it = params.find(name);
  return it == params.end() ? nullptr : &it->second;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

const std::string* find_field(const Fields& fields, std::string_view name) noexcept {
  for (const auto& [field, value] : fields) {
    if (iequals(field, name)) return &value;
  }
  return nullptr;
}

const std::string* Request::header(std::string_view name) const noexcept { return find_field(headers, name); }

const std::string* Request::param(std::string_view name) const noexcept { return find_param(path_params, name); }

const std::string* Request::query_param(std::string_view name) const noexcept { return find_param(query, name); }

std::optional<std::string> Request::last_event_id() const {
  const std::string* value = header("Last-Event-ID");
  if (value == nullptr) return std::nullopt;
  return *value;
}

Response Response::json(unsigned status, std::string body) {
  Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

Response Response::text(unsigned status, std::string body) {
  Response response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(body);
  return response;
}

Response json_error(unsigned status, std::string_view code, std::string_view message) {
  nlohmann::json body;
  body["error"]["code"] = std::string(code);
  body["error"]["message"] = std::string(message);
  // Messages may quote request bytes; invalid UTF-8 is replaced, not refused.
  return Response::json(status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string_view status_reason(unsigned status) noexcept {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

}  // namespace sion::http
