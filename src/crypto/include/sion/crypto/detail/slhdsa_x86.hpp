#pragma once
// Multi-lane SLH-DSA-SHA2 tweakable hashes (FIPS 205, Sec. 11.2) for x86
// (slhdsa_x86.cpp). Internal to the crypto layer: slhdsa.cpp calls these
// only when cpu_features() reports the ISA named in each function's suffix
// (avx2; avx512 = AVX-512 F + BW).
//
// Every one-block SLH-DSA-SHA2 hash (PRF, F, and H of category 1 with
// SHA-256; H of categories 3 and 5 with SHA-512) compresses, from the
// midstate after the PK.seed block, the one block
//     ADRSc (22 bytes) || M || 0x80 || 0 ... 0 || bit length
// where M is one or two n-byte values. The kernels take each lane's ADRSc
// and M as big-endian words, lane-interleaved ("rows"): row r of an array
// with L lanes is elements r * L .. r * L + L - 1, one vector register. They
// build the block in registers, so there is no per-lane byte shuffling, and
// a WOTS+ chain stays in registers for all its steps.
//
// Every kernel is constant time: the data never decides a branch or a
// memory index. Lanes with fewer steps than others are masked, not skipped.

#include <cstddef>
#include <cstdint>

namespace sion::crypto::detail {

// The arguments of a multi-lane SHA-256 hash or chain call.
//   seed     PK.seed midstate (8 words, not interleaved)
//   adrs     6 rows: ADRSc as big-endian words, row 5 holding ADRSc bytes
//            20-21 in its upper half (its lower half is ignored)
//   words    n / 4, the data words of one n-byte value (4, 6 or 8)
struct SlhSha256Hash {
  const std::uint32_t* seed;
  const std::uint32_t* adrs;
  const std::uint32_t* in;  // in_words rows: M
  std::uint32_t* out;       // out_words rows: Trunc_n of the hash
  unsigned in_words;        // n / 4 (PRF, F) or n / 2 (H); at most 8
  unsigned out_words;       // n / 4
};

// WOTS+ chains (FIPS 205, Alg. 5) and the FORS leaves: lane l applies F
// steps[l] times to x[l], with hash address (ADRSc bytes 18-21) start[l],
// start[l] + 1, ...; the rest of its ADRSc comes from `adrs`. With prf_adrs
// set, x starts as PRF(PK.seed, SK.seed, prf_adrs[l]) instead of being
// read. With capture_at set, capture[l] receives the chain's value at index
// capture_at[l] (after capture_at[l] - start[l] steps), if it passes it.
//
// With `second` set (and neither prf_adrs nor capture_at), each lane runs a
// second chain after the first: from step steps[l] on, chain `second` with
// its own address, value, start and steps (0 for lanes without one), so
// that a short chain fills the lane a long one leaves idle. Its result goes
// back to second->x; max_steps must cover steps + second->steps.
struct SlhSha256Chain2 {
  const std::uint32_t* adrs;   // 6 rows
  std::uint32_t* x;            // `words` rows, in and out
  const std::uint32_t* start;  // 1 row
  const std::uint32_t* steps;  // 1 row
};

struct SlhSha256Chains {
  const std::uint32_t* seed;
  const std::uint32_t* adrs;
  const std::uint32_t* prf_adrs;    // 6 rows, or null
  const std::uint32_t* sk_seed;     // `words` words (not interleaved), with prf_adrs
  std::uint32_t* x;                 // `words` rows, in (unless prf_adrs) and out
  const std::uint32_t* start;       // 1 row
  const std::uint32_t* steps;       // 1 row
  unsigned max_steps;               // at least every steps[l]
  unsigned words;                   // n / 4: 4, 6 or 8
  const std::uint32_t* capture_at;  // 1 row, or null
  std::uint32_t* capture;           // `words` rows, with capture_at
  const SlhSha256Chain2* second = nullptr;
};

// 16 lanes (AVX-512 F + BW) and 8 lanes (AVX2).
void slh_sha256_hash_x16_avx512(const SlhSha256Hash& args) noexcept;
void slh_sha256_hash_x8_avx2(const SlhSha256Hash& args) noexcept;
void slh_sha256_chains_x16_avx512(const SlhSha256Chains& args) noexcept;
void slh_sha256_chains_x8_avx2(const SlhSha256Chains& args) noexcept;

// H of categories 3 and 5: SHA-512 with 64-bit big-endian words; adrs has 3
// rows (ADRSc bytes 0-7, 8-15, and 16-21 in the upper 48 bits of row 2).
struct SlhSha512Hash {
  const std::uint64_t* seed;  // PK.seed midstate of SHA-512
  const std::uint64_t* adrs;
  const std::uint64_t* in;  // in_words rows: M = left || right
  std::uint64_t* out;       // out_words rows
  unsigned in_words;        // n / 4 = 2n / 8: 6 or 8
  unsigned out_words;       // n / 8: 3 or 4
};

// 8 lanes (AVX-512 F + BW) and 4 lanes (AVX2).
void slh_sha512_hash_x8_avx512(const SlhSha512Hash& args) noexcept;
void slh_sha512_hash_x4_avx2(const SlhSha512Hash& args) noexcept;

}  // namespace sion::crypto::detail
