#include "beast_request.hpp"

#include <algorithm>
#include <cstdint>

#include "sion/http/query.hpp"

namespace sion::http::detail {

namespace beast_http = boost::beast::http;

void configure_parser(BeastParser& parser, const ServerOptions& options) {
  parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(options.max_header_bytes, UINT32_MAX)));
  parser.body_limit(options.max_body_bytes);
  parser.eager(true);
}

base::Result<Request> to_request(BeastRequest& message) {
  Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  // Only origin-form targets (RFC 9112 §3.2.1): no absolute URIs, no "*".
  if (request.target.empty() || request.target.front() != '/') {
    return base::fail(base::Errc::invalid_value, "the request target must start with '/'");
  }
  const std::size_t question = request.target.find('?');
  request.path = request.target.substr(0, question);
  if (question != std::string::npos) {
    std::string_view query = std::string_view(request.target).substr(question + 1);
    query = query.substr(0, query.find('#'));
    SION_TRY(request.query, parse_query(query));
  }
  for (const auto& field : message) {
    request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  request.body = std::move(message.body());
  return request;
}

RequestError request_error(const boost::system::error_code& error, const ServerOptions& options) {
  if (error == beast_http::error::header_limit) {
    return {431, "header_too_large",
            "the request line and header fields exceed " + std::to_string(options.max_header_bytes) + " bytes",
            base::Errc::length_over_max};
  }
  if (error == beast_http::error::body_limit) {
    return {413, "body_too_large", "the request body exceeds " + std::to_string(options.max_body_bytes) + " bytes",
            base::Errc::length_over_max};
  }
  if (error == beast_http::error::need_more || error == beast_http::error::partial_message) {
    return {400, "bad_request", "the request ended before it was complete", base::Errc::truncated};
  }
  if (error == beast_http::error::bad_method) return {400, "bad_request", "malformed method"};
  if (error == beast_http::error::bad_target) return {400, "bad_request", "malformed request target"};
  if (error == beast_http::error::bad_version)
    return {400, "bad_request", "malformed or unsupported HTTP version (HTTP/1.0 and HTTP/1.1 are served)"};
  if (error == beast_http::error::bad_chunk || error == beast_http::error::bad_chunk_extension) {
    return {400, "bad_request", "malformed chunked body"};
  }
  if (error == beast_http::error::bad_transfer_encoding) {
    return {400, "bad_request", "unsupported Transfer-Encoding (only chunked is accepted)"};
  }
  if (error == beast_http::error::bad_content_length) return {400, "bad_request", "malformed Content-Length"};
  return {400, "bad_request", "malformed request: " + error.message()};
}

}  // namespace sion::http::detail
