#include "sion/crypto/keccak.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "keccak_x86.hpp"
#include "sion/base/cpu.hpp"
#include "sion/base/endian.hpp"

namespace sion::crypto {
namespace {

// Lanes are little-endian (FIPS 202, Sec. B.1).
using base::load_le;
using base::store_le;

inline void xor_bytes_into_state(KeccakState& s, std::size_t offset, const std::uint8_t* in, std::size_t len) noexcept {
  // Lane-aligned middle part a word at a time, the ragged ends a byte at a time.
  while (len > 0 && offset % 8 != 0) {
    s[offset / 8] ^= static_cast<std::uint64_t>(*in++) << (8 * (offset % 8));
    ++offset;
    --len;
  }
  while (len >= 8) {
    s[offset / 8] ^= load_le<std::uint64_t>(in);
    in += 8;
    offset += 8;
    len -= 8;
  }
  while (len > 0) {
    s[offset / 8] ^= static_cast<std::uint64_t>(*in++) << (8 * (offset % 8));
    ++offset;
    --len;
  }
}

inline void extract_bytes(const KeccakState& s, std::size_t offset, std::uint8_t* out, std::size_t len) noexcept {
  while (len > 0 && offset % 8 != 0) {
    *out++ = static_cast<std::uint8_t>(s[offset / 8] >> (8 * (offset % 8)));
    ++offset;
    --len;
  }
  while (len >= 8) {
    store_le<std::uint64_t>(out, s[offset / 8]);
    out += 8;
    offset += 8;
    len -= 8;
  }
  while (len > 0) {
    *out++ = static_cast<std::uint8_t>(s[offset / 8] >> (8 * (offset % 8)));
    ++offset;
    --len;
  }
}

// Theta, rho, pi, chi and iota (FIPS 202, Sec. 3.2.1-3.2.5), with rho and pi
// merged: lane (x, y) moves to (y, 2x + 3y) rotated by its rho offset. The
// state stays in 25 locals so the compiler keeps it in registers. The
// portable permutation, for CPUs without BMI2.
void permute_scalar(KeccakState& state) noexcept {
  std::uint64_t a00 = state[0], a01 = state[1], a02 = state[2], a03 = state[3], a04 = state[4];
  std::uint64_t a05 = state[5], a06 = state[6], a07 = state[7], a08 = state[8], a09 = state[9];
  std::uint64_t a10 = state[10], a11 = state[11], a12 = state[12], a13 = state[13], a14 = state[14];
  std::uint64_t a15 = state[15], a16 = state[16], a17 = state[17], a18 = state[18], a19 = state[19];
  std::uint64_t a20 = state[20], a21 = state[21], a22 = state[22], a23 = state[23], a24 = state[24];

  // Lane complementing (the Keccak team's implementation overview): lanes
  // 1, 2, 8, 12, 17 and 20 are kept complemented inside the rounds. Theta,
  // rho and pi are linear, so they carry the complements along (each
  // column's parity and D pick up known ones), and chi can then be written
  // with AND / OR and one NOT per row; the set is chosen so that chi's
  // outputs come back complemented in the same places. Undone at the end.
  const auto complement = [&] {
    a01 = ~a01;
    a02 = ~a02;
    a08 = ~a08;
    a12 = ~a12;
    a17 = ~a17;
    a20 = ~a20;
  };
  complement();

  // Two rounds per iteration measured a few percent faster than one; all
  // 24 unrolled was much slower (code size).
#pragma GCC unroll 2
  for (int round = 0; round < 24; ++round) {
    // theta
    const std::uint64_t c0 = a00 ^ a05 ^ a10 ^ a15 ^ a20;
    const std::uint64_t c1 = a01 ^ a06 ^ a11 ^ a16 ^ a21;
    const std::uint64_t c2 = a02 ^ a07 ^ a12 ^ a17 ^ a22;
    const std::uint64_t c3 = a03 ^ a08 ^ a13 ^ a18 ^ a23;
    const std::uint64_t c4 = a04 ^ a09 ^ a14 ^ a19 ^ a24;
    const std::uint64_t d0 = c4 ^ std::rotl(c1, 1);
    const std::uint64_t d1 = c0 ^ std::rotl(c2, 1);
    const std::uint64_t d2 = c1 ^ std::rotl(c3, 1);
    const std::uint64_t d3 = c2 ^ std::rotl(c4, 1);
    const std::uint64_t d4 = c3 ^ std::rotl(c0, 1);

    // rho and pi: b[y][2x+3y] = rotl(a[x][y] ^ d[x], r[x][y])
    const std::uint64_t b00 = a00 ^ d0;
    const std::uint64_t b10 = std::rotl(a01 ^ d1, 1);
    const std::uint64_t b20 = std::rotl(a02 ^ d2, 62);
    const std::uint64_t b05 = std::rotl(a03 ^ d3, 28);
    const std::uint64_t b15 = std::rotl(a04 ^ d4, 27);
    const std::uint64_t b16 = std::rotl(a05 ^ d0, 36);
    const std::uint64_t b01 = std::rotl(a06 ^ d1, 44);
    const std::uint64_t b11 = std::rotl(a07 ^ d2, 6);
    const std::uint64_t b21 = std::rotl(a08 ^ d3, 55);
    const std::uint64_t b06 = std::rotl(a09 ^ d4, 20);
    const std::uint64_t b07 = std::rotl(a10 ^ d0, 3);
    const std::uint64_t b17 = std::rotl(a11 ^ d1, 10);
    const std::uint64_t b02 = std::rotl(a12 ^ d2, 43);
    const std::uint64_t b12 = std::rotl(a13 ^ d3, 25);
    const std::uint64_t b22 = std::rotl(a14 ^ d4, 39);
    const std::uint64_t b23 = std::rotl(a15 ^ d0, 41);
    const std::uint64_t b08 = std::rotl(a16 ^ d1, 45);
    const std::uint64_t b18 = std::rotl(a17 ^ d2, 15);
    const std::uint64_t b03 = std::rotl(a18 ^ d3, 21);
    const std::uint64_t b13 = std::rotl(a19 ^ d4, 8);
    const std::uint64_t b14 = std::rotl(a20 ^ d0, 18);
    const std::uint64_t b24 = std::rotl(a21 ^ d1, 2);
    const std::uint64_t b09 = std::rotl(a22 ^ d2, 61);
    const std::uint64_t b19 = std::rotl(a23 ^ d3, 56);
    const std::uint64_t b04 = std::rotl(a24 ^ d4, 14);

    // chi: a[x] = b[x] ^ (~b[x+1] & b[x+2]) along each row, on the
    // complemented representation (see above): each row needs one NOT
    // instead of five. Iota on lane 0.
    const std::uint64_t n02 = ~b02;
    a00 = b00 ^ (b01 | b02) ^ detail::kKeccakRoundConstants[round];
    a01 = b01 ^ (n02 | b03);
    a02 = b02 ^ (b03 & b04);
    a03 = b03 ^ (b04 | b00);
    a04 = b04 ^ (b00 & b01);
    const std::uint64_t n09 = ~b09;
    a05 = b05 ^ (b06 | b07);
    a06 = b06 ^ (b07 & b08);
    a07 = b07 ^ (b08 | n09);
    a08 = b08 ^ (b09 | b05);
    a09 = b09 ^ (b05 & b06);
    const std::uint64_t n13 = ~b13;
    a10 = b10 ^ (b11 | b12);
    a11 = b11 ^ (b12 & b13);
    a12 = b12 ^ (n13 & b14);
    a13 = n13 ^ (b14 | b10);
    a14 = b14 ^ (b10 & b11);
    const std::uint64_t n18 = ~b18;
    a15 = b15 ^ (b16 & b17);
    a16 = b16 ^ (b17 | b18);
    a17 = b17 ^ (n18 | b19);
    a18 = n18 ^ (b19 & b15);
    a19 = b19 ^ (b15 | b16);
    const std::uint64_t n21 = ~b21;
    a20 = b20 ^ (n21 & b22);
    a21 = n21 ^ (b22 | b23);
    a22 = b22 ^ (b23 & b24);
    a23 = b23 ^ (b24 | b20);
    a24 = b24 ^ (b20 & b21);
  }

  complement();
  state = {a00, a01, a02, a03, a04, a05, a06, a07, a08, a09, a10, a11, a12,
           a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24};
}

#if defined(__x86_64__)

// r[x][y] (FIPS 202, Sec. 3.2.2, Table 2) at index x + 5y.
constexpr int kRhoOffsets[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                 25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

// One round from a to e, one output row at a time: pi's row Y gathers lane
// X from lane (X + 3Y mod 5, X) of a, which goes through theta's D, rho and
// then chi within the row straight away. Only one row of b is live, so
// little spills, unlike the 25-local form above. c holds the column
// parities of a on entry and of e on return (theta of the next round).
// kRows < 5 computes only the first rows (the last round of a SHA3-256
// needs lanes 0-3 only).
template <int kRows = 5>
[[gnu::always_inline]] inline void round_by_rows(const std::uint64_t* a, std::uint64_t* e, std::uint64_t (&c)[5],
                                                 std::uint64_t rc) noexcept {
  std::uint64_t d[5];
#pragma GCC unroll 5
  for (int x = 0; x < 5; ++x) d[x] = c[(x + 4) % 5] ^ std::rotl(c[(x + 1) % 5], 1);
#pragma GCC unroll 5
  for (int y = 0; y < kRows; ++y) {
    std::uint64_t b[5];
#pragma GCC unroll 5
    for (int x = 0; x < 5; ++x) {
      const int from = (x + 3 * y) % 5 + 5 * x;
      b[x] = std::rotl(a[from] ^ d[(x + 3 * y) % 5], kRhoOffsets[from]);
    }
#pragma GCC unroll 5
    for (int x = 0; x < 5; ++x) {
      std::uint64_t lane = b[x] ^ (~b[(x + 1) % 5] & b[(x + 2) % 5]);
      if (x == 0 && y == 0) lane ^= rc;
      e[x + 5 * y] = lane;
      c[x] = y == 0 ? lane : c[x] ^ lane;
    }
  }
}

// With BMI1/2, chi's ~b & c is one andn and rotations are rorx, so lane
// complementing buys nothing and the row-by-row form is about 8% faster
// (AMD Zen 5). Chosen on the bmi2 flag: every x86-64 with BMI2 has BMI1.
// The rounds alternate between the caller's state and a local copy, in
// place: copying the state in and out cost about 6% (Zen 3). With
// kDigestOnly the last round writes only lanes 0-4 (a SHA3-256 digest and
// one more); the rest of the state is then stale.
template <bool kDigestOnly>
[[gnu::target("bmi,bmi2")]] inline void permute_bmi2(std::uint64_t* a) noexcept {
  std::uint64_t e[25];
  std::uint64_t c[5];
  for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
  for (int round = 0; round < 22; round += 2) {
    round_by_rows(a, e, c, detail::kKeccakRoundConstants[round]);
    round_by_rows(e, a, c, detail::kKeccakRoundConstants[round + 1]);
  }
  round_by_rows(a, e, c, detail::kKeccakRoundConstants[22]);
  round_by_rows<kDigestOnly ? 1 : 5>(e, a, c, detail::kKeccakRoundConstants[23]);
}

[[gnu::target("bmi,bmi2")]] void keccak_f1600_bmi2(KeccakState& state) noexcept { permute_bmi2<false>(state.data()); }

// sha3_256 with the BMI2 permutation: the input is written straight into
// the state (a single block needs no zeroing and XOR pass first) and the
// last round computes only the digest's row.
[[gnu::target("bmi,bmi2")]] Hash256 sha3_256_bmi2(base::ByteView data) noexcept {
  constexpr std::size_t kRate = 136;
  std::uint64_t state[25];
  const std::uint8_t* in = data.data();
  std::size_t len = data.size();
  std::size_t w = 0;
  if (len >= kRate) {
    for (; w < kRate / 8; ++w) state[w] = load_le<std::uint64_t>(in + 8 * w);
    for (; w < 25; ++w) state[w] = 0;
    for (;;) {
      in += kRate;
      len -= kRate;
      permute_bmi2<false>(state);
      if (len < kRate) break;
      for (w = 0; w < kRate / 8; ++w) state[w] ^= load_le<std::uint64_t>(in + 8 * w);
    }
    for (w = 0; w < len / 8; ++w) state[w] ^= load_le<std::uint64_t>(in + 8 * w);
  } else {
    for (; w < len / 8; ++w) state[w] = load_le<std::uint64_t>(in + 8 * w);
    for (std::size_t i = w; i < 25; ++i) state[i] = 0;
  }
  // The last bytes, the domain suffix 01 and pad10*1 (FIPS 202, Alg. 9).
  std::uint64_t tail = std::uint64_t{0x06} << (8 * (len % 8));
  for (std::size_t i = 0; i < len % 8; ++i) {
    tail |= static_cast<std::uint64_t>(in[8 * w + i]) << (8 * i);
  }
  state[w] ^= tail;
  state[kRate / 8 - 1] ^= 0x80ULL << 56;
  permute_bmi2<true>(state);
  Hash256 out;
  for (std::size_t i = 0; i < 4; ++i) store_le<std::uint64_t>(out.data() + 8 * i, state[i]);
  return out;
}

#endif

}  // namespace

void keccak_f1600(KeccakState& state) noexcept {
#if defined(__x86_64__)
  if (base::cpu_features().bmi2) {
    keccak_f1600_bmi2(state);
    return;
  }
#endif
  permute_scalar(state);
}

template <std::size_t kRate, std::uint8_t kSuffix>
void KeccakSponge<kRate, kSuffix>::absorb(base::ByteView data) noexcept {
  const std::uint8_t* in = data.data();
  std::size_t len = data.size();
  while (len > 0) {
    const std::size_t take = std::min(len, kRate - offset_);
    xor_bytes_into_state(state_, offset_, in, take);
    offset_ += take;
    in += take;
    len -= take;
    if (offset_ == kRate) {
      keccak_f1600(state_);
      offset_ = 0;
    }
  }
}

template <std::size_t kRate, std::uint8_t kSuffix>
void KeccakSponge<kRate, kSuffix>::finalize() noexcept {
  // pad10*1 (FIPS 202, Alg. 9) after the domain suffix bits.
  state_[offset_ / 8] ^= static_cast<std::uint64_t>(kSuffix) << (8 * (offset_ % 8));
  state_[(kRate - 1) / 8] ^= 0x80ULL << (8 * ((kRate - 1) % 8));
  keccak_f1600(state_);
  offset_ = 0;
  squeezing_ = true;
}

template <std::size_t kRate, std::uint8_t kSuffix>
void KeccakSponge<kRate, kSuffix>::squeeze(base::MutableByteView out) noexcept {
  std::uint8_t* dst = out.data();
  std::size_t len = out.size();
  while (len > 0) {
    if (offset_ == kRate) {
      keccak_f1600(state_);
      offset_ = 0;
    }
    const std::size_t take = std::min(len, kRate - offset_);
    extract_bytes(state_, offset_, dst, take);
    offset_ += take;
    dst += take;
    len -= take;
  }
}

template <std::size_t kRate, std::uint8_t kSuffix>
void KeccakSponge<kRate, kSuffix>::squeeze_blocks(std::uint8_t* out, std::size_t blocks) noexcept {
  for (std::size_t i = 0; i < blocks; ++i) {
    squeeze({out + i * kRate, kRate});
  }
}

template class KeccakSponge<136, 0x06>;
template class KeccakSponge<72, 0x06>;
template class KeccakSponge<168, 0x1f>;
template class KeccakSponge<136, 0x1f>;

// ---- Several states at once -----------------------------------------------

namespace {

// Absorbs inputs[j][0, len) into state j < kWays (lane i of state j is
// lanes[i * kWays + j]; kWays 1 is a plain KeccakState) and applies the
// domain suffix and pad10*1 (FIPS 202, Alg. 8 and 9), as KeccakSponge's
// absorb() and finalize() do for one state. permute() runs after each full
// block; the caller permutes once more before squeezing.
template <std::size_t kRate, std::uint8_t kSuffix, std::size_t kWays, class Permute>
inline void absorb_padded(std::uint64_t* lanes, const std::uint8_t* const* inputs, std::size_t len,
                          Permute&& permute) noexcept {
  std::size_t offset = 0;
  while (len - offset >= kRate) {
    for (std::size_t i = 0; i < kRate / 8; ++i) {
      for (std::size_t j = 0; j < kWays; ++j) {
        lanes[i * kWays + j] ^= load_le<std::uint64_t>(inputs[j] + offset + 8 * i);
      }
    }
    permute();
    offset += kRate;
  }
  const std::size_t rest = len - offset;
  for (std::size_t j = 0; j < kWays; ++j) {
    const std::uint8_t* in = inputs[j] + offset;
    std::size_t i = 0;
    for (; i + 8 <= rest; i += 8) lanes[i / 8 * kWays + j] ^= load_le<std::uint64_t>(in + i);
    for (; i < rest; ++i) {
      lanes[i / 8 * kWays + j] ^= static_cast<std::uint64_t>(in[i]) << (8 * (i % 8));
    }
    lanes[rest / 8 * kWays + j] ^= static_cast<std::uint64_t>(kSuffix) << (8 * (rest % 8));
    lanes[(kRate - 1) / 8 * kWays + j] ^= 0x80ULL << (8 * ((kRate - 1) % 8));
  }
}

// keccak_f1600 on each of 4 states, lanes[i * stride + j] for j < 4.
void keccak_f1600_x4_portable(std::uint64_t* lanes, std::size_t stride) noexcept {
  for (std::size_t j = 0; j < 4; ++j) {
    KeccakState s;
    for (std::size_t i = 0; i < 25; ++i) s[i] = lanes[i * stride + j];
    keccak_f1600(s);
    for (std::size_t i = 0; i < 25; ++i) lanes[i * stride + j] = s[i];
  }
}

void keccak_f1600_x4_strided(std::uint64_t* lanes, std::size_t stride) noexcept {
  const base::CpuFeatures& cpu = base::cpu_features();
  if (cpu.avx512f && cpu.avx512vl) {
    detail::keccak_f1600_x4_avx512vl(lanes, stride);
  } else if (cpu.avx2) {
    detail::keccak_f1600_x4_avx2(lanes, stride);
  } else {
    keccak_f1600_x4_portable(lanes, stride);
  }
}

}  // namespace

void keccak_f1600_x4(KeccakStates<4>& states) noexcept { keccak_f1600_x4_strided(&states.lanes[0][0], 4); }

void keccak_f1600_x8(KeccakStates<8>& states) noexcept {
  if (base::cpu_features().avx512f) {
    detail::keccak_f1600_x8_avx512(&states.lanes[0][0]);
  } else {
    // States 0-3 and 4-7 as two groups of four with stride 8.
    keccak_f1600_x4_strided(&states.lanes[0][0], 8);
    keccak_f1600_x4_strided(&states.lanes[0][4], 8);
  }
}

template <std::size_t kRate, std::uint8_t kSuffix, std::size_t kWays>
void KeccakSpongeN<kRate, kSuffix, kWays>::permute() noexcept {
  if constexpr (kWays == 4) {
    keccak_f1600_x4(states_);
  } else {
    keccak_f1600_x8(states_);
  }
}

template <std::size_t kRate, std::uint8_t kSuffix, std::size_t kWays>
void KeccakSpongeN<kRate, kSuffix, kWays>::absorb_once(const std::uint8_t* const (&inputs)[kWays],
                                                       std::size_t len) noexcept {
  absorb_padded<kRate, kSuffix, kWays>(&states_.lanes[0][0], inputs, len, [this] { permute(); });
}

template <std::size_t kRate, std::uint8_t kSuffix, std::size_t kWays>
void KeccakSpongeN<kRate, kSuffix, kWays>::squeeze_blocks(std::uint8_t* const (&outputs)[kWays],
                                                          std::size_t blocks) noexcept {
  for (std::size_t b = 0; b < blocks; ++b) {
    permute();
    for (std::size_t j = 0; j < kWays; ++j) {
      std::uint8_t* out = outputs[j];
      if (out == nullptr) continue;
      out += b * kRate;
      for (std::size_t i = 0; i < kRate / 8; ++i) store_le<std::uint64_t>(out + 8 * i, states_.lanes[i][j]);
    }
  }
}

template class KeccakSpongeN<168, 0x1f, 4>;
template class KeccakSpongeN<136, 0x1f, 4>;
template class KeccakSpongeN<168, 0x1f, 8>;
template class KeccakSpongeN<136, 0x1f, 8>;

// One-shot SHA3-256 (FIPS 202, Sec. 6.1) on a local state: no sponge
// object, and no wipe, since what it hashes is public (state, tree nodes);
// secrets go through KeccakSponge, which wipes.
Hash256 sha3_256(base::ByteView data) noexcept {
#if defined(__x86_64__)
  if (base::cpu_features().bmi2) return sha3_256_bmi2(data);
#endif
  KeccakState state{};
  const std::uint8_t* const in = data.data();
  absorb_padded<136, 0x06, 1>(state.data(), &in, data.size(), [&state] { keccak_f1600(state); });
  keccak_f1600(state);
  Hash256 out;
  for (std::size_t i = 0; i < 4; ++i) store_le<std::uint64_t>(out.data() + 8 * i, state[i]);
  return out;
}

namespace {

// SHA3-256 of inputs [0, count) in groups of kWays Keccak lanes, a last
// part-filled group included (its unused lanes hash inputs again and are
// dropped), but not a single leftover input. Returns how many it hashed.
template <std::size_t kWays>
std::size_t sha3_256_in_lanes(const std::uint8_t* const* inputs, std::size_t len, Hash256* out, std::size_t count,
                              void (*permute)(KeccakStates<kWays>&) noexcept) noexcept {
  std::size_t done = 0;
  while (count - done >= 2) {
    const std::size_t n = std::min(kWays, count - done);
    KeccakStates<kWays> states{};
    const std::uint8_t* in[kWays];
    for (std::size_t j = 0; j < kWays; ++j) in[j] = inputs[done + (j < n ? j : 0)];
    absorb_padded<136, 0x06, kWays>(&states.lanes[0][0], in, len, [&] { permute(states); });
    permute(states);
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t i = 0; i < 4; ++i) {
        store_le<std::uint64_t>(out[done + j].data() + 8 * i, states.lanes[i][j]);
      }
    }
    done += n;
  }
  return done;
}

void permute_x8_avx512(KeccakStates<8>& states) noexcept { detail::keccak_f1600_x8_avx512(&states.lanes[0][0]); }

// sha3_256_in_lanes for AVX2, absorbing and squeezing in registers
// (detail::sha3_256_x4_avx2) rather than through a KeccakStates in memory.
std::size_t sha3_256_x4_avx2(const std::uint8_t* const* inputs, std::size_t len, Hash256* out,
                             std::size_t count) noexcept {
  std::size_t done = 0;
  while (count - done >= 2) {
    const std::size_t n = std::min<std::size_t>(4, count - done);
    Hash256 discard[4];
    const std::uint8_t* in[4];
    std::uint8_t* dst[4];
    for (std::size_t j = 0; j < 4; ++j) {
      in[j] = inputs[done + (j < n ? j : 0)];
      dst[j] = j < n ? out[done + j].data() : discard[j].data();
    }
    detail::sha3_256_x4_avx2(in, len, dst);
    done += n;
  }
  return done;
}

}  // namespace

