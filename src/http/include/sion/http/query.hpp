#pragma once
// Percent-decoding of path segments and query strings (RFC 3986 §2.1; the
// query as application/x-www-form-urlencoded, where '+' is a space).

#include <string>
#include <string_view>

#include "sion/base/result.hpp"
#include "sion/http/message.hpp"

namespace sion::http {

// Decodes %XX escapes; a '%' not followed by two hex digits is refused
// (invalid_value). With plus_is_space, '+' decodes to ' '.
base::Result<std::string> percent_decode(std::string_view text, bool plus_is_space = false);

// "a=1&b=x%20y&flag" -> {a:"1", b:"x y", flag:""}. Empty pieces are skipped;
// a name given twice is refused, so two readers cannot pick different values.
base::Result<Params> parse_query(std::string_view query);

}  // namespace sion::http
