#include "sion/base/utf8.hpp"

#include <cstdint>

namespace sion::base {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept {
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    const auto lead = static_cast<std::uint8_t>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // RFC 3629 §4 (UTF8-2, UTF8-3, UTF8-4): the lead byte fixes the length and
    // the allowed range of the second byte; later bytes are 80..BF.
    std::size_t length = 0;
    std::uint8_t second_low = 0x80;
    std::uint8_t second_high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) second_low = 0xA0;   // overlong below U+0800
      if (lead == 0xED) second_high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) second_low = 0x90;   // overlong below U+10000
      if (lead == 0xF4) second_high = 0x8F;  // past U+10FFFF
    } else {
      return i;  // 80..C1 (continuation or overlong lead) or F5..FF
    }
    for (std::size_t k = 1; k < length; ++k) {
      if (i + k >= size) return i;
      const auto byte = static_cast<std::uint8_t>(text[i + k]);
      const std::uint8_t low = k == 1 ? second_low : std::uint8_t{0x80};
      const std::uint8_t high = k == 1 ? second_high : std::uint8_t{0xBF};
      if (byte < low || byte > high) return i;
    }
    i += length;
  }
  return std::nullopt;
}

}  // namespace sion::base
