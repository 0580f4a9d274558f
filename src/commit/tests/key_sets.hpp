#pragma once
// Key sets for the state-tree tests: random keys and the shapes that stress
// the tree (long shared prefixes, keys differing only in the last bit, small
// integers). Shared by smt_test.cpp and smt_partial_test.cpp.

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "sion/commit/smt.hpp"

namespace sion::commit::testing {

enum class Keys { random, long_prefix, last_bit, low_values };
inline constexpr Keys kAllKinds[] = {Keys::random, Keys::long_prefix, Keys::last_bit, Keys::low_values};

inline Hash random_hash(std::mt19937_64& rng) {
  Hash h;
  for (auto& b : h) b = static_cast<std::uint8_t>(rng());
  return h;
}

inline Hash make_key(Keys kind, std::mt19937_64& rng, std::size_t i) {
  Hash key = random_hash(rng);
  switch (kind) {
    case Keys::random: break;
    case Keys::long_prefix:  // 30 shared bytes: chains of 240 one-child nodes
      std::memset(key.data(), 0xa5, 30);
      break;
    case Keys::last_bit:  // pairs that differ in bit 255 only, leaves at depth 256
      key.fill(0x3c);
      key[29] = static_cast<std::uint8_t>(i / 512);
      key[30] = static_cast<std::uint8_t>(i / 2);
      key[31] = static_cast<std::uint8_t>(i % 2);
      break;
    case Keys::low_values:  // small integers: all but the last bits zero
      key.fill(0);
      key[28] = static_cast<std::uint8_t>(i >> 24);
      key[29] = static_cast<std::uint8_t>(i >> 16);
      key[30] = static_cast<std::uint8_t>(i >> 8);
      key[31] = static_cast<std::uint8_t>(i);
      break;
  }
  return key;
}

inline std::vector<StateEntry> make_entries(Keys kind, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<Hash, Hash> unique;
  for (std::size_t i = 0; unique.size() < count; ++i) unique[make_key(kind, rng, i)] = random_hash(rng);
  std::vector<StateEntry> entries;
  for (const auto& [k, v] : unique) entries.push_back({k, v});
  std::shuffle(entries.begin(), entries.end(), rng);
  return entries;
}

}  // namespace sion::commit::testing
