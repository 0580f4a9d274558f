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

// The round constants RC[i_r] (FIPS 202, Alg. 5 and 6), shared with the
// scalar permutation in keccak.cpp.
inline constexpr std::uint64_t kKeccakRoundConstants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL, 0x000000000000808bULL,
    0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL, 0x0000000000000088ULL,
    0x0000000080008009ULL, 0x000000008000000aULL, 0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

// Four states, lanes[i * stride + j] for j < 4. Needs AVX2.
void keccak_f1600_x4_avx2(std::uint64_t* lanes, std::size_t stride) noexcept;
// SHA3-256 of inputs[j][0, len) into outputs[j][0, 32) for j < 4, in the
// lanes of one AVX2 state. Inputs and outputs need no alignment. Needs AVX2.
void sha3_256_x4_avx2(const std::uint8_t* const* inputs, std::size_t len, std::uint8_t* const* outputs) noexcept;
// keccak_f1600_x4_avx2 with AVX-512F + VL (vpternlogq, vprolq on 256-bit vectors).
void keccak_f1600_x4_avx512vl(std::uint64_t* lanes, std::size_t stride) noexcept;
// Eight states, lanes[i * 8 + j]. Needs AVX-512F.
void keccak_f1600_x8_avx512(std::uint64_t* lanes) noexcept;

}  // namespace sion::crypto::detail
