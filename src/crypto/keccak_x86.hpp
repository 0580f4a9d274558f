#pragma once
// x86 SIMD Keccak-f[1600] permutations of several interleaved states
// (keccak_x86.cpp). Internal to the crypto layer: call them only after
// checking sion::base::cpu_features() for the ISA named in each; everyone
// else calls keccak_f1600_x4 / _x8 (sion/crypto/keccak.hpp), which do that.
//
// `lanes` points at word 0 of lane 0; lane i of state j is
// lanes[i * stride + j], and lanes must be 32-byte aligned (64 for _x8).

#include <cstddef>
#include <cstdint>

namespace sion::crypto::detail {

// The round constants RC[i_r] (FIPS 202, Alg. 5 and 6).
extern const std::uint64_t kKeccakRoundConstants[24];

// Four states, lanes[i * stride + j] for j < 4. Needs AVX2.
void keccak_f1600_x4_avx2(std::uint64_t* lanes, std::size_t stride) noexcept;
// The same with AVX-512F + VL (vpternlogq, vprolq on 256-bit vectors).
void keccak_f1600_x4_avx512vl(std::uint64_t* lanes, std::size_t stride) noexcept;
// Eight states, lanes[i * 8 + j]. Needs AVX-512F.
void keccak_f1600_x8_avx512(std::uint64_t* lanes) noexcept;

}  // namespace sion::crypto::detail
