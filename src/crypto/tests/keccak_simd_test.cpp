// The multi-state Keccak (keccak_f1600_x4 / _x8, KeccakSpongeN) on every
// dispatch path against the one-state permutation and sponges, and
// sha3_256 / sha3_256_many on every path against OpenSSL.

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <vector>

#include "cpu_paths.hpp"
#include "random_input.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::crypto {
namespace {

using testing::cpu_path_features;
using testing::cpu_path_names;
using testing::ScopedCpuFeatures;

class KeccakSimd : public ::testing::TestWithParam<std::string> {
 protected:
  ScopedCpuFeatures cpu_{cpu_path_features(GetParam())};
};

template <std::size_t kWays>
void check_permutation(std::mt19937_64& rng, void (*permute)(KeccakStates<kWays>&)) {
  for (int trial = 0; trial < 50; ++trial) {
    KeccakStates<kWays> states;
    KeccakState single[kWays];
    for (std::size_t i = 0; i < 25; ++i) {
      for (std::size_t j = 0; j < kWays; ++j) single[j][i] = states.lanes[i][j] = rng();
    }
    // A few rounds of chaining, as a sponge does.
    for (int rep = 0; rep < 3; ++rep) {
      permute(states);
      for (auto& s : single) keccak_f1600(s);
    }
    for (std::size_t i = 0; i < 25; ++i) {
      for (std::size_t j = 0; j < kWays; ++j) {
        ASSERT_EQ(states.lanes[i][j], single[j][i]) << "lane " << i << " state " << j;
      }
    }
  }
}

TEST_P(KeccakSimd, X4MatchesFourSinglePermutations) {
  std::mt19937_64 rng(11);
  check_permutation<4>(rng, &keccak_f1600_x4);
}

TEST_P(KeccakSimd, X8MatchesEightSinglePermutations) {
  std::mt19937_64 rng(12);
  check_permutation<8>(rng, &keccak_f1600_x8);
}

// KeccakSpongeN against kWays one-state sponges, for input lengths around
// the rate and several squeezes.
template <class Multi, class Single>
void check_sponge(std::mt19937_64& rng) {
  constexpr std::size_t ways = Multi::kLanes;
  constexpr std::size_t rate = Multi::kRateBytes;
  for (std::size_t len :
       {std::size_t{0}, std::size_t{1}, std::size_t{34}, std::size_t{66}, rate - 1, rate, rate + 1, 2 * rate + 7}) {
    std::vector<std::uint8_t> inputs[ways];
    const std::uint8_t* in[ways];
    for (std::size_t j = 0; j < ways; ++j) {
      inputs[j].resize(len + 1);
      for (auto& b : inputs[j]) b = static_cast<std::uint8_t>(rng());
      in[j] = inputs[j].data();
    }
    Multi multi;
    multi.absorb_once(in, len);
    std::vector<std::uint8_t> got[ways];
    std::uint8_t* out[ways];
    for (std::size_t j = 0; j < ways; ++j) {
      got[j].resize(5 * rate);
      out[j] = got[j].data();
    }
    multi.squeeze_blocks(out, 3);
    for (std::size_t j = 0; j < ways; ++j) out[j] = got[j].data() + 3 * rate;
    out[1] = nullptr;  // way 1 discards its fourth block
    multi.squeeze_blocks(out, 1);
    for (std::size_t j = 0; j < ways; ++j) out[j] = got[j].data() + 4 * rate;
    out[1] = got[1].data() + 3 * rate;
    multi.squeeze_blocks(out, 1);
    for (std::size_t j = 0; j < ways; ++j) {
      Single single;
      single.absorb({in[j], len});
      single.finalize();
      std::vector<std::uint8_t> want(5 * rate);
      single.squeeze(want);
      if (j == 1) {
        // Way 1 skipped block 3 and wrote block 4 where block 3 goes.
        std::copy(want.begin() + 4 * rate, want.end(), want.begin() + 3 * rate);
        got[1].resize(4 * rate);
        want.resize(4 * rate);
      }
      ASSERT_EQ(got[j], want) << "length " << len << " way " << j;
    }
  }
}

TEST_P(KeccakSimd, SpongesMatchOneStateSponges) {
  std::mt19937_64 rng(13);
  check_sponge<Shake128x4, Shake128>(rng);
  check_sponge<Shake256x4, Shake256>(rng);
  check_sponge<Shake128x8, Shake128>(rng);
  check_sponge<Shake256x8, Shake256>(rng);
}

Hash256 openssl_sha3_256(const std::uint8_t* data, std::size_t len) {
  Hash256 out{};
  unsigned out_len = 0;
  EXPECT_EQ(EVP_Digest(data, len, out.data(), &out_len, EVP_sha3_256(), nullptr), 1);
  EXPECT_EQ(out_len, out.size());
  return out;
}

// Every length up to past two blocks (rate 136), with batch sizes that
// leave every remainder of 4 and 8 lanes, inputs at odd offsets of one
// buffer (unaligned loads) and some inputs repeated.
TEST_P(KeccakSimd, Sha3_256AndManyMatchOpenSsl) {
  std::mt19937_64 rng(14);
  for (std::size_t len = 0; len <= 300; ++len) {
    const std::size_t count = rng() % 21;
    const base::Bytes buffer = testing::random_bytes(rng, count * (len + 3) + 1);
    std::vector<const std::uint8_t*> inputs(count);
    for (std::size_t i = 0; i < count; ++i) {
      inputs[i] = buffer.data() + 1 + (rng() % 5 == 0 && i > 0 ? i - 1 : i) * (len + 3);
    }
    std::vector<Hash256> many(count);
    sha3_256_many(inputs.data(), len, many.data(), count);
    for (std::size_t i = 0; i < count; ++i) {
      const Hash256 want = openssl_sha3_256(inputs[i], len);
      ASSERT_EQ(sha3_256({inputs[i], len}), want) << "length " << len;
      ASSERT_EQ(many[i], want) << "length " << len << " count " << count << " input " << i;
    }
  }
}

// Tree-node sizes (64 and 65 bytes, one block) and several-block inputs
// for every batch size up to 9: the AVX2 path absorbs straight from the
// inputs (transposed 32-byte loads, a partial last word) and computes only
// the digest row of the last round. Each input is its own allocation, so
// the loads see no neighbouring bytes to hide an overread from ASan.
TEST_P(KeccakSimd, Sha3_256ManyNodeSizesAndLongInputs) {
  std::mt19937_64 rng(15);
  for (std::size_t len : {std::size_t{0}, std::size_t{31}, std::size_t{32}, std::size_t{64}, std::size_t{65},
                          std::size_t{135}, std::size_t{136}, std::size_t{137}, std::size_t{272}, std::size_t{1000}}) {
    for (std::size_t count = 1; count <= 9; ++count) {
      std::vector<base::Bytes> buffers(count);
      std::vector<const std::uint8_t*> inputs(count);
      for (std::size_t i = 0; i < count; ++i) {
        buffers[i] = testing::random_bytes(rng, len);
        inputs[i] = buffers[i].data();
      }
      std::vector<Hash256> many(count);
      sha3_256_many(inputs.data(), len, many.data(), count);
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(many[i], openssl_sha3_256(inputs[i], len))
            << "length " << len << " count " << count << " input " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, KeccakSimd, ::testing::ValuesIn(cpu_path_names()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace sion::crypto
