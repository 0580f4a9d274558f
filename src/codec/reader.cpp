#include "sion/codec/reader.hpp"

#include <cstring>
#include <string>

#include "sion/base/endian.hpp"

namespace sion::codec {

namespace {
std::string describe_offset(std::size_t offset) { return "at byte offset " + std::to_string(offset); }
}  // namespace

bool Reader::need(std::size_t n, std::string_view what) noexcept {
  if (failed_) return false;
  if (n <= remaining()) return true;
  fail(base::Errc::truncated, std::string(what) + " needs " + std::to_string(n) + " bytes " + describe_offset(offset_) +
                                  ", " + std::to_string(remaining()) + " remain");
  return false;
}

std::uint8_t Reader::u8() noexcept {
  if (!need(1, "u8")) return 0;
  return input_[offset_++];
}

template <class T>
T Reader::little_endian(std::string_view what) noexcept {
  if (!need(sizeof(T), what)) return 0;
  const T v = base::load_le<T>(input_.data() + offset_);
  offset_ += sizeof(T);
  return v;
}

std::uint16_t Reader::u16() noexcept { return little_endian<std::uint16_t>("u16"); }
std::uint32_t Reader::u32() noexcept { return little_endian<std::uint32_t>("u32"); }
std::uint64_t Reader::u64() noexcept { return little_endian<std::uint64_t>("u64"); }

bool Reader::boolean() noexcept {
  if (!need(1, "bool")) return false;
  const std::uint8_t v = input_[offset_];
  if (v > 1) {
    fail(base::Errc::non_canonical,
         "flag byte is " + std::to_string(v) + " " + describe_offset(offset_) + "; only 0 and 1 are allowed");
    return false;
  }
  ++offset_;
  return v == 1;
}

// ULEB128 (docs/codec.md, "Lengths"): 7 bits a byte, least significant
// first, high bit set on every byte but the last. Minimal: the last byte of
// a multi-byte encoding is never zero.
std::size_t Reader::length(std::size_t max) noexcept {
  if (failed_) return 0;
  const std::size_t start = offset_;
  std::uint64_t value = 0;
  for (int i = 0;; ++i) {
    if (!need(1, "length")) return 0;
    const std::uint8_t byte = input_[offset_++];
    value |= static_cast<std::uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      if (byte == 0 && i > 0) {
        offset_ = start;
        fail(base::Errc::non_canonical, "length " + describe_offset(start) + " has a redundant zero byte");
        return 0;
      }
      break;
    }
    if (i == 4) {  // a sixth byte would carry bits above 2^35
      offset_ = start;
      fail(base::Errc::length_over_max,
           "length " + describe_offset(start) + " runs past 5 bytes (the limit is 2^32 - 1)");
      return 0;
    }
  }
  if (value > max) {
    offset_ = start;
    fail(base::Errc::length_over_max, "length " + std::to_string(value) + " " + describe_offset(start) +
                                          " exceeds the field's maximum of " + std::to_string(max));
    return 0;
  }
  return static_cast<std::size_t>(value);
}

void Reader::bytes(base::MutableByteView out) noexcept {
  if (!need(out.size(), "byte array")) {
    std::memset(out.data(), 0, out.size());
    return;
  }
  if (!out.empty()) std::memcpy(out.data(), input_.data() + offset_, out.size());
  offset_ += out.size();
}

base::ByteView Reader::take(std::size_t n) noexcept {
  if (!need(n, "byte string")) return {};
  const base::ByteView view = input_.subspan(offset_, n);
  offset_ += n;
  return view;
}

void Reader::fail(base::Errc code, std::string_view detail) {
  if (failed_) return;
  failed_ = true;
  error_ = base::Error{code, path() + ": " + std::string(detail)};
}

base::Status Reader::finish() {
  if (!failed_ && remaining() != 0) {
    path_.clear();
    fail(base::Errc::trailing_bytes,
         std::to_string(remaining()) + " trailing bytes after the value, " + describe_offset(offset_));
  }
  if (failed_) return base::fail(error_);
  return {};
}

std::string Reader::path() const {
  std::string out(root_.empty() ? "value" : root_);
  for (const auto& segment : path_) {
    if (segment.is_index) {
      out += '[';
      out += std::to_string(segment.index);
      out += ']';
    } else {
      out += '.';
      out += segment.name;
    }
  }
  return out;
}

}  // namespace sion::codec