void sha3_256_many(const std::uint8_t* const* inputs, std::size_t len, Hash256* out, std::size_t count) noexcept {
  // A vector permutation of 8 (AVX-512) or 4 (AVX2) states costs about as
  // much as 1 or 1.5 scalar ones, so even two leftover inputs are cheaper in
  // a part-filled vector than one by one.
  const base::CpuFeatures& cpu = base::cpu_features();
  std::size_t done = 0;
  if (cpu.avx512f) {
    done = sha3_256_in_lanes<8>(inputs, len, out, count, &permute_x8_avx512);
  } else if (cpu.avx2) {
    done = sha3_256_x4_avx2(inputs, len, out, count);
  }
  for (; done < count; ++done) out[done] = sha3_256(base::ByteView(inputs[done], len));
}

base::ByteArray<64> sha3_512(base::ByteView data) noexcept {
  Sha3_512 h;
  h.absorb(data);
  h.finalize();
  base::ByteArray<64> out;
  h.squeeze(out);
  return out;
}

void shake128(base::ByteView data, base::MutableByteView out) noexcept {
  Shake128 h;
  h.absorb(data);
  h.finalize();
  h.squeeze(out);
}

void shake256(base::ByteView data, base::MutableByteView out) noexcept {
  Shake256 h;
  h.absorb(data);
  h.finalize();
  h.squeeze(out);
}

void sha3_256_each(std::span<const base::ByteView> inputs, Hash256* out) {
  std::vector<std::size_t> order(inputs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return inputs[a].size() != inputs[b].size() ? inputs[a].size() < inputs[b].size() : a < b;
  });
  std::vector<const std::uint8_t*> run;
  std::vector<Hash256> hashes;
  for (std::size_t start = 0; start < order.size();) {
    const std::size_t length = inputs[order[start]].size();
    std::size_t end = start;
    run.clear();
    while (end < order.size() && inputs[order[end]].size() == length) run.push_back(inputs[order[end++]].data());
    hashes.resize(run.size());
    sha3_256_many(run.data(), length, hashes.data(), run.size());
    for (std::size_t k = start; k < end; ++k) out[order[k]] = hashes[k - start];
    start = end;
  }
}

}  // namespace sion::crypto
