#pragma once
// Byte strings and hex, the vocabulary of every layer.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"

namespace sion::base {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;
using MutableByteView = std::span<std::uint8_t>;
template <std::size_t N>
using ByteArray = std::array<std::uint8_t, N>;

// Lower-case hex, two digits a byte.
std::string to_hex(ByteView bytes);

// Accepts upper and lower case (ACVP vectors are upper case); rejects odd
// lengths and non-hex characters, naming the position.
Result<Bytes> from_hex(std::string_view hex);

inline ByteView as_bytes(std::string_view text) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// Overwrites memory in a way the optimiser may not remove (for secrets).
void secure_wipe(void* data, std::size_t size) noexcept;

// Equality in time independent of where the inputs differ.
bool constant_time_equal(ByteView a, ByteView b) noexcept;

}  // namespace sion::base
