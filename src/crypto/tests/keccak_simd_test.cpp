// The multi-state Keccak (keccak_f1600_x4 / _x8, KeccakSpongeN) on every
// dispatch path against the one-state permutation and sponges.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cpu_paths.hpp"
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
  for (std::size_t len : {std::size_t{0}, std::size_t{1}, std::size_t{34}, std::size_t{66},
                          rate - 1, rate, rate + 1, 2 * rate + 7}) {
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

INSTANTIATE_TEST_SUITE_P(Paths, KeccakSimd, ::testing::ValuesIn(cpu_path_names()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace sion::crypto
