#include <charconv>

#include "sion/http/client.hpp"

namespace sion::http {

base::Result<BaseUrl> parse_base_url(std::string_view url) {
  const auto bad = [&](std::string_view why) {
    return base::fail(base::Errc::invalid_argument, "URL \"" + std::string(url) + "\": " + std::string(why));
  };
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return bad("expected http://host:port");
  const std::string_view scheme = url.substr(0, scheme_end);
  if (!iequals(scheme, "http")) {
    return bad("scheme \"" + std::string(scheme) + "\" is not supported; only http:// is (no TLS in this client)");
  }
  std::string_view rest = url.substr(scheme_end + 3);
  const std::size_t authority_end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, authority_end);
  std::string_view path = authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);
  if (path.find_first_of("?#") != std::string_view::npos) return bad("a base URL has no query or fragment");
  if (authority.find('@') != std::string_view::npos) return bad("user information is not supported");
  BaseUrl out;
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed '[' in the host");
    out.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("expected ':' and a port after ']'");
      port_text = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (out.host.empty()) return bad("no host");
  if (authority.find(':') != std::string_view::npos || authority.front() == '[') {
    if (!port_text.empty() || authority.back() == ':') {
      unsigned value = 0;
      const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
      if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() || value == 0 ||
          value > 65535) {
        return bad("the port must be a number from 1 to 65535");
      }
      out.port = static_cast<std::uint16_t>(value);
    }
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  out.prefix = std::string(path);
  return out;
}

const std::string* ClientResponse::header(std::string_view name) const noexcept { return find_field(headers, name); }

}  // namespace sion::http
