#pragma once
// Writer for Sion's canonical encoding (docs/codec.md): appends to a buffer.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "sion/base/bytes.hpp"
#include "sion/base/endian.hpp"

namespace sion::codec {

// Largest length or count the encoding can carry (ULEB128 of a u32).
inline constexpr std::size_t kMaxLength = 0xffffffffu;

class Writer {
 public:
  explicit Writer(base::Bytes& out) noexcept : out_(&out) {}
  // A writer that only counts the bytes an encoding takes (encoded_size).
  static Writer counter() noexcept { return Writer(); }

  void u8(std::uint8_t v) {
    if (out_ == nullptr) {
      ++counted_;
    } else {
      out_->push_back(v);
    }
  }
  void u16(std::uint16_t v) { little_endian(v); }
  void u32(std::uint32_t v) { little_endian(v); }
  void u64(std::uint64_t v) { little_endian(v); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  // Minimal ULEB128. Precondition: n <= kMaxLength.
  void length(std::size_t n);
  void bytes(base::ByteView data) {
    if (out_ == nullptr) {
      counted_ += data.size();
      return;
    }
    // resize + memcpy rather than insert(): g++ 12 at -O3 reports a false
    // -Wstringop-overflow on vector::insert of a range.
    if (data.empty()) return;
    const std::size_t at = out_->size();
    out_->resize(at + data.size());
    std::memcpy(out_->data() + at, data.data(), data.size());
  }
  std::size_t size() const noexcept { return out_ == nullptr ? counted_ : out_->size(); }

 private:
  Writer() noexcept = default;
  template <base::EndianWord T>
  void little_endian(T v) {
    std::uint8_t word[sizeof(T)];
    base::store_le(word, v);
    bytes(base::ByteView(word, sizeof(T)));
  }

  base::Bytes* out_ = nullptr;
  std::size_t counted_ = 0;
};

// Bytes a length prefix takes.
constexpr std::size_t length_size(std::size_t n) noexcept {
  std::size_t size = 1;
  while (n >= 0x80) {
    n >>= 7;
    ++size;
  }
  return size;
}

}  // namespace sion::codec
