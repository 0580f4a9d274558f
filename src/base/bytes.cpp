#include "sion/base/bytes.hpp"

#include <cstring>
#include <string>

namespace sion::base {

std::string to_hex(ByteView bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0x0f];
  }
  return out;
}

namespace {
int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

Result<Bytes> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) {
    return fail(Errc::invalid_value, "hex string has odd length " + std::to_string(hex.size()));
  }
  Bytes out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_digit(hex[2 * i]);
    const int lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      const std::size_t at = hi < 0 ? 2 * i : 2 * i + 1;
      return fail(Errc::invalid_value, "non-hex character at position " + std::to_string(at));
    }
    out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return out;
}

void secure_wipe(void* data, std::size_t size) noexcept {
  if (size == 0) return;
  std::memset(data, 0, size);
  // The asm claims to read the memory, so the memset cannot be dropped as a
  // dead store (the technique of explicit_bzero and OPENSSL_cleanse).
  __asm__ __volatile__("" : : "r"(data) : "memory");
}

bool constant_time_equal(ByteView a, ByteView b) noexcept {
  if (a.size() != b.size()) return false;
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff = static_cast<std::uint8_t>(diff | (a[i] ^ b[i]));
  return diff == 0;
}

}  // namespace sion::base
