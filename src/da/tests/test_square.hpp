#pragma once
// Squares the da tests share: random data of a fixed seed, extended.

#include <random>

#include "sion/da/square.hpp"

namespace sion::da::testing {

inline base::Bytes random_data(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  base::Bytes out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

// A complete square of original width k, its Q0 filled with random shares.
inline ExtendedSquare random_square(std::uint32_t k, std::uint32_t seed = 1) {
  return std::move(ExtendedSquare::from_original(k, random_data(std::size_t{k} * k * kShareBytes, seed)).value());
}

}  // namespace sion::da::testing
