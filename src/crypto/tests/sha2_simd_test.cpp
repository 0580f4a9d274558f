// The SIMD SHA-2 kernels (sha2_x86.hpp) and the dispatching entry points
// (sha256_compress, sha*_compress_many) against the portable compression
// functions, on every dispatch path this machine can run.

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <type_traits>
#include <vector>

#include "cpu_paths.hpp"
#include "sion/crypto/detail/sha2_x86.hpp"
#include "sion/crypto/sha2.hpp"

namespace sion::crypto {
namespace {

using testing::ScopedCpuFeatures;

template <class Word>
std::array<Word, 8> random_state(std::mt19937_64& rng) {
  std::array<Word, 8> s;
  for (Word& w : s) w = static_cast<Word>(rng());
  return s;
}

std::vector<std::uint8_t> random_bytes(std::mt19937_64& rng, std::size_t len) {
  std::vector<std::uint8_t> out(len);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

// The portable compression functions: the dispatching ones with every
// feature off, then the features in force before (a path under test) back.
template <class State>
State portable(State s, const std::uint8_t* data, std::size_t blocks) {
  const base::CpuFeatures before = base::cpu_features();
  base::override_cpu_features_for_testing(base::CpuFeatures{});
  if constexpr (std::is_same_v<State, Sha256State>) {
    sha256_compress(s, data, blocks);
  } else {
    sha512_compress(s, data, blocks);
  }
  base::override_cpu_features_for_testing(before);
  return s;
}
Sha256State portable256(Sha256State s, const std::uint8_t* data, std::size_t blocks) {
  return portable(s, data, blocks);
}
Sha512State portable512(Sha512State s, const std::uint8_t* data, std::size_t blocks) {
  return portable(s, data, blocks);
}

// ---------------------------------------------------------------------------
// Each kernel directly (skipped where the CPU lacks its ISA).

constexpr std::size_t kBlockCounts[] = {1, 2, 3, 5};

TEST(Sha2Kernels, ShaNiMatchesPortable) {
  const base::CpuFeatures& hw = base::detect_cpu_features();
  if (!(hw.sha_ni && hw.sse42)) GTEST_SKIP() << "no SHA-NI";
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 50; ++trial) {
    for (const std::size_t blocks : kBlockCounts) {
      const auto d0 = random_bytes(rng, 64 * blocks);
      const auto d1 = random_bytes(rng, 64 * blocks);
      Sha256State s0 = random_state<std::uint32_t>(rng);
      Sha256State s1 = random_state<std::uint32_t>(rng);
      const Sha256State want0 = portable256(s0, d0.data(), blocks);
      const Sha256State want1 = portable256(s1, d1.data(), blocks);
      Sha256State single = s0;
      detail::sha256_compress_shani(single, d0.data(), blocks);
      EXPECT_EQ(single, want0) << blocks << " blocks";
      detail::sha256_compress_shani_x2(s0, s1, d0.data(), d1.data(), blocks);
      EXPECT_EQ(s0, want0) << blocks << " blocks";
      EXPECT_EQ(s1, want1) << blocks << " blocks";
    }
  }
}

// A kLanes-lane kernel on random states and blocks against kLanes portable
// compressions.
template <std::size_t kLanes, class Word, class Kernel, class Portable>
void check_lanes(Kernel kernel, Portable portable, std::size_t block_bytes, int seed) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  for (int trial = 0; trial < 20; ++trial) {
    for (const std::size_t blocks : kBlockCounts) {
      std::vector<std::uint8_t> data[kLanes];
      const std::uint8_t* ptrs[kLanes];
      std::array<Word, 8> states[kLanes];
      std::vector<Word> transposed(8 * kLanes);
      for (std::size_t l = 0; l < kLanes; ++l) {
        data[l] = random_bytes(rng, block_bytes * blocks);
        ptrs[l] = data[l].data();
        states[l] = random_state<Word>(rng);
        for (std::size_t w = 0; w < 8; ++w) transposed[w * kLanes + l] = states[l][w];
      }
      kernel(transposed.data(), ptrs, blocks);
      for (std::size_t l = 0; l < kLanes; ++l) {
        const std::array<Word, 8> want = portable(states[l], ptrs[l], blocks);
        for (std::size_t w = 0; w < 8; ++w) {
          ASSERT_EQ(transposed[w * kLanes + l], want[w])
              << "lane " << l << " word " << w << ", " << blocks << " blocks";
        }
      }
    }
  }
}

TEST(Sha2Kernels, Avx2MatchesPortable) {
  if (!base::detect_cpu_features().avx2) GTEST_SKIP() << "no AVX2";
  check_lanes<8, std::uint32_t>(detail::sha256_compress_x8_avx2, portable256, 64, 22);
  check_lanes<4, std::uint64_t>(detail::sha512_compress_x4_avx2, portable512, 128, 23);
}

TEST(Sha2Kernels, Avx512MatchesPortable) {
  const base::CpuFeatures& hw = base::detect_cpu_features();
  if (!(hw.avx512f && hw.avx512bw)) GTEST_SKIP() << "no AVX-512 F+BW";
  check_lanes<16, std::uint32_t>(detail::sha256_compress_x16_avx512, portable256, 64, 24);
  check_lanes<8, std::uint64_t>(detail::sha512_compress_x8_avx512, portable512, 128, 25);
}

// ---------------------------------------------------------------------------
// The dispatching entry points on every path.

class Sha2Paths : public ::testing::TestWithParam<std::string> {
 protected:
  ScopedCpuFeatures cpu_{testing::cpu_path_features(GetParam(), testing::CpuPathSet::sha2)};
};

std::vector<std::uint8_t> openssl_digest(const EVP_MD* md, const std::vector<std::uint8_t>& in) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(EVP_MD_get_size(md)));
  unsigned len = 0;
  EXPECT_EQ(EVP_Digest(in.data(), in.size(), out.data(), &len, md, nullptr), 1);
  return out;
}

