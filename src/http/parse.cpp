#include "sion/http/parse.hpp"

#include <boost/asio/buffer.hpp>

#include "beast_request.hpp"

namespace sion::http {

base::Result<Request> parse_request(base::ByteView bytes, const ServerOptions& options) {
  detail::BeastParser parser;
  detail::configure_parser(parser, options);
  std::size_t used = 0;
  while (!parser.is_done()) {
    boost::system::error_code error;
    const std::size_t n = parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), error);
    used += n;
    if (error == boost::beast::http::error::need_more) {
      if (used < bytes.size() && n > 0) continue;
      return base::fail(base::Errc::truncated, "the request ended before it was complete");
    }
    if (error) {
      detail::RequestError failure = detail::request_error(error, options);
      return base::fail(failure.errc, std::move(failure.message));
    }
    if (n == 0 && !parser.is_done())
      return base::fail(base::Errc::truncated, "the request ended before it was complete");
  }
  if (used != bytes.size()) {
    return base::fail(base::Errc::trailing_bytes, std::to_string(bytes.size() - used) + " bytes follow the request");
  }
  auto message = parser.release();
  return detail::to_request(message);
}

}  // namespace sion::http
