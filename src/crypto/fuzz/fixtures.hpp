#pragma once
// Fixed keys and messages for the verifier fuzz targets: the fuzzer mutates
// signatures (or keys) against keys it did not choose, so a mutation that
// leaves most of a valid signature intact reaches deep into verification.
// The corpus tools write valid signatures made with the same keys.

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sion/crypto/signature.hpp"

namespace sion::crypto::fuzz {

inline const base::Bytes& fixed_message() {
  static const base::Bytes message{'s', 'i', 'o', 'n', ' ', 'f', 'u', 'z', 'z'};
  return message;
}

// One key per scheme, derived from a fixed seed once.
inline const SigningKey& fixed_key(Scheme scheme) {
  static const auto keys = [] {
    std::vector<SigningKey> all;
    KeySeed seed{};
    seed.fill(0x5a);
    for (Scheme s : kAllSchemes) all.push_back(SigningKey::from_seed(s, seed).value());
    return all;
  }();
  return keys[static_cast<std::size_t>(scheme)];
}

// Input layout shared by the signature fuzz targets: one byte picking the
// scheme among `schemes`, then the signature bytes.
template <std::size_t N>
int corpus_main(const std::array<Scheme, N>& schemes, int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus-dir>\n", argv[0]);
    return 2;
  }
  const char* dir = argv[1];
  std::filesystem::create_directories(dir);
  for (std::size_t i = 0; i < N; ++i) {
    const auto signature = fixed_key(schemes[i]).sign(fixed_message(), Hedging::deterministic).value();
    std::ofstream out(std::filesystem::path(dir) / ("valid-" + std::to_string(i)), std::ios::binary);
    const char selector = static_cast<char>(i);
    out.write(&selector, 1);
    out.write(reinterpret_cast<const char*>(signature.data()), static_cast<std::streamsize>(signature.size()));
  }
  return 0;
}

template <std::size_t N>
void fuzz_signature(const std::array<Scheme, N>& schemes, const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  const Scheme scheme = schemes[data[0] % N];
  const base::ByteView signature(data + 1, size - 1);
  const SigningKey& key = fixed_key(scheme);
  // Keys too: half the time the fuzzed bytes stand in for the public key.
  if (data[0] & 0x80) {
    (void)verify(scheme, signature, fixed_message(), signature);
    return;
  }
  (void)verify(scheme, key.public_key(), fixed_message(), signature);
}

}  // namespace sion::crypto::fuzz
