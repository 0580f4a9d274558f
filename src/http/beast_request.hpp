#pragma once
// What the socket server and parse_request() share: the Beast parser with the
// options' limits, the conversion of a parsed message into a Request, and the
// status and code each parse failure answers with (docs/http.md, "Errors").

#include <string>

#include <boost/beast/http.hpp>

#include "sion/base/result.hpp"
#include "sion/http/message.hpp"
#include "sion/http/options.hpp"

namespace sion::http::detail {

using BeastRequest = boost::beast::http::request<boost::beast::http::string_body>;
using BeastParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

void configure_parser(BeastParser& parser, const ServerOptions& options);

// Method, target, path, query (refusing duplicates and bad escapes),
// fields and body (moved out of `message`).
base::Result<Request> to_request(BeastRequest& message);

struct RequestError {
  unsigned status = 400;
  std::string code;  // the JSON error code
  std::string message;
  base::Errc errc = base::Errc::invalid_value;
};

// The answer to a parse failure from Beast.
RequestError request_error(const boost::system::error_code& error, const ServerOptions& options);

}  // namespace sion::http::detail
