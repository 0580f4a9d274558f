#include "sion/codec/writer.hpp"

#include <cassert>

namespace sion::codec {

void Writer::length(std::size_t n) {
  assert(n <= kMaxLength);
  while (n >= 0x80) {
    u8(static_cast<std::uint8_t>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  u8(static_cast<std::uint8_t>(n));
}

}  // namespace sion::codec
