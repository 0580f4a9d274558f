#pragma once
// Checked unsigned arithmetic: amounts, fees and budgets are integers whose
// sums and products must never wrap (docs/ledger.md, "Value"). Every such
// sum or product in src/ goes through these, not a raw compiler builtin.

#include <cstdint>
#include <optional>

namespace sion::base {

// a + b, or nullopt past 2^64 - 1.
constexpr std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// a * b, or nullopt past 2^64 - 1.
constexpr std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

}  // namespace sion::base
