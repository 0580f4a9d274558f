#pragma once
// Reproducible random inputs for the crypto tests: bytes drawn from a
// seeded std::mt19937_64, so a failure replays from its seed.

#include <cstddef>
#include <cstdint>
#include <random>

#include "sion/base/bytes.hpp"

namespace sion::crypto::testing {

inline base::Bytes random_bytes(std::mt19937_64& rng, std::size_t size) {
  base::Bytes out(size);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

template <std::size_t N>
base::ByteArray<N> random_array(std::mt19937_64& rng) {
  base::ByteArray<N> out{};
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

}  // namespace sion::crypto::testing
