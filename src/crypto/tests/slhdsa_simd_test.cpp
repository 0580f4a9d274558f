// The multi-lane SLH-DSA-SHA2 kernels (slhdsa_x86.hpp) against the one-block
// hashes they stand for, built byte by byte and compressed with the portable
// SHA-2 (FIPS 205, Sec. 11.2): random addresses (hash addresses beyond 16
// bits included), random values, random chain starts and lengths, with and
// without PRF start and capture. The ACVP vectors (slhdsa_test.cpp) cover
// the same kernels inside the scheme on every dispatch path.

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include "sion/base/cpu.hpp"
#include "sion/crypto/detail/slhdsa_x86.hpp"
#include "sion/crypto/sha2.hpp"

namespace sion::crypto {
namespace {

void store_be32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
void store_be64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
}

// The portable compression functions, whatever the CPU has.
template <class State>
void portable_compress(State& s, const std::uint8_t* block) {
  const base::CpuFeatures before = base::cpu_features();
  base::override_cpu_features_for_testing(base::CpuFeatures{});
  if constexpr (sizeof(s[0]) == 4) {
    sha256_compress(s, block, 1);
  } else {
    sha512_compress(s, block, 1);
  }
  base::override_cpu_features_for_testing(before);
}

// Trunc(compress(seed, ADRSc || m || padding)) with SHA-256: ADRSc as 22
// bytes (adrs[0..4] and the upper half of adrs[5]), m as `words` words.
std::vector<std::uint32_t> one_block_256(const Sha256State& seed, const std::uint32_t* adrs, const std::uint32_t* m,
                                         std::size_t words, std::size_t out_words) {
  std::array<std::uint8_t, 64> block{};
  for (int i = 0; i < 5; ++i) store_be32(block.data() + 4 * i, adrs[i]);
  block[20] = static_cast<std::uint8_t>(adrs[5] >> 24);
  block[21] = static_cast<std::uint8_t>(adrs[5] >> 16);
  for (std::size_t i = 0; i < words; ++i) store_be32(block.data() + 22 + 4 * i, m[i]);
  block[22 + 4 * words] = 0x80;
  store_be64(block.data() + 56, (64 + 22 + 4 * words) * 8);
  Sha256State s = seed;
  portable_compress(s, block.data());
  return std::vector<std::uint32_t>(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(out_words));
}

template <class T>
T pick(std::mt19937_64& rng) {
  return static_cast<T>(rng());
}

using Sha256Kernel = void (*)(const detail::SlhSha256Hash&) noexcept;
using ChainsKernel = void (*)(const detail::SlhSha256Chains&) noexcept;
using Sha512Kernel = void (*)(const detail::SlhSha512Hash&) noexcept;

template <std::size_t kLanes>
void check_hash256(Sha256Kernel kernel, std::mt19937_64& rng) {
  const std::pair<unsigned, unsigned> shapes[] = {{4, 4}, {8, 4}, {6, 6}, {8, 8}};
  for (int trial = 0; trial < 20; ++trial) {
    for (const auto& [in_words, out_words] : shapes) {
      Sha256State seed;
      for (auto& w : seed) w = pick<std::uint32_t>(rng);
      std::vector<std::uint32_t> adrs(6 * kLanes), in(in_words * kLanes), out(out_words * kLanes);
      for (auto& w : adrs) w = pick<std::uint32_t>(rng);
      for (auto& w : in) w = pick<std::uint32_t>(rng);
      kernel({seed.data(), adrs.data(), in.data(), out.data(), in_words, out_words});
      for (std::size_t l = 0; l < kLanes; ++l) {
        std::uint32_t a[6], m[8];
        for (std::size_t r = 0; r < 6; ++r) a[r] = adrs[r * kLanes + l];
        for (std::size_t r = 0; r < in_words; ++r) m[r] = in[r * kLanes + l];
        const auto want = one_block_256(seed, a, m, in_words, out_words);
        for (std::size_t r = 0; r < out_words; ++r) {
          ASSERT_EQ(out[r * kLanes + l], want[r]) << "lane " << l << " word " << r;
        }
      }
    }
  }
}

template <std::size_t kLanes>
void check_chains(ChainsKernel kernel, std::mt19937_64& rng) {
  for (int trial = 0; trial < 40; ++trial) {
    for (const unsigned words : {4U, 6U, 8U}) {
      const bool prf = trial % 2 == 1;
      const bool capture = trial % 4 >= 2;
      Sha256State seed;
      for (auto& w : seed) w = pick<std::uint32_t>(rng);
      std::vector<std::uint32_t> adrs(6 * kLanes), prf_adrs(6 * kLanes), x(words * kLanes), start(kLanes),
          steps(kLanes), capture_at(kLanes), captured(words * kLanes, 0);
      std::array<std::uint32_t, 8> sk_seed;
      for (auto& w : sk_seed) w = pick<std::uint32_t>(rng);
      for (auto& w : adrs) w = pick<std::uint32_t>(rng);
      for (auto& w : prf_adrs) w = pick<std::uint32_t>(rng);
      for (auto& w : x) w = pick<std::uint32_t>(rng);
      unsigned max_steps = 0;
      for (std::size_t l = 0; l < kLanes; ++l) {
        // Starts near 2^16 and 2^32 - 1 too, where the hash address
        // carries into ADRSc word 4.
        const std::uint32_t bases[] = {0, 0xFFF8, 0x1FFF5, 0xFFFFFFE0U};
        start[l] = bases[rng() % 4] + static_cast<std::uint32_t>(rng() % 8);
        steps[l] = static_cast<std::uint32_t>(rng() % 17);
        capture_at[l] = rng() % 3 == 0 ? 0xFFFFFFFFU : start[l] + static_cast<std::uint32_t>(rng() % (steps[l] + 1));
        max_steps = std::max(max_steps, steps[l]);
      }
      max_steps += static_cast<unsigned>(rng() % 3);  // more rounds than any lane needs
      const std::vector<std::uint32_t> x_in = x;
      kernel({seed.data(), adrs.data(), prf ? prf_adrs.data() : nullptr, sk_seed.data(), x.data(), start.data(),
              steps.data(), max_steps, words, capture ? capture_at.data() : nullptr, captured.data()});
      for (std::size_t l = 0; l < kLanes; ++l) {
        SCOPED_TRACE("lane " + std::to_string(l) + ", " + std::to_string(words) + " words");
        std::vector<std::uint32_t> v(words);
        if (prf) {
          std::uint32_t a[6];
          for (std::size_t r = 0; r < 6; ++r) a[r] = prf_adrs[r * kLanes + l];
          v = one_block_256(seed, a, sk_seed.data(), words, words);
        } else {
          for (std::size_t r = 0; r < words; ++r) v[r] = x_in[r * kLanes + l];
        }
        std::vector<std::uint32_t> want_capture;
        std::uint32_t a[6];
        for (std::size_t r = 0; r < 6; ++r) a[r] = adrs[r * kLanes + l];
        std::uint32_t j = start[l];
        for (std::uint32_t s = 0; s < steps[l]; ++s, ++j) {
          if (j == capture_at[l]) want_capture = v;
          a[4] = (a[4] & 0xFFFF0000U) | (j >> 16);  // ADRSc bytes 18-21 = j
          a[5] = j << 16;
          v = one_block_256(seed, a, v.data(), words, words);
        }
        if (j == capture_at[l]) want_capture = v;
        for (std::size_t r = 0; r < words; ++r) ASSERT_EQ(x[r * kLanes + l], v[r]) << "word " << r;
        if (capture && capture_at[l] != 0xFFFFFFFFU) {
          ASSERT_EQ(want_capture.size(), words);
          for (std::size_t r = 0; r < words; ++r) {
            ASSERT_EQ(captured[r * kLanes + l], want_capture[r]) << "captured word " << r;
          }
        }
      }
    }
  }
}

// The reference chain: `steps` F steps from v with ADRSc a[0..5] and hash
// addresses start, start + 1, ...
std::vector<std::uint32_t> reference_chain(const Sha256State& seed, std::uint32_t* a, std::vector<std::uint32_t> v,
                                           std::uint32_t start, std::uint32_t steps) {
  for (std::uint32_t j = start; j < start + steps; ++j) {
    a[4] = (a[4] & 0xFFFF0000U) | (j >> 16);
    a[5] = j << 16;
    v = one_block_256(seed, a, v.data(), v.size(), v.size());
  }
  return v;
}

// Two chains per lane (SlhSha256Chain2).
template <std::size_t kLanes>
void check_chain_pairs(ChainsKernel kernel, std::mt19937_64& rng) {
  for (int trial = 0; trial < 30; ++trial) {
    for (const unsigned words : {4U, 6U, 8U}) {
      Sha256State seed;
      for (auto& w : seed) w = pick<std::uint32_t>(rng);
      std::vector<std::uint32_t> adrs(6 * kLanes), adrs2(6 * kLanes), x(words * kLanes), x2(words * kLanes),
          start(kLanes), steps(kLanes), start2(kLanes), steps2(kLanes);
      for (auto* v : {&adrs, &adrs2, &x, &x2}) {
        for (auto& w : *v) w = pick<std::uint32_t>(rng);
      }
      unsigned max_steps = 0;
      for (std::size_t l = 0; l < kLanes; ++l) {
        start[l] = static_cast<std::uint32_t>(rng() % 16);
        steps[l] = static_cast<std::uint32_t>(rng() % 16);
        start2[l] = static_cast<std::uint32_t>(rng() % 16);
        steps2[l] = rng() % 4 == 0 ? 0 : static_cast<std::uint32_t>(rng() % 16);
        max_steps = std::max(max_steps, steps[l] + steps2[l]);
      }
      max_steps += static_cast<unsigned>(rng() % 2);
      const std::vector<std::uint32_t> x_in = x, x2_in = x2;
      const detail::SlhSha256Chain2 second{adrs2.data(), x2.data(), start2.data(), steps2.data()};
      detail::SlhSha256Chains args{seed.data(),  adrs.data(), nullptr, nullptr, x.data(), start.data(),
                                   steps.data(), max_steps,   words,   nullptr, nullptr};
      args.second = &second;
      kernel(args);
      for (std::size_t l = 0; l < kLanes; ++l) {
        SCOPED_TRACE("lane " + std::to_string(l) + ", " + std::to_string(words) + " words");
        std::uint32_t a[6], a2[6];
        std::vector<std::uint32_t> v(words), v2(words);
        for (std::size_t r = 0; r < 6; ++r) {
          a[r] = adrs[r * kLanes + l];
          a2[r] = adrs2[r * kLanes + l];
        }
        for (std::size_t r = 0; r < words; ++r) {
          v[r] = x_in[r * kLanes + l];
          v2[r] = x2_in[r * kLanes + l];
        }
        v = reference_chain(seed, a, v, start[l], steps[l]);
        v2 = reference_chain(seed, a2, v2, start2[l], steps2[l]);
        for (std::size_t r = 0; r < words; ++r) {
          ASSERT_EQ(x[r * kLanes + l], v[r]) << "first chain, word " << r;
          ASSERT_EQ(x2[r * kLanes + l], v2[r]) << "second chain, word " << r;
        }
      }
    }
  }
}

template <std::size_t kLanes>
void check_hash512(Sha512Kernel kernel, std::mt19937_64& rng) {
  const std::pair<unsigned, unsigned> shapes[] = {{6, 3}, {8, 4}};
  for (int trial = 0; trial < 20; ++trial) {
    for (const auto& [in_words, out_words] : shapes) {
      Sha512State seed;
      for (auto& w : seed) w = rng();
      std::vector<std::uint64_t> adrs(3 * kLanes), in(in_words * kLanes), out(out_words * kLanes);
      for (auto& w : adrs) w = rng();
      for (auto& w : in) w = rng();
      kernel({seed.data(), adrs.data(), in.data(), out.data(), in_words, out_words});
      for (std::size_t l = 0; l < kLanes; ++l) {
        std::array<std::uint8_t, 128> block{};
        store_be64(block.data(), adrs[l]);
        store_be64(block.data() + 8, adrs[kLanes + l]);
        std::uint8_t tail[8];
        store_be64(tail, adrs[2 * kLanes + l]);
        std::copy(tail, tail + 6, block.begin() + 16);
        for (std::size_t r = 0; r < in_words; ++r) store_be64(block.data() + 22 + 8 * r, in[r * kLanes + l]);
        block[22 + 8 * in_words] = 0x80;
        store_be64(block.data() + 120, (128 + 22 + 8 * in_words) * 8);
        Sha512State s = seed;
        portable_compress(s, block.data());
        for (std::size_t r = 0; r < out_words; ++r) {
          ASSERT_EQ(out[r * kLanes + l], s[r]) << "lane " << l << " word " << r;
        }
      }
    }
  }
}

TEST(SlhDsaKernels, Avx512MatchesPortable) {
  const base::CpuFeatures& hw = base::detect_cpu_features();
  if (!(hw.avx512f && hw.avx512bw)) GTEST_SKIP() << "no AVX-512 F+BW";
  std::mt19937_64 rng(31);
  check_hash256<16>(detail::slh_sha256_hash_x16_avx512, rng);
  check_chains<16>(detail::slh_sha256_chains_x16_avx512, rng);
  check_chain_pairs<16>(detail::slh_sha256_chains_x16_avx512, rng);
  check_hash512<8>(detail::slh_sha512_hash_x8_avx512, rng);
}

TEST(SlhDsaKernels, Avx2MatchesPortable) {
  if (!base::detect_cpu_features().avx2) GTEST_SKIP() << "no AVX2";
  std::mt19937_64 rng(32);
  check_hash256<8>(detail::slh_sha256_hash_x8_avx2, rng);
  check_chains<8>(detail::slh_sha256_chains_x8_avx2, rng);
  check_chain_pairs<8>(detail::slh_sha256_chains_x8_avx2, rng);
  check_hash512<4>(detail::slh_sha512_hash_x4_avx2, rng);
}

}  // namespace
}  // namespace sion::crypto
