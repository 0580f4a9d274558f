#include "sion/http/query.hpp"

#include "sion/base/bytes.hpp"

namespace sion::http {

base::Result<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      // %XX: the two hex digits through base's hex reader.
      auto byte =
          i + 2 < text.size() ? base::from_hex(text.substr(i + 1, 2)) : base::Result<base::Bytes>(base::Bytes{});
      if (!byte || byte->size() != 1) {
        return base::fail(base::Errc::invalid_value,
                          "bad percent-escape at offset " + std::to_string(i) + " (RFC 3986 §2.1 wants %XX)");
      }
      out.push_back(static_cast<char>((*byte)[0]));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

base::Result<Params> parse_query(std::string_view query) {
  Params params;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (piece.empty()) continue;
    const std::size_t eq = piece.find('=');
    SION_TRY_CONTEXT(std::string name, "query", percent_decode(piece.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      SION_TRY_CONTEXT(value, "query parameter \"" + name + "\"", percent_decode(piece.substr(eq + 1), true));
    }
    if (params.contains(name)) {
      return base::fail(base::Errc::invalid_value, "query parameter \"" + name + "\" is given twice");
    }
    params.emplace(std::move(name), std::move(value));
  }
  return params;
}

}  // namespace sion::http