TEST_P(Sha2Paths, DigestsMatchOpenSsl) {
  std::mt19937_64 rng(26);
  for (std::size_t len = 0; len <= 600; len += (len < 300 ? 1 : 61)) {
    const auto msg = random_bytes(rng, len);
    const auto d256 = sha256(msg);
    const auto d512 = sha512(msg);
    ASSERT_EQ(std::vector<std::uint8_t>(d256.begin(), d256.end()), openssl_digest(EVP_sha256(), msg)) << len;
    ASSERT_EQ(std::vector<std::uint8_t>(d512.begin(), d512.end()), openssl_digest(EVP_sha512(), msg)) << len;
  }
}

template <class Word, class Many, class Portable>
void check_many(Many many, Portable portable, std::size_t block_bytes, int seed) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  for (std::size_t count = 0; count <= 40; ++count) {
    for (const std::size_t blocks : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
      std::vector<std::vector<std::uint8_t>> data(count);
      std::vector<const std::uint8_t*> ptrs(count);
      std::vector<std::array<Word, 8>> states(count), want(count);
      for (std::size_t i = 0; i < count; ++i) {
        data[i] = random_bytes(rng, block_bytes * blocks);
        ptrs[i] = data[i].data();
        states[i] = random_state<Word>(rng);
        want[i] = portable(states[i], ptrs[i], blocks);
      }
      many(states.data(), ptrs.data(), count, blocks);
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(states[i], want[i]) << "message " << i << " of " << count << ", " << blocks << " blocks";
      }
    }
  }
}

TEST_P(Sha2Paths, Sha256ManyMatchesPortable) { check_many<std::uint32_t>(sha256_compress_many, portable256, 64, 27); }

TEST_P(Sha2Paths, Sha512ManyMatchesPortable) { check_many<std::uint64_t>(sha512_compress_many, portable512, 128, 28); }

INSTANTIATE_TEST_SUITE_P(Paths, Sha2Paths, ::testing::ValuesIn(testing::cpu_path_names(testing::CpuPathSet::sha2)),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace sion::crypto
