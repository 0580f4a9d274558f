// x86 SHA-2 kernels (sha2_x86.hpp). Each function is compiled for its ISA
// with a function-level target attribute, never a file- or project-wide -m
// flag, so the rest of the binary runs on any x86-64; sha2.cpp and
// slhdsa.cpp call these only when cpu_features() reports the ISA.
//
// SHA-NI: the SHA extensions as described in Intel's "Intel SHA Extensions"
// paper and the SDM: SHA256RNDS2 does two rounds on the state split into
// the registers ABEF and CDGH, with W[t] + K[t] of the two rounds in the low
// half of its third operand; SHA256MSG1 and SHA256MSG2 compute the message
// schedule (FIPS 180-4, Sec. 6.2.2 step 1) four words at a time.
//
// Multi-buffer: the round function is sha2_simd.hpp's; the functions here
// transpose each lane's blocks into vectors of message words.

#include "sion/crypto/detail/sha2_x86.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#include "sha2_simd.hpp"
#endif

namespace sion::crypto::detail {

#if defined(__x86_64__)

namespace {

// ---- SHA-NI -----------------------------------------------------------------

// The state as SHA256RNDS2 wants it: abef = (f, e, b, a) and cdgh =
// (h, g, d, c) from the lowest 32-bit element up (a in bits 127:96).
struct ShaNiState {
  __m128i abef;
  __m128i cdgh;
};

__attribute__((target("sha,sse4.1"), always_inline)) inline ShaNiState shani_load(const Sha256State& s) {
  const __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data()));
  const __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + 4));
  const __m128i badc = _mm_shuffle_epi32(abcd, 0xB1);    // (b, a, d, c)
  const __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);    // (h, g, f, e)
  return ShaNiState{_mm_alignr_epi8(badc, hgfe, 8),      // (f, e, b, a)
                    _mm_blend_epi16(hgfe, badc, 0xF0)};  // (h, g, d, c)
}

__attribute__((target("sha,sse4.1"), always_inline)) inline void shani_store(const ShaNiState& st, Sha256State& s) {
  const __m128i abef = _mm_shuffle_epi32(st.abef, 0x1B);  // (a, b, e, f)
  const __m128i ghcd = _mm_shuffle_epi32(st.cdgh, 0xB1);  // (g, h, c, d)
  _mm_storeu_si128(reinterpret_cast<__m128i*>(s.data()), _mm_blend_epi16(abef, ghcd, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(s.data() + 4), _mm_alignr_epi8(ghcd, abef, 8));
}

// One block for each of kStreams states, the streams' instructions
// interleaved round by round (they are independent, so the CPU overlaps
// them).
template <int kStreams>
__attribute__((target("sha,sse4.1"), always_inline)) inline void shani_blocks(ShaNiState* st,
                                                                              const std::uint8_t* const* data,
                                                                              std::size_t blocks) {
  // Byte order: big-endian message words (Sec. 3.1) into 32-bit lanes.
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  for (std::size_t blk = 0; blk < blocks; ++blk) {
    ShaNiState saved[kStreams];
    __m128i m[kStreams][4];  // the last 16 schedule words, 4 per register
    for (int j = 0; j < kStreams; ++j) {
      saved[j] = st[j];
      const std::uint8_t* p = data[j] + 64 * blk;
      for (int i = 0; i < 4; ++i) {
        m[j][i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), bswap);
      }
    }
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) {  // rounds 4i .. 4i + 3
      const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kSha256K + 4 * i));
      for (int j = 0; j < kStreams; ++j) {
        __m128i* mj = m[j];
        if (i >= 4) {
          // W[t..t+3] from W[t-16..t-1] (m[i%4] holds W[t-16..t-13]):
          // msg1 adds sigma0, the alignr supplies W[t-7..t-4], msg2 adds
          // sigma1 (of two words computed in this very step for t+2, t+3).
          const __m128i w7 = _mm_alignr_epi8(mj[(i + 3) & 3], mj[(i + 2) & 3], 4);
          mj[i & 3] = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(mj[i & 3], mj[(i + 1) & 3]), w7),
                                           mj[(i + 3) & 3]);
        }
        __m128i wk = _mm_add_epi32(mj[i & 3], k);
        // Rounds 4i, 4i + 1 (W + K in wk's low half) leave the new abef in
        // .cdgh; rounds 4i + 2, 4i + 3 take the high half.
        st[j].cdgh = _mm_sha256rnds2_epu32(st[j].cdgh, st[j].abef, wk);
        wk = _mm_shuffle_epi32(wk, 0x0E);
        // After two rounds the old abef (still in .abef) is the new cdgh,
        // so the next two rounds write .abef and the names hold again.
        st[j].abef = _mm_sha256rnds2_epu32(st[j].abef, st[j].cdgh, wk);
      }
    }
    for (int j = 0; j < kStreams; ++j) {
      st[j].abef = _mm_add_epi32(st[j].abef, saved[j].abef);
      st[j].cdgh = _mm_add_epi32(st[j].cdgh, saved[j].cdgh);
    }
  }
}

}  // namespace

