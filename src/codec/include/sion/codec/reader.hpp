#pragma once
// Strict reader for Sion's canonical encoding (docs/codec.md).
//
// The first failure is kept and every later read returns zero without
// consuming input, so a decoder is written straight through and checked once
// at the end (finish()). The reader tracks the path of the field being read
// ("Transfer.outputs[3].amount"), and the error names it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::codec {

class Reader {
 public:
  // `root` names the value being decoded in error messages, e.g. "Transfer".
  explicit Reader(base::ByteView input, std::string_view root = {}) noexcept : input_(input), root_(root) {}

  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  bool ok() const noexcept { return !failed_; }
  std::size_t offset() const noexcept { return offset_; }
  std::size_t remaining() const noexcept { return input_.size() - offset_; }

  // Fixed-width little-endian unsigned integers.
  std::uint8_t u8() noexcept;
  std::uint16_t u16() noexcept;
  std::uint32_t u32() noexcept;
  std::uint64_t u64() noexcept;

  // One byte, 0 or 1; anything else is non-canonical.
  bool boolean() noexcept;

  // A length or count: minimal ULEB128, at most `max` (<= 2^32 - 1).
  std::size_t length(std::size_t max) noexcept;

  // Copies exactly out.size() bytes.
  void bytes(base::MutableByteView out) noexcept;

  // Views the next n bytes of the input (empty after a failure).
  base::ByteView take(std::size_t n) noexcept;

  // Records a failure at the current field (the first one wins).
  void fail(base::Errc code, std::string_view detail);

  // After the value: fails on trailing bytes, then returns the first error.
  base::Status finish();

  // The first error; only meaningful when !ok().
  const base::Error& error() const noexcept { return error_; }

  // Names a nested field for error messages while the scope lives.
  class [[nodiscard]] Scope {
   public:
    ~Scope() { reader_.path_.pop_back(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    friend class Reader;
    explicit Scope(Reader& reader) noexcept : reader_(reader) {}
    Reader& reader_;
  };
  Scope field(std::string_view name) {
    path_.push_back({name, 0, false});
    return Scope(*this);
  }
  Scope element(std::size_t index) {
    path_.push_back({{}, index, true});
    return Scope(*this);
  }

  // "Root.field[2].sub", the field being read now.
  std::string path() const;

 private:
  struct Segment {
    std::string_view name;
    std::size_t index;
    bool is_index;
  };

  // True when n more bytes exist; otherwise records truncation.
  bool need(std::size_t n, std::string_view what) noexcept;

  template <class T>
  T little_endian(std::string_view what) noexcept;

  base::ByteView input_;
  std::string_view root_;
  std::size_t offset_ = 0;
  bool failed_ = false;
  base::Error error_;
  std::vector<Segment> path_;
};

}  // namespace sion::codec
