#pragma once
// Byte order: unsigned 16-, 32- and 64-bit words loaded from and stored to
// bytes in little-endian (the codec, Keccak lanes, FIPS 204) or big-endian
// order (SHA-2, FIPS 205 addresses, store keys that sort as numbers).
//
// At run time each is one unaligned load or store plus, when the order is not
// the machine's, one byte swap (mov / movbe / bswap); in constant evaluation
// the bytes are assembled one by one, so the same functions serve constexpr
// tables and tests.

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sion::base {

template <class T>
concept EndianWord = std::same_as<T, std::uint16_t> || std::same_as<T, std::uint32_t> || std::same_as<T, std::uint64_t>;

// The word with its bytes in reverse order (C++23's std::byteswap).
template <EndianWord T>
constexpr T byteswap(T value) noexcept {
  if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(value));
  } else if constexpr (sizeof(T) == 4) {
    return __builtin_bswap32(value);
  } else {
    return __builtin_bswap64(value);
  }
}

namespace endian_detail {

template <EndianWord T, std::endian kOrder>
constexpr T load(const std::uint8_t* p) noexcept {
  if (std::is_constant_evaluated()) {
    T value = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      const std::size_t shift = 8 * (kOrder == std::endian::little ? i : sizeof(T) - 1 - i);
      value = static_cast<T>(value | static_cast<T>(T{p[i]} << shift));
    }
    return value;
  }
  T value;
  std::memcpy(&value, p, sizeof(T));
  if constexpr (kOrder != std::endian::native) value = byteswap(value);
  return value;
}

template <EndianWord T, std::endian kOrder>
constexpr void store(std::uint8_t* p, T value) noexcept {
  if (std::is_constant_evaluated()) {
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      const std::size_t shift = 8 * (kOrder == std::endian::little ? i : sizeof(T) - 1 - i);
      p[i] = static_cast<std::uint8_t>(value >> shift);
    }
    return;
  }
  if constexpr (kOrder != std::endian::native) value = byteswap(value);
  std::memcpy(p, &value, sizeof(T));
}

}  // namespace endian_detail

// load_le<std::uint64_t>(p): the 8 bytes at p, least significant first.
template <EndianWord T>
constexpr T load_le(const std::uint8_t* p) noexcept {
  return endian_detail::load<T, std::endian::little>(p);
}
// load_be<std::uint32_t>(p): the 4 bytes at p, most significant first.
template <EndianWord T>
constexpr T load_be(const std::uint8_t* p) noexcept {
  return endian_detail::load<T, std::endian::big>(p);
}
// Writes sizeof(T) bytes at p, least significant first.
template <EndianWord T>
constexpr void store_le(std::uint8_t* p, T value) noexcept {
  endian_detail::store<T, std::endian::little>(p, value);
}
// Writes sizeof(T) bytes at p, most significant first.
template <EndianWord T>
constexpr void store_be(std::uint8_t* p, T value) noexcept {
  endian_detail::store<T, std::endian::big>(p, value);
}

}  // namespace sion::base
