// Multi-lane SLH-DSA-SHA2 tweakable hashes (slhdsa_x86.hpp). Each exported
// function is compiled for its ISA with a function-level target attribute,
// never a file- or project-wide -m flag; slhdsa.cpp calls them only when
// cpu_features() reports the ISA. The compression function is
// sha2_simd.hpp's; this file builds the one message block of FIPS 205,
// Sec. 11.2 in registers:
//
//   word:  0..4           5                 5+1 .. 5+k-1         5+k        15
//   bytes: ADRSc[0..19]   ADRSc[20..21] M   M (shifted 2 bytes)  M | 0x80   bit length
//
// (SHA-256; M is k words; ADRSc is 22 bytes, so M starts in the middle of
// word 5 and every message word straddles two words of M.) SHA-512 is the
// same with 8-byte words: ADRSc fills words 0, 1 and 6 bytes of word 2.

#include "sion/crypto/detail/slhdsa_x86.hpp"

#if defined(__x86_64__)
#include "sha2_simd.hpp"
#include "sion/crypto/detail/sha2_x86.hpp"
#endif

namespace sion::crypto::detail {

#if defined(__x86_64__)

namespace {

using simd::load;
using simd::store;

// The block ADRSc || M || padding (FIPS 180-4, Sec. 5.1.1) after the
// 64-byte PK.seed block, as SHA-256 message words. a[0..4] are ADRSc words
// 0-4, a[5] holds ADRSc bytes 20-21 in its upper half and zeros below.
template <class V, unsigned kIn>
SION_SIMD_INLINE void sha256_block(V* w, const V* a, const V* in) {
  static_assert(kIn >= 1 && kIn <= 8);
  for (int t = 0; t < 5; ++t) w[t] = a[t];
  w[5] = a[5] | (in[0] >> 16);
  for (unsigned i = 1; i < kIn; ++i) w[5 + i] = (in[i - 1] << 16) | (in[i] >> 16);
  w[5 + kIn] = (in[kIn - 1] << 16) | 0x8000U;
  for (unsigned t = 6 + kIn; t < 15; ++t) w[t] = V{};
  w[15] = V{} + (64U + 22U + 4U * kIn) * 8U;
}

// s = the PK.seed midstate in every lane.
template <class V>
SION_SIMD_INLINE void seed_state(V* s, const std::uint32_t* seed) {
  for (int i = 0; i < 8; ++i) s[i] = V{} + seed[i];
}

// One-block hashes in every lane: SHA-256 here, SHA-512 below (the
// overloads of hash_lanes, on the argument type).
template <class V, unsigned kIn, unsigned kOut>
SION_SIMD_INLINE void hash_lanes(const SlhSha256Hash& p) {
  constexpr std::size_t kLanes = sizeof(V) / 4;
  V a[6];
  for (std::size_t r = 0; r < 6; ++r) load(&a[r], p.adrs + r * kLanes);
  a[5] &= 0xFFFF0000U;
  V in[kIn];
  for (std::size_t r = 0; r < kIn; ++r) load(&in[r], p.in + r * kLanes);
  V w[16];
  sha256_block<V, kIn>(w, a, in);
  V s[8];
  seed_state(s, p.seed);
  simd::sha256_rounds(s, w, kSha256K);
  for (std::size_t r = 0; r < kOut; ++r) store(p.out + r * kLanes, &s[r]);
}

// (v & mask) | (other & ~mask), lane by lane.
#define SION_SELECT(mask, v, other) (((v) & (mask)) | ((other) & ~(mask)))

template <class V, unsigned kWords, bool kCapture, bool kSecond>
SION_SIMD_INLINE void sha256_chain_lanes(const SlhSha256Chains& p) {
  static_assert(!(kCapture && kSecond));
  constexpr std::size_t kLanes = sizeof(V) / 4;
  V x[kWords];
  if (p.prf_adrs != nullptr) {  // x = PRF(PK.seed, SK.seed, prf_adrs)
    V a[6];
    for (std::size_t r = 0; r < 6; ++r) load(&a[r], p.prf_adrs + r * kLanes);
    a[5] &= 0xFFFF0000U;
    V sk[kWords];
    for (std::size_t r = 0; r < kWords; ++r) sk[r] = V{} + p.sk_seed[r];
    V w[16];
    sha256_block<V, kWords>(w, a, sk);
    V s[8];
    seed_state(s, p.seed);
    simd::sha256_rounds(s, w, kSha256K);
    for (std::size_t r = 0; r < kWords; ++r) x[r] = s[r];
  } else {
    for (std::size_t r = 0; r < kWords; ++r) load(&x[r], p.x + r * kLanes);
  }
  V seed[8];
  seed_state(seed, p.seed);
  V a[6];
  for (std::size_t r = 0; r < 5; ++r) load(&a[r], p.adrs + r * kLanes);
  // Message words 0-3 (ADRSc bytes 0-15) are the same in every step, so
  // rounds 0-3 are too: run them once.
  constexpr int kShared = 4;
  V shared[8];
  for (int i = 0; i < 8; ++i) shared[i] = seed[i];
  {
    V w[16];
    for (int t = 0; t < kShared; ++t) w[t] = a[t];
    simd::sha256_round_range<0, kShared>(shared, w, kSha256K);
  }
  V a4_high = a[4] & 0xFFFF0000U;  // ADRSc bytes 16-17; 18-21 are the hash address
  V j, end;
  load(&j, p.start);
  load(&end, p.steps);
  end += j;
  V capture_at{}, captured[kWords];
  if constexpr (kCapture) {
    load(&capture_at, p.capture_at);
    for (std::size_t r = 0; r < kWords; ++r) load(&captured[r], p.capture + r * kLanes);
  }
  // The second chain of each lane, and the step at which the lane turns to
  // it (the first chain's length); first_x keeps the first chain's result.
  V switch_at{}, first_x[kWords], b_a[4], b_a4_high{}, b_shared[8], b_x[kWords], b_j{}, b_end{};
  if constexpr (kSecond) {
    const SlhSha256Chain2& q = *p.second;
    load(&switch_at, p.steps);
    V b_w[16];
    for (std::size_t r = 0; r < 4; ++r) {
      load(&b_a[r], q.adrs + r * kLanes);
      b_w[r] = b_a[r];
    }
    load(&b_a4_high, q.adrs + 4 * kLanes);
    b_a4_high &= 0xFFFF0000U;
    for (int i = 0; i < 8; ++i) b_shared[i] = seed[i];
    simd::sha256_round_range<0, kShared>(b_shared, b_w, kSha256K);
    for (std::size_t r = 0; r < kWords; ++r) {
      load(&b_x[r], q.x + r * kLanes);
      first_x[r] = x[r];
    }
    load(&b_j, q.start);
    load(&b_end, q.steps);
    b_end += b_j;
  }
  for (unsigned step = 0; step < p.max_steps; ++step) {
    if constexpr (kSecond) {
      const V turn = (V)(switch_at == step);
      for (std::size_t r = 0; r < kWords; ++r) {
        first_x[r] = SION_SELECT(turn, x[r], first_x[r]);
        x[r] = SION_SELECT(turn, b_x[r], x[r]);
      }
      for (std::size_t r = 0; r < 4; ++r) a[r] = SION_SELECT(turn, b_a[r], a[r]);
      a4_high = SION_SELECT(turn, b_a4_high, a4_high);
      for (int i = 0; i < 8; ++i) shared[i] = SION_SELECT(turn, b_shared[i], shared[i]);
      j = SION_SELECT(turn, b_j, j);
      end = SION_SELECT(turn, b_end, end);
    }
    if constexpr (kCapture) {
      const V hit = (V)(j == capture_at);
      for (std::size_t r = 0; r < kWords; ++r) captured[r] = SION_SELECT(hit, x[r], captured[r]);
    }
    const V active = (V)(j < end);
    a[4] = a4_high | (j >> 16);
    a[5] = j << 16;
    V w[16];
    sha256_block<V, kWords>(w, a, x);
    V s[8];
    for (int i = 0; i < 8; ++i) s[i] = shared[i];
    simd::sha256_round_range<kShared, 64>(s, w, kSha256K);
    for (std::size_t r = 0; r < kWords; ++r) {
      x[r] = SION_SELECT(active, s[r] + seed[r], x[r]);  // step 4, Trunc_n
    }
    j += active & 1U;
  }
  if constexpr (kCapture) {
    const V hit = (V)(j == capture_at);
    for (std::size_t r = 0; r < kWords; ++r) {
      captured[r] = SION_SELECT(hit, x[r], captured[r]);
      store(p.capture + r * kLanes, &captured[r]);
    }
  }
  if constexpr (kSecond) {
    // A lane whose first chain ends with the last step has an empty second.
    const V turn = (V)(switch_at == p.max_steps);
    for (std::size_t r = 0; r < kWords; ++r) {
      first_x[r] = SION_SELECT(turn, x[r], first_x[r]);
      x[r] = SION_SELECT(turn, b_x[r], x[r]);
      store(p.x + r * kLanes, &first_x[r]);
      store(p.second->x + r * kLanes, &x[r]);
    }
  } else {
    for (std::size_t r = 0; r < kWords; ++r) store(p.x + r * kLanes, &x[r]);
  }
}

#undef SION_SELECT

template <class V, unsigned kWords>
SION_SIMD_INLINE void sha256_chains_words(const SlhSha256Chains& p) {
  if (p.capture_at != nullptr) {
    sha256_chain_lanes<V, kWords, true, false>(p);
  } else if (p.second != nullptr) {
    sha256_chain_lanes<V, kWords, false, true>(p);
  } else {
    sha256_chain_lanes<V, kWords, false, false>(p);
  }
}

template <class V>
SION_SIMD_INLINE void sha256_chains_any(const SlhSha256Chains& p) {
  if (p.words == 4) {
    sha256_chains_words<V, 4>(p);
  } else if (p.words == 6) {
    sha256_chains_words<V, 6>(p);
  } else if (p.words == 8) {
    sha256_chains_words<V, 8>(p);
  }
}

template <class V, unsigned kIn, unsigned kOut>
SION_SIMD_INLINE void hash_lanes(const SlhSha512Hash& p) {
  static_assert(kIn >= 1 && kIn <= 12);
  constexpr std::size_t kLanes = sizeof(V) / 8;
  V a[3];
  for (std::size_t r = 0; r < 3; ++r) load(&a[r], p.adrs + r * kLanes);
  V in[kIn];
  for (std::size_t r = 0; r < kIn; ++r) load(&in[r], p.in + r * kLanes);
  V w[16];
  w[0] = a[0];
  w[1] = a[1];
  w[2] = (a[2] & 0xFFFFFFFFFFFF0000ULL) | (in[0] >> 48);
  for (unsigned i = 1; i < kIn; ++i) w[2 + i] = (in[i - 1] << 16) | (in[i] >> 48);
  w[2 + kIn] = (in[kIn - 1] << 16) | 0x8000U;
  for (unsigned t = 3 + kIn; t < 15; ++t) w[t] = V{};
  w[15] = V{} + (128U + 22U + 8U * kIn) * 8U;  // the upper 64 length bits (word 14) are 0
  V s[8];
  for (int i = 0; i < 8; ++i) s[i] = V{} + p.seed[i];
  simd::sha512_rounds(s, w, kSha512K);
  for (std::size_t r = 0; r < kOut; ++r) store(p.out + r * kLanes, &s[r]);
}

// An (in, out) shape of hash_lanes, in words.
template <unsigned kIn, unsigned kOut>
struct Words {};

// hash_lanes for p's in_words and out_words, if among the shapes listed.
template <class V, class Args, unsigned... kIn, unsigned... kOut>
SION_SIMD_INLINE void hash_any(const Args& p, Words<kIn, kOut>...) {
  (void)((p.in_words == kIn && p.out_words == kOut && (hash_lanes<V, kIn, kOut>(p), true)) || ...);
}

// SHA-256: PRF and F for n = 16, 24, 32, and H for n = 16.
template <class V>
SION_SIMD_INLINE void sha256_hash_any(const SlhSha256Hash& p) {
  hash_any<V>(p, Words<4, 4>{}, Words<8, 4>{}, Words<6, 6>{}, Words<8, 8>{});
}

// SHA-512: H for n = 24 and n = 32.
template <class V>
SION_SIMD_INLINE void sha512_hash_any(const SlhSha512Hash& p) {
  hash_any<V>(p, Words<6, 3>{}, Words<8, 4>{});
}

}  // namespace

__attribute__((target("avx2,avx512f,avx512bw"))) void slh_sha256_hash_x16_avx512(const SlhSha256Hash& args) noexcept {
  sha256_hash_any<simd::u32x16>(args);
}

__attribute__((target("avx2"))) void slh_sha256_hash_x8_avx2(const SlhSha256Hash& args) noexcept {
  sha256_hash_any<simd::u32x8>(args);
}

__attribute__((target("avx2,avx512f,avx512bw"))) void slh_sha256_chains_x16_avx512(
    const SlhSha256Chains& args) noexcept {
  sha256_chains_any<simd::u32x16>(args);
}

__attribute__((target("avx2"))) void slh_sha256_chains_x8_avx2(const SlhSha256Chains& args) noexcept {
  sha256_chains_any<simd::u32x8>(args);
}

__attribute__((target("avx2,avx512f,avx512bw"))) void slh_sha512_hash_x8_avx512(const SlhSha512Hash& args) noexcept {
  sha512_hash_any<simd::u64x8>(args);
}

__attribute__((target("avx2"))) void slh_sha512_hash_x4_avx2(const SlhSha512Hash& args) noexcept {
  sha512_hash_any<simd::u64x4>(args);
}

#else  // not x86-64: never called (cpu_features() reports nothing)

void slh_sha256_hash_x16_avx512(const SlhSha256Hash&) noexcept {}
void slh_sha256_hash_x8_avx2(const SlhSha256Hash&) noexcept {}
void slh_sha256_chains_x16_avx512(const SlhSha256Chains&) noexcept {}
void slh_sha256_chains_x8_avx2(const SlhSha256Chains&) noexcept {}
void slh_sha512_hash_x8_avx512(const SlhSha512Hash&) noexcept {}
void slh_sha512_hash_x4_avx2(const SlhSha512Hash&) noexcept {}

#endif  // __x86_64__

}  // namespace sion::crypto::detail
