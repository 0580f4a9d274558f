#pragma once
// One request parsed from bytes, with the same parser settings (header and
// body limits, target and query rules) the server applies to a socket, so the
// parsing can be fuzzed and tested without one.

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/http/message.hpp"
#include "sion/http/options.hpp"

namespace sion::http {

// Parses exactly one complete request. Errors: invalid_value for malformed
// bytes (reason says what), length_over_max for a header over
// max_header_bytes or a body over max_body_bytes, truncated when the bytes end
// inside the request, trailing_bytes when more follow it.
base::Result<Request> parse_request(base::ByteView bytes, const ServerOptions& options);

}  // namespace sion::http