__attribute__((target("sha,sse4.1"))) void sha256_compress_shani(Sha256State& state, const std::uint8_t* data,
                                                                 std::size_t blocks) noexcept {
  ShaNiState st = shani_load(state);
  shani_blocks<1>(&st, &data, blocks);
  shani_store(st, state);
}

__attribute__((target("sha,sse4.1"))) void sha256_compress_shani_x2(Sha256State& s0, Sha256State& s1,
                                                                    const std::uint8_t* d0, const std::uint8_t* d1,
                                                                    std::size_t blocks) noexcept {
  ShaNiState st[2] = {shani_load(s0), shani_load(s1)};
  const std::uint8_t* data[2] = {d0, d1};
  shani_blocks<2>(st, data, blocks);
  shani_store(st[0], s0);
  shani_store(st[1], s1);
}

// ---- Multi-buffer ------------------------------------------------------------

namespace {

template <class V, class P>
SION_SIMD_INLINE void compress_lanes(typename P::Word* state, const std::uint8_t* const* data, std::size_t blocks,
                                     const typename P::Word* k) {
  constexpr std::size_t kLanes = sizeof(V) / sizeof(typename P::Word);
  V s[8];
  for (std::size_t i = 0; i < 8; ++i) simd::load(&s[i], state + i * kLanes);
  for (std::size_t blk = 0; blk < blocks; ++blk) {
    V w[16];
    simd::load_message(w, data, blk);
    simd::sha2_rounds<P>(s, w, k);
  }
  for (std::size_t i = 0; i < 8; ++i) simd::store(state + i * kLanes, &s[i]);
}

}  // namespace

// One multi-buffer kernel of sha2_x86.hpp: its ISA, lane vector, SHA-2
// parameters and constants.
#define SION_SHA2_LANES_KERNEL(name, isa, V, P, k)                                        \
  __attribute__((target(isa))) void name(P::Word* state, const std::uint8_t* const* data, \
                                         std::size_t blocks) noexcept {                   \
    compress_lanes<V, P>(state, data, blocks, k);                                         \
  }

SION_SHA2_LANES_KERNEL(sha256_compress_x8_avx2, "avx2", simd::u32x8, simd::Sha256Params, kSha256K)
SION_SHA2_LANES_KERNEL(sha256_compress_x16_avx512, "avx2,avx512f,avx512bw", simd::u32x16, simd::Sha256Params, kSha256K)
SION_SHA2_LANES_KERNEL(sha512_compress_x4_avx2, "avx2", simd::u64x4, simd::Sha512Params, kSha512K)
SION_SHA2_LANES_KERNEL(sha512_compress_x8_avx512, "avx2,avx512f,avx512bw", simd::u64x8, simd::Sha512Params, kSha512K)

#undef SION_SHA2_LANES_KERNEL

#else  // not x86-64: never called (cpu_features() reports nothing)

void sha256_compress_shani(Sha256State&, const std::uint8_t*, std::size_t) noexcept {}
void sha256_compress_shani_x2(Sha256State&, Sha256State&, const std::uint8_t*, const std::uint8_t*,
                              std::size_t) noexcept {}
void sha256_compress_x8_avx2(std::uint32_t*, const std::uint8_t* const*, std::size_t) noexcept {}
void sha256_compress_x16_avx512(std::uint32_t*, const std::uint8_t* const*, std::size_t) noexcept {}
void sha512_compress_x4_avx2(std::uint64_t*, const std::uint8_t* const*, std::size_t) noexcept {}
void sha512_compress_x8_avx512(std::uint64_t*, const std::uint8_t* const*, std::size_t) noexcept {}

#endif  // __x86_64__

}  // namespace sion::crypto::detail
