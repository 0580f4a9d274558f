#pragma once
// x86 SHA-2 kernels (sha2_x86.cpp). Internal to the crypto layer: call one
// only after checking sion::base::cpu_features() for the ISA named in its
// comment. Everyone else calls sha256_compress / sha512_compress and the
// multi-buffer functions of sion/crypto/sha2.hpp, which do that check.
//
// The multi-buffer kernels work on L independent lanes, one message each,
// all `blocks` blocks long. Their chaining values are interleaved word by
// word ("transposed"): state[w * L + l] is word w of lane l, so that
// state + w * L is one vector register. Lane l reads its blocks from
// data[l]. Each kernel is constant time: no branch or memory index depends
// on the data.

#include <cstddef>
#include <cstdint>

#include "sion/crypto/sha2.hpp"

namespace sion::crypto::detail {

// The round constants K (FIPS 180-4, Sec. 4.2.2 and 4.2.3), shared with the
// portable code in sha2.cpp.
extern const std::uint32_t kSha256K[64];
extern const std::uint64_t kSha512K[80];

// FIPS 180-4 Sec. 6.2.2 with the SHA extensions. Needs sha_ni and SSE4.1
// (callers check cpu_features().sha_ni && .sse42).
void sha256_compress_shani(Sha256State& state, const std::uint8_t* data, std::size_t blocks) noexcept;
// Two independent messages of `blocks` blocks each, interleaved so that one
// stream's rounds fill the other's latency. Needs sha_ni.
void sha256_compress_shani_x2(Sha256State& s0, Sha256State& s1, const std::uint8_t* d0, const std::uint8_t* d1,
                              std::size_t blocks) noexcept;

// Multi-buffer SHA-256: 8 lanes in AVX2, 16 in AVX-512 (F + BW).
void sha256_compress_x8_avx2(std::uint32_t* state, const std::uint8_t* const* data, std::size_t blocks) noexcept;
void sha256_compress_x16_avx512(std::uint32_t* state, const std::uint8_t* const* data, std::size_t blocks) noexcept;
// Multi-buffer SHA-512: 4 lanes in AVX2, 8 in AVX-512 (F + BW).
void sha512_compress_x4_avx2(std::uint64_t* state, const std::uint8_t* const* data, std::size_t blocks) noexcept;
void sha512_compress_x8_avx512(std::uint64_t* state, const std::uint8_t* const* data, std::size_t blocks) noexcept;

}  // namespace sion::crypto::detail
