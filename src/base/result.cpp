#include "sion/base/result.hpp"

namespace sion::base {

std::string_view errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::truncated: return "truncated";
    case Errc::trailing_bytes: return "trailing bytes";
    case Errc::length_over_max: return "length over maximum";
    case Errc::unknown_tag: return "unknown tag";
    case Errc::non_canonical: return "non-canonical encoding";
    case Errc::invalid_value: return "invalid value";
    case Errc::invalid_argument: return "invalid argument";
    case Errc::bad_signature: return "bad signature";
    case Errc::not_found: return "not found";
    case Errc::io_error: return "I/O error";
    case Errc::corrupt_store: return "corrupt store";
    case Errc::unsupported: return "unsupported";
    case Errc::internal: return "internal error";
  }
  return "unknown error";
}

std::string Error::to_string() const {
  std::string out(errc_name(code));
  out += ": ";
  out += reason;
  return out;
}

Error Error::with_context(std::string_view context) && {
  std::string prefixed;
  prefixed.reserve(context.size() + 2 + reason.size());
  prefixed.append(context).append(": ").append(reason);
  reason = std::move(prefixed);
  return std::move(*this);
}

}  // namespace sion::base
