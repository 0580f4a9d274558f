// ML-DSA (FIPS 204). Comments cite the standard's algorithms ("Alg. n") and
// sections; names follow its notation where C++ allows.
//
// Constant time. Key generation and signing branch on, and index memory by,
// public values only (rho, mu, the public key, the signature being output,
// loop counters), with two exceptions the standard's design makes visible:
//  - rejection sampling of s1 and s2 (Alg. 31): which candidate nibbles are
//    rejected, values that are independent of the accepted coefficients;
//  - the signing loop's accept/reject decision (Alg. 7), taken once per
//    attempt after all four checks (z, r0, ct0, hint count) have been
//    computed in full.
// SampleInBall (Alg. 29) branches on and indexes memory by bytes of
// SHAKE256(c~). c~ is public: the accepted attempt's c~ is the first field of
// the signature, and a rejected attempt's c~ is a hash of mu and w1 only,
// which this implementation (like the reference one) treats as public.
// Where those values become public they are declassified with
// base::ct_public (sion/base/ct.hpp), so that the constant-time check
// (tests/ct, valgrind) reports any other dependence on secrets. ExpandA's
// SIMD rejection sampler indexes a table by its accept mask; A is public. Signing prepares two attempts at a time on AVX-512 but checks the
// second only if the first is rejected, so what is visible is the same.
//
// Speed: the arithmetic kernels (NTT, products, rounding) come from the
// detail::Kernels table that cpu_features() selects once per operation
// (portable, AVX2 or AVX-512, bit-identical); SHAKE runs several instances
// side by side on keccak_f1600_x4 / _x8.

#include "sion/crypto/mldsa.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>

#include "sion/base/ct.hpp"
#include "sion/base/endian.hpp"
#include "sion/crypto/detail/mldsa_poly.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::crypto::mldsa {
namespace {

using base::Bytes;
using base::ByteView;
using base::Errc;
using base::fail;
using base::Result;
using detail::abs_ct;
using detail::freeze;
using detail::kD;
using detail::kN;
using detail::kQ;
using detail::Poly;

// ---- Parameter sets (Table 1) ---------------------------------------------

struct Params44 {
  static constexpr Level kLevel = Level::k44;
  static constexpr std::size_t kK = 4, kL = 4, kTau = 39, kLambda = 128, kOmega = 80;
  static constexpr std::int32_t kEta = 2, kGamma1 = 1 << 17, kGamma2 = (kQ - 1) / 88;
};
struct Params65 {
  static constexpr Level kLevel = Level::k65;
  static constexpr std::size_t kK = 6, kL = 5, kTau = 49, kLambda = 192, kOmega = 55;
  static constexpr std::int32_t kEta = 4, kGamma1 = 1 << 19, kGamma2 = (kQ - 1) / 32;
};
struct Params87 {
  static constexpr Level kLevel = Level::k87;
  static constexpr std::size_t kK = 8, kL = 7, kTau = 60, kLambda = 256, kOmega = 75;
  static constexpr std::int32_t kEta = 2, kGamma1 = 1 << 19, kGamma2 = (kQ - 1) / 32;
};

constexpr unsigned bitlen(std::uint32_t x) {
  unsigned n = 0;
  for (; x != 0; x >>= 1) ++n;
  return n;
}

constexpr std::size_t kRhoBytes = 32;                       // rho, the public seed of A
constexpr std::size_t kRhoPrimeBytes = 64;                  // rho' (seed of s1, s2) and rho'' (of y)
constexpr std::size_t kKeyBytes = 32;                       // K
constexpr std::size_t kTrBytes = 64;                        // tr = H(pk, 64)
constexpr std::size_t kSkTrOffset = kRhoBytes + kKeyBytes;  // skEncode: rho || K || tr || ...
constexpr unsigned kT1Bits = bitlen(kQ - 1) - kD;           // 10
constexpr unsigned kT0Bits = kD;                            // 13

// ---- Hashing: H = SHAKE256, G = SHAKE128 ------------------------------------

void shake256_parts(std::initializer_list<ByteView> parts, base::MutableByteView out) noexcept {
  Shake256 h;
  for (ByteView part : parts) h.absorb(part);
  h.finalize();
  h.squeeze(out);
}

// mu = H(tr || M', 64) (Alg. 7 and 8), with M' given in parts.
Mu message_representative(ByteView tr, std::initializer_list<ByteView> m_prime) noexcept {
  Shake256 h;
  h.absorb(tr);
  for (ByteView part : m_prime) h.absorb(part);
  h.finalize();
  Mu mu;
  h.squeeze(mu);
  return mu;
}

// ---- Bit packing (Alg. 16-19) -----------------------------------------------

// Eight coefficients of kBits bits fill exactly kBits bytes, so both
// directions work a group of eight at a time in (up to) three 64-bit
// little-endian words, with shifts the compiler knows. The words are loaded
// from and stored to the encoding directly, 8 * kWords bytes from the
// group's start, which runs past the group into the next ones (rewritten
// or ignored later); the last groups of a polynomial, where that would
// leave its encoding, go through a local buffer instead.
template <unsigned kBits>
struct PackGroup {
  static_assert(kBits >= 1 && kBits <= 24);
  static constexpr std::size_t kWords = (kBits + 7) / 8;  // ceil(8 kBits / 64)
  static constexpr std::size_t kPolyBytes = 32 * kBits;
  // Groups [0, kDirect) can touch 8 * kWords bytes in place.
  static constexpr std::size_t kDirect = (kPolyBytes >= 8 * kWords) ? (kPolyBytes - 8 * kWords) / kBits + 1 : 0;
  std::uint64_t w[kWords] = {};

  void load(const std::uint8_t* in) noexcept {
    for (std::size_t i = 0; i < kWords; ++i) w[i] = base::load_le<std::uint64_t>(in + 8 * i);
  }
  void store(std::uint8_t* out) const noexcept {
    for (std::size_t i = 0; i < kWords; ++i) base::store_le<std::uint64_t>(out + 8 * i, w[i]);
  }
  std::uint32_t get(unsigned j) const noexcept {
    const unsigned bit = j * kBits;
    const unsigned word = bit / 64;
    const unsigned shift = bit % 64;
    std::uint64_t v = w[word] >> shift;
    if (shift + kBits > 64) v |= w[word + 1] << (64 - shift);
    return static_cast<std::uint32_t>(v & ((std::uint64_t{1} << kBits) - 1));
  }
  void put(unsigned j, std::uint32_t v) noexcept {
    const unsigned bit = j * kBits;
    const unsigned word = bit / 64;
    const unsigned shift = bit % 64;
    w[word] |= std::uint64_t{v} << shift;
    if (shift + kBits > 64) w[word + 1] |= std::uint64_t{v} >> (64 - shift);
  }
};

// SimpleBitPack / BitPack: f(a_i) in [0, 2^kBits) for each coefficient,
// kBits bits each, least significant bit first (BitsToBytes, Alg. 12), into
// out[0, 32 kBits). The loop shape depends on kBits only, never on the
// values.
template <unsigned kBits, class F>
void pack(std::uint8_t* out, const Poly& a, F f) noexcept {
  using G = PackGroup<kBits>;
  for (std::size_t g = 0; g < 32; ++g) {
    G group;
    for (unsigned j = 0; j < 8; ++j) group.put(j, f(a.c[8 * g + j]));
    if (g < G::kDirect) {
      group.store(out + g * kBits);
    } else {
      std::uint8_t tmp[8 * G::kWords];
      group.store(tmp);
      std::memcpy(out + g * kBits, tmp, kBits);
    }
  }
}

// SimpleBitUnpack / BitUnpack: a_i = f(next kBits bits), from in[0, 32 kBits).
template <unsigned kBits, class F>
void unpack(Poly& a, const std::uint8_t* in, F f) noexcept {
  using G = PackGroup<kBits>;
  for (std::size_t g = 0; g < 32; ++g) {
    G group;
    if (g < G::kDirect) {
      group.load(in + g * kBits);
    } else {
      std::uint8_t tmp[8 * G::kWords] = {};
      std::memcpy(tmp, in + g * kBits, kBits);
      group.load(tmp);
    }
    for (unsigned j = 0; j < 8; ++j) a.c[8 * g + j] = f(group.get(j));
  }
}

// ---- Sampling (Sec. 7.3) ----------------------------------------------------

// RejBoundedPoly (Alg. 31) with CoeffFromHalfByte (Alg. 15), the part after
// H: appends to out[0, need) the coefficients in [-eta, eta] that the
// nibbles of buf[0, len) give, low nibble first, and returns how many. The
// bytes are secret; the accept/reject branch reveals only which nibbles
// were >= 15 (eta = 2) or >= 9 (eta = 4), which says nothing about the
// accepted ones.
template <std::int32_t kEta>
std::size_t rej_eta(std::int32_t* out, std::size_t need, const std::uint8_t* buf, std::size_t len) noexcept {
  static_assert(kEta == 2 || kEta == 4);
  constexpr std::uint32_t bound = kEta == 2 ? 15 : 9;
  // eta - (b mod 5) for eta = 2, with b mod 5 = b - 5 floor(13b / 64) on
  // [0, 15), avoiding a division; 4 - b for eta = 4.
  const auto coeff = [](std::uint32_t b) {
    if constexpr (kEta == 2) {
      return 2 - static_cast<std::int32_t>(b - 5 * ((b * 13) >> 6));
    } else {
      return 4 - static_cast<std::int32_t>(b);
    }
  };
  // Which nibbles pass is computed without branches for eight bytes at a
  // time and then declassified (it is the part the standard lets leak);
  // only that public mask decides where the secret coefficients go.
  std::size_t n = 0;
  for (std::size_t pos = 0; pos < len && n < need; pos += 8) {
    const std::size_t bytes = std::min<std::size_t>(8, len - pos);
    std::uint32_t accept = 0;
    for (std::size_t i = 0; i < bytes; ++i) {
      const std::uint32_t z0 = buf[pos + i] & 0x0fU;
      const std::uint32_t z1 = buf[pos + i] >> 4;
      accept |= ((z0 - bound) >> 31) << (2 * i);
      accept |= ((z1 - bound) >> 31) << (2 * i + 1);
    }
    base::ct_public(accept);
    for (std::size_t i = 0; i < 2 * bytes && n < need; ++i) {
      if ((accept >> i) & 1U) {
        const std::uint32_t b = i % 2 == 0 ? buf[pos + i / 2] & 0x0fU : buf[pos + i / 2] >> 4U;
        out[n++] = coeff(b);
      }
    }
  }
  return n;
}

// Runs `count` SHAKE sponges (rate kRate) side by side, kWays at a time on
// keccak_f1600_x4 / _x8: sponge i absorbs the kSeedBytes that
// seed_of(i, seed) writes, then hands its first kFirstBlocks blocks to
// consume(i, bytes, len), and one more block at a time for as long as
// consume returns false (wants more). Unused ways of the last group run on a
// copy of a real seed and are discarded. Buffers are wiped: the seeds may be
// secret.
template <std::size_t kRate, std::size_t kWays, std::size_t kSeedBytes, std::size_t kFirstBlocks, class SeedFn,
          class ConsumeFn>
void shake_group(std::size_t first, std::size_t count, SeedFn& seed_of, ConsumeFn& consume) noexcept {
  std::uint8_t seeds[kWays][kSeedBytes];
  const std::uint8_t* in[kWays];
  for (std::size_t j = 0; j < kWays; ++j) {
    seed_of(first + std::min(j, count - 1), seeds[j]);
    in[j] = seeds[j];
  }
  KeccakSpongeN<kRate, 0x1f, kWays> sponges;
  sponges.absorb_once(in, kSeedBytes);
  alignas(8) std::uint8_t buf[kWays][kFirstBlocks * kRate];
  std::uint8_t* out[kWays];
  bool done[kWays];
  for (std::size_t j = 0; j < kWays; ++j) {
    out[j] = j < count ? buf[j] : nullptr;
    done[j] = j >= count;
  }
  sponges.squeeze_blocks(out, kFirstBlocks);
  std::size_t len = kFirstBlocks * kRate;
  for (;;) {
    bool all = true;
    for (std::size_t j = 0; j < count; ++j) {
      if (!done[j]) done[j] = consume(first + j, buf[j], len);
      all = all && done[j];
    }
    if (all) break;
    for (std::size_t j = 0; j < kWays; ++j) out[j] = done[j] ? nullptr : buf[j];
    sponges.squeeze_blocks(out, 1);
    len = kRate;
  }
  base::secure_wipe(seeds, sizeof(seeds));
  base::secure_wipe(buf, sizeof(buf));
}

// shake_group over sponges [0, count), `ways` (8, 4 or 1) at a time; eight
// only when more than four are wanted (four-way is as cheap per call).
template <std::size_t kRate, std::size_t kSeedBytes, std::size_t kFirstBlocks, class SeedFn, class ConsumeFn>
void shake_many(unsigned ways, std::size_t count, SeedFn seed_of, ConsumeFn consume) noexcept {
  if (ways >= 8 && count > 4) {
    for (std::size_t i = 0; i < count; i += 8) {
      shake_group<kRate, 8, kSeedBytes, kFirstBlocks>(i, std::min<std::size_t>(8, count - i), seed_of, consume);
    }
  } else if (ways >= 4) {
    for (std::size_t i = 0; i < count; i += 4) {
      shake_group<kRate, 4, kSeedBytes, kFirstBlocks>(i, std::min<std::size_t>(4, count - i), seed_of, consume);
    }
  } else {
    // One sponge at a time.
    std::uint8_t seed[kSeedBytes];
    std::uint8_t buf[kFirstBlocks * kRate];
    for (std::size_t i = 0; i < count; ++i) {
      seed_of(i, seed);
      KeccakSponge<kRate, 0x1f> sponge;
      sponge.absorb(seed);
      sponge.finalize();
      sponge.squeeze_blocks(buf, kFirstBlocks);
      for (bool done = consume(i, buf, sizeof(buf)); !done; done = consume(i, buf, kRate)) {
        sponge.squeeze_blocks(buf, 1);
      }
    }
    base::secure_wipe(seed, sizeof(seed));
    base::secure_wipe(buf, sizeof(buf));
  }
}

// SampleInBall (Alg. 29, lines 3-12) with the bytes of H(c~) from
// next_byte(byte), which returns false when there are none left: c with tau
// coefficients +-1, the rest 0. `buf` holds the first eight bytes (the
// signs). False if the bytes run out before all tau positions are placed
// (then c is incomplete). Indexes memory by hash output; see the note at
// the top of the file.
template <class NextByte>
bool sample_in_ball_with(Poly& c, const std::uint8_t* buf, std::size_t tau, NextByte next_byte) noexcept {
  std::uint64_t signs = 0;
  for (std::size_t i = 0; i < 8; ++i) signs |= std::uint64_t{buf[i]} << (8 * i);
  c.c.fill(0);
  for (std::size_t i = kN - tau; i < kN; ++i) {
    std::uint8_t byte;
    do {
      if (!next_byte(byte)) return false;
    } while (byte > i);
    c.c[i] = c.c[byte];
    c.c[byte] = 1 - 2 * static_cast<std::int32_t>(signs & 1);
    signs >>= 1;
  }
  return true;
}

// SampleInBall from the first len bytes of H(c~) (len >= 8).
bool sample_in_ball_from(Poly& c, const std::uint8_t* buf, std::size_t len, std::size_t tau) noexcept {
  std::size_t pos = 8;
  return sample_in_ball_with(c, buf, tau, [&](std::uint8_t& byte) {
    if (pos == len) return false;
    byte = buf[pos++];
    return true;
  });
}

// SampleInBall from c~, squeezing H(c~) a block at a time for as long as
// needed.
void sample_in_ball(Poly& c, ByteView c_tilde, std::size_t tau) noexcept {
  constexpr std::size_t rate = Shake256::kRateBytes;
  Shake256 h;
  h.absorb(c_tilde);
  h.finalize();
  std::uint8_t buf[rate];
  h.squeeze_blocks(buf, 1);
  std::size_t pos = 8;
  sample_in_ball_with(c, buf, tau, [&](std::uint8_t& byte) {
    if (pos == rate) {
      h.squeeze_blocks(buf, 1);
      pos = 0;
    }
    byte = buf[pos++];
    return true;
  });
}

// ---- Several SHAKE jobs on one multi-way permutation --------------------------

// One sponge for run_shake_jobs: SHAKE128 or SHAKE256 (rate 168 or 136) of
// the concatenation of up to four parts.
struct ShakeJob {
  std::size_t rate = 0;
  std::array<ByteView, 4> parts{};
};

// Runs jobs [0, count) (count <= 64) on the kWays lanes of
// keccak_f1600_x4 / _x8 (or of one keccak_f1600 for kWays = 1). A free lane starts the lowest-numbered job not yet
// started for which ready(i) holds (job_of(i) describes it), absorbs one
// block per permutation, then hands each squeezed block to
// consume(i, block, rate) until that returns true. Jobs of different rates
// and lengths share the permutation, so a long hash (H(pk), 10 to 20
// blocks) runs beside the many short ones of ExpandA instead of after them.
// ready() lets a job wait for another's output (mu needs tr). Every lane
// state and buffer is wiped at the end.
template <std::size_t kWays, class JobFn, class ReadyFn, class ConsumeFn>
void run_shake_jobs(std::size_t count, JobFn job_of, ReadyFn ready, ConsumeFn consume) noexcept {
  constexpr std::size_t kNone = ~std::size_t{0};
  constexpr std::size_t kMaxRate = 168;
  struct Lane {
    std::size_t job = kNone;
    ShakeJob spec;
    std::size_t part = 0;    // the part being absorbed
    std::size_t offset = 0;  // bytes of it absorbed
    bool squeezing = false;
  };
  KeccakStates<kWays> states;
  Lane lanes[kWays];
  bool started[64] = {};
  std::size_t first_unstarted = 0;  // every job below it has started
  std::size_t finished = 0;
  alignas(8) std::uint8_t block[kMaxRate];
  while (finished < count) {
    bool any_active = false;
    for (std::size_t j = 0; j < kWays; ++j) {
      Lane& lane = lanes[j];
      if (lane.job == kNone) {
        while (first_unstarted < count && started[first_unstarted]) ++first_unstarted;
        for (std::size_t i = first_unstarted; i < count; ++i) {
          if (!started[i] && ready(i)) {
            started[i] = true;
            lane = Lane{i, job_of(i), 0, 0, false};
            for (std::size_t n = 0; n < 25; ++n) states.lanes[n][j] = 0;
            break;
          }
        }
        if (lane.job == kNone) continue;
      }
      any_active = true;
      if (lane.squeezing) continue;
      // Absorb the next block: up to `rate` bytes of the remaining input;
      // fewer means this is the last one, padded (pad10*1 after the SHAKE
      // suffix 1111, as in KeccakSponge). A whole block inside one part is
      // read in place.
      const std::size_t rate = lane.spec.rate;
      while (lane.part < lane.spec.parts.size() && lane.offset == lane.spec.parts[lane.part].size()) {
        ++lane.part;
        lane.offset = 0;
      }
      const std::uint8_t* in;
      if (lane.part < lane.spec.parts.size() && lane.spec.parts[lane.part].size() - lane.offset >= rate) {
        in = lane.spec.parts[lane.part].data() + lane.offset;
        lane.offset += rate;
      } else {
        std::memset(block, 0, rate);
        std::size_t n = 0;
        while (n < rate && lane.part < lane.spec.parts.size()) {
          const ByteView part = lane.spec.parts[lane.part];
          const std::size_t take = std::min(rate - n, part.size() - lane.offset);
          if (take > 0) std::memcpy(block + n, part.data() + lane.offset, take);
          n += take;
          lane.offset += take;
          if (lane.offset == part.size()) {
            ++lane.part;
            lane.offset = 0;
          }
        }
        if (n < rate) {
          block[n] ^= 0x1f;
          block[rate - 1] ^= 0x80;
          lane.squeezing = true;
        }
        in = block;
      }
      for (std::size_t w = 0; w < rate / 8; ++w) {
        states.lanes[w][j] ^= base::load_le<std::uint64_t>(in + 8 * w);
      }
    }
    if (!any_active) break;  // only jobs whose dependencies never finish: a bug
    if constexpr (kWays == 1) {
      KeccakState one;
      for (std::size_t n = 0; n < 25; ++n) one[n] = states.lanes[n][0];
      keccak_f1600(one);
      for (std::size_t n = 0; n < 25; ++n) states.lanes[n][0] = one[n];
    } else if constexpr (kWays == 4) {
      keccak_f1600_x4(states);
    } else {
      keccak_f1600_x8(states);
    }
    for (std::size_t j = 0; j < kWays; ++j) {
      Lane& lane = lanes[j];
      if (lane.job == kNone || !lane.squeezing) continue;
      const std::size_t rate = lane.spec.rate;
      for (std::size_t w = 0; w < rate / 8; ++w) {
        base::store_le(block + 8 * w, states.lanes[w][j]);
      }
      if (consume(lane.job, static_cast<const std::uint8_t*>(block), rate)) {
        lane.job = kNone;
        ++finished;
      }
    }
  }
  base::secure_wipe(&states, sizeof(states));
  base::secure_wipe(block, sizeof(block));
}

// ---- One parameter set ------------------------------------------------------

template <class P>
struct Scheme {
  static constexpr std::size_t kK = P::kK;
  static constexpr std::size_t kL = P::kL;
  static constexpr std::int32_t kEta = P::kEta;
  static constexpr std::int32_t kGamma1 = P::kGamma1;
  static constexpr std::int32_t kGamma2 = P::kGamma2;
  static constexpr std::size_t kOmega = P::kOmega;
  static constexpr std::int32_t kBeta = static_cast<std::int32_t>(P::kTau) * kEta;
  static constexpr std::size_t kCTildeBytes = P::kLambda / 4;
  static constexpr unsigned kEtaBits = bitlen(2 * kEta);
  static constexpr unsigned kZBits = 1 + bitlen(kGamma1 - 1);
  static constexpr int kGamma1Log = static_cast<int>(kZBits) - 1;  // gamma1 = 2^17 or 2^19
  static_assert(kGamma1 == (1 << kGamma1Log));
  static constexpr std::int32_t kW1Modulus = (kQ - 1) / (2 * kGamma2);  // m of Alg. 40
  static constexpr unsigned kW1Bits = bitlen(kW1Modulus - 1);

  static constexpr std::size_t kT1PolyBytes = 32 * kT1Bits;
  static constexpr std::size_t kT0PolyBytes = 32 * kT0Bits;
  static constexpr std::size_t kEtaPolyBytes = 32 * kEtaBits;
  static constexpr std::size_t kZPolyBytes = 32 * kZBits;
  static constexpr std::size_t kW1PolyBytes = 32 * kW1Bits;

  // Byte offsets of skEncode (Alg. 24) and sigEncode (Alg. 26).
  static constexpr std::size_t kSkKey = kRhoBytes;
  static constexpr std::size_t kSkTr = kSkTrOffset;
  static constexpr std::size_t kSkS1 = kSkTr + kTrBytes;
  static constexpr std::size_t kSkS2 = kSkS1 + kL * kEtaPolyBytes;
  static constexpr std::size_t kSkT0 = kSkS2 + kK * kEtaPolyBytes;
  static constexpr std::size_t kSigZ = kCTildeBytes;
  static constexpr std::size_t kSigH = kSigZ + kL * kZPolyBytes;

  static constexpr std::size_t kPublicKeyBytes = kRhoBytes + kK * kT1PolyBytes;
  static constexpr std::size_t kSecretKeyBytes = kSkT0 + kK * kT0PolyBytes;
  static constexpr std::size_t kSignatureBytes = kSigH + kOmega + kK;
  static_assert(kPublicKeyBytes == sizes(P::kLevel).public_key);
  static_assert(kSecretKeyBytes == sizes(P::kLevel).secret_key);
  static_assert(kSignatureBytes == sizes(P::kLevel).signature);

  using VecL = std::array<Poly, kL>;
  using VecK = std::array<Poly, kK>;
  using Matrix = std::array<VecL, kK>;  // A-hat[r][s]

  // ExpandA (Alg. 32): A-hat[r][s] = RejNTTPoly(rho || s || r), with
  // G = SHAKE128 run on several seeds at once. Five blocks give 280
  // candidates; 256 are needed and each passes with probability
  // q / 2^23 > 0.999, so a sixth block is rare.
  static void expand_a(Matrix& a, const std::uint8_t* rho, const detail::Kernels& k) noexcept {
    std::size_t got[kK * kL] = {};
    shake_many<Shake128::kRateBytes, kRhoBytes + 2, 5>(
        k.keccak_ways, kK * kL,
        [rho](std::size_t i, std::uint8_t* seed) {
          std::memcpy(seed, rho, kRhoBytes);
          seed[kRhoBytes] = static_cast<std::uint8_t>(i % kL);
          seed[kRhoBytes + 1] = static_cast<std::uint8_t>(i / kL);
        },
        [&a, &got, &k](std::size_t i, const std::uint8_t* buf, std::size_t len) {
          got[i] += k.rej_uniform(a[i / kL][i % kL].c.data() + got[i], kN - got[i], buf, len);
          return got[i] == kN;
        });
  }

  // ExpandS (Alg. 33): s1[r] from rho' || r, s2[r] from rho' || (r + l), the
  // index as two little-endian bytes, H = SHAKE256 run on several seeds at
  // once. A block has 272 nibbles, of which 255 pass on average for eta = 2
  // and 153 for eta = 4: start with two blocks.
  static void expand_s(VecL& s1, VecK& s2, const std::uint8_t* rho_prime, unsigned ways) noexcept {
    std::size_t got[kL + kK] = {};
    shake_many<Shake256::kRateBytes, kRhoPrimeBytes + 2, 2>(
        ways, kL + kK,
        [rho_prime](std::size_t i, std::uint8_t* seed) {
          std::memcpy(seed, rho_prime, kRhoPrimeBytes);
          seed[kRhoPrimeBytes] = static_cast<std::uint8_t>(i);
          seed[kRhoPrimeBytes + 1] = 0;
        },
        [&](std::size_t i, const std::uint8_t* buf, std::size_t len) {
          Poly& p = i < kL ? s1[i] : s2[i - kL];
          got[i] += rej_eta<kEta>(p.c.data() + got[i], kN - got[i], buf, len);
          return got[i] == kN;
        });
  }

  // ExpandMask (Alg. 34): y[r] = BitUnpack(H(rho'' || IntegerToBytes(kappa + r, 2)),
  // gamma1 - 1, gamma1), for `attempts` consecutive attempts (y[t] belongs
  // to kappa + t l), the sponges run side by side.
  static void expand_mask(VecL* y, std::size_t attempts, const std::uint8_t* rho_2, std::uint32_t kappa,
                          const detail::Kernels& k) noexcept {
    constexpr std::size_t blocks = (kZPolyBytes + Shake256::kRateBytes - 1) / Shake256::kRateBytes;
    shake_many<Shake256::kRateBytes, kRhoPrimeBytes + 2, blocks>(
        k.keccak_ways, attempts * kL,
        [rho_2, kappa](std::size_t i, std::uint8_t* seed) {
          const auto index = static_cast<std::uint32_t>(kappa + i);
          std::memcpy(seed, rho_2, kRhoPrimeBytes);
          seed[kRhoPrimeBytes] = static_cast<std::uint8_t>(index);
          seed[kRhoPrimeBytes + 1] = static_cast<std::uint8_t>(index >> 8);
        },
        [y, &k](std::size_t i, const std::uint8_t* buf, std::size_t) {
          k.unpack_gamma1<kGamma1Log>()(y[i / kL][i % kL], buf);
          return true;
        });
  }

  // w1Encode (Alg. 28): SimpleBitPack(w1[i], (q - 1) / (2 gamma2) - 1).
  static void w1_encode(std::uint8_t* out, const VecK& w1) noexcept {
    for (std::size_t i = 0; i < kK; ++i) {
      pack<kW1Bits>(out + i * kW1PolyBytes, w1[i], [](std::int32_t v) { return static_cast<std::uint32_t>(v); });
    }
  }

  // The s1/s2 part of skDecode (Alg. 25): eta - b for each kEtaBits-bit b.
  // Returns nonzero if some b > 2 eta, i.e. the coefficient is below -eta;
  // checks every coefficient, without an early exit.
  static std::uint32_t decode_eta(Poly& a, const std::uint8_t* in) noexcept {
    std::uint32_t bad = 0;
    unpack<kEtaBits>(a, in, [&bad](std::uint32_t b) {
      bad |= static_cast<std::uint32_t>((2 * kEta - static_cast<std::int32_t>(b)) >> 31);
      return kEta - static_cast<std::int32_t>(b);
    });
    return bad;
  }

  // True if every coefficient of s1 and s2 in the encoded key lies in
  // [-eta, eta]. The answer is the only thing that depends on the key.
  static bool secret_key_in_range(const std::uint8_t* sk) noexcept {
    Poly tmp;
    std::uint32_t bad = 0;
    for (std::size_t i = 0; i < kL + kK; ++i) {
      bad |= decode_eta(tmp, sk + kSkS1 + i * kEtaPolyBytes);
    }
    base::secure_wipe(&tmp, sizeof(tmp));
    return bad == 0;
  }

  // ---- ML-DSA.KeyGen_internal (Alg. 6) ----

  // Secret intermediates live in wiped heap workspaces. Each starts with
  // A-hat, which depends on rho only and is not wiped (kPublicBytes); the
  // rest is. One allocation per operation: with A-hat apart, two blocks just
  // under malloc's limits went back to the system after every ML-DSA-87
  // signature, costing page faults.
  struct KeygenWork {
    Matrix a_hat;
    static constexpr std::size_t kPublicBytes = sizeof(Matrix);
    VecL s1, s1_hat;
    VecK s2, t, t1, t0;
    std::uint8_t seeds[kRhoBytes + kRhoPrimeBytes + kKeyBytes];
    std::uint8_t tr[kTrBytes];
  };

  static void keygen(const Seed& xi, std::uint8_t* pk, std::uint8_t* sk);

  // ---- ML-DSA.Sign_internal (Alg. 7) after mu is computed ----

  // With AVX-512 the rejection loop prepares two attempts at a time: their
  // masks come from one eight-way ExpandMask (l <= 4) and their c~ and c
  // from one four-way SHAKE256 each, so the second attempt's hashing is
  // almost free. The second attempt is only checked if the first fails,
  // so the outcome is the same as one attempt at a time.
  static constexpr std::size_t kMaxBatch = 2;

  struct SignWork {
    Matrix a_hat;
    static constexpr std::size_t kPublicBytes = sizeof(Matrix);
    VecL s1_hat, z;  // z also holds NTT(y) while w is computed
    VecL y[kMaxBatch];
    VecK s2_hat, t0_hat, h;
    VecK w[kMaxBatch];
    Poly w1;
    Poly c_hat[kMaxBatch];
    Poly cs2, ct0;
    std::uint8_t rho[kRhoBytes];
    std::uint8_t key[kKeyBytes];
    std::uint8_t rho_2[kRhoPrimeBytes];  // rho''
    // mu || w1Encode(w1), the input of c~ = H(., lambda / 4), per attempt.
    std::uint8_t c_input[kMaxBatch][kMuBytes + kK * kW1PolyBytes];
    std::uint8_t c_tilde[kMaxBatch][kCTildeBytes];
  };

  static base::Status sign(const std::uint8_t* sk, const Mu& mu, const Rnd& rnd, std::uint8_t* sig);

  // c~[t] = H(c_input[t], lambda / 4) and c_hat[t] = SampleInBall(c~[t])
  // (not yet in the NTT domain) for t < attempts; two attempts share
  // four-way sponges.
  static void challenges(SignWork& w, std::size_t attempts) noexcept {
    if (attempts == 1) {
      shake256_parts({w.c_input[0]}, w.c_tilde[0]);
      base::ct_public(w.c_tilde[0], kCTildeBytes);  // treated as public (top of file)
      sample_in_ball(w.c_hat[0], w.c_tilde[0], P::kTau);
      return;
    }
    static_assert(kCTildeBytes <= Shake256::kRateBytes);
    std::uint8_t block[kMaxBatch][Shake256::kRateBytes];
    {
      Shake256x4 h;
      h.absorb_once({w.c_input[0], w.c_input[1], w.c_input[0], w.c_input[1]}, sizeof(w.c_input[0]));
      h.squeeze_blocks({block[0], block[1], nullptr, nullptr}, 1);
    }
    for (std::size_t t = 0; t < kMaxBatch; ++t) {
      std::memcpy(w.c_tilde[t], block[t], kCTildeBytes);
      base::ct_public(w.c_tilde[t], kCTildeBytes);  // treated as public (top of file)
    }
    {
      Shake256x4 h;
      h.absorb_once({w.c_tilde[0], w.c_tilde[1], w.c_tilde[0], w.c_tilde[1]}, kCTildeBytes);
      h.squeeze_blocks({block[0], block[1], nullptr, nullptr}, 1);
    }
    for (std::size_t t = 0; t < kMaxBatch; ++t) {
      if (!sample_in_ball_from(w.c_hat[t], block[t], sizeof(block[t]), P::kTau)) {
        sample_in_ball(w.c_hat[t], w.c_tilde[t], P::kTau);
      }
    }
  }

  // ---- ML-DSA.Verify_internal (Alg. 8) after mu is computed ----

  struct VerifyWork {
    Matrix a;
    VecL z;
    VecK t1, h, w;
    Poly c_hat, ct1;
    std::uint8_t c_tilde[kCTildeBytes];
    std::uint8_t c_tilde_prime[kCTildeBytes];
    std::uint8_t w1_encoded[kK * kW1PolyBytes];
  };

  // mu_given, or else mu = H(H(pk, 64) || M') with M' in parts.
  static bool verify(const std::uint8_t* pk, const Mu* mu_given, std::initializer_list<ByteView> m_prime,
                     const std::uint8_t* sig);

  // HintBitUnpack (Alg. 21): false (the standard's ⊥) for a malformed
  // encoding: a count that decreases or exceeds omega, indices that are not
  // strictly increasing within a polynomial, or nonzero padding.
  static bool hint_unpack(VecK& h, const std::uint8_t* y) noexcept {
    for (auto& p : h) p.c.fill(0);
    std::size_t index = 0;
    for (std::size_t i = 0; i < kK; ++i) {
      const std::size_t limit = y[kOmega + i];
      if (limit < index || limit > kOmega) return false;
      const std::size_t first = index;
      for (; index < limit; ++index) {
        if (index > first && y[index - 1] >= y[index]) return false;
        h[i].c[y[index]] = 1;
      }
    }
    for (; index < kOmega; ++index) {
      if (y[index] != 0) return false;
    }
    return true;
  }

  // HintBitPack (Alg. 20). h has at most omega ones; it is part of the
  // signature being output, so the data-dependent stores are on public data.
  static void hint_pack(std::uint8_t* y, const VecK& h) noexcept {
    // Branch-free (h is unpredictable): every index is written at the
    // current end and kept only if h is set; at most omega are.
    std::uint8_t idx[kOmega + kN];
    std::size_t index = 0;
    for (std::size_t i = 0; i < kK; ++i) {
      for (std::size_t j = 0; j < kN; ++j) {
        idx[index] = static_cast<std::uint8_t>(j);
        index += static_cast<std::size_t>(h[i].c[j] != 0);
      }
      y[kOmega + i] = static_cast<std::uint8_t>(index);
    }
    std::memcpy(y, idx, index);
    std::memset(y + index, 0, kOmega - index);
  }
};

// Heap workspaces (up to about 100 KiB, too much for some thread stacks),
// wiped before they are freed.
// Wipes T from byte T::kPublicBytes on (what follows the public A-hat).
template <class T>
struct WipingDelete {
  void operator()(T* p) const noexcept {
    static_assert(T::kPublicBytes <= sizeof(T));
    base::secure_wipe(reinterpret_cast<unsigned char*>(p) + T::kPublicBytes, sizeof(T) - T::kPublicBytes);
    delete p;
  }
};
template <class T>
using Workspace = std::unique_ptr<T, WipingDelete<T>>;
template <class T>
Workspace<T> make_workspace() {
  static_assert(std::is_trivially_destructible_v<T>);
  // Default-initialised: every field is written before it is read.
  return Workspace<T>(new T);
}

template <class P>
void Scheme<P>::keygen(const Seed& xi, std::uint8_t* pk, std::uint8_t* sk) {
  const detail::Kernels& k = detail::kernels();
  auto ws = make_workspace<KeygenWork>();
  KeygenWork& w = *ws;
  Matrix* const a_hat = &w.a_hat;
  // (rho, rho', K) = H(xi || IntegerToBytes(k, 1) || IntegerToBytes(l, 1), 128).
  const std::uint8_t dims[2] = {static_cast<std::uint8_t>(kK), static_cast<std::uint8_t>(kL)};
  shake256_parts({xi, dims}, w.seeds);
  base::ct_public(w.seeds, kRhoBytes);  // rho is published in the public key
  const std::uint8_t* rho = w.seeds;
  const std::uint8_t* rho_prime = w.seeds + kRhoBytes;
  const std::uint8_t* key = rho_prime + kRhoPrimeBytes;

  expand_a(*a_hat, rho, k);
  expand_s(w.s1, w.s2, rho_prime, k.keccak_ways);
  // t = NTT^-1(A-hat o NTT(s1)) + s2, then (t1, t0) = Power2Round(t).
  w.s1_hat = w.s1;
  for (auto& p : w.s1_hat) k.ntt(p);
  for (std::size_t i = 0; i < kK; ++i) {
    k.pointwise_acc_montgomery(w.t[i], (*a_hat)[i].data(), w.s1_hat.data(), kL);
    k.invntt(w.t[i]);
    for (std::size_t n = 0; n < kN; ++n) {
      const detail::Split parts = detail::power2round(freeze(w.t[i].c[n] + w.s2[i].c[n]));
      w.t1[i].c[n] = parts.high;
      w.t0[i].c[n] = parts.low;
    }
  }

  // pkEncode (Alg. 22): rho || SimpleBitPack(t1[i], 2^10 - 1).
  std::memcpy(pk, rho, kRhoBytes);
  for (std::size_t i = 0; i < kK; ++i) {
    pack<kT1Bits>(pk + kRhoBytes + i * kT1PolyBytes, w.t1[i],
                  [](std::int32_t v) { return static_cast<std::uint32_t>(v); });
  }
  shake256_parts({ByteView(pk, kPublicKeyBytes)}, w.tr);

  // skEncode (Alg. 24): rho || K || tr || BitPack(s1, eta, eta) ||
  // BitPack(s2, eta, eta) || BitPack(t0, 2^12 - 1, 2^12).
  std::memcpy(sk, rho, kRhoBytes);
  std::memcpy(sk + kSkKey, key, kKeyBytes);
  std::memcpy(sk + kSkTr, w.tr, kTrBytes);
  const auto eta_minus = [](std::int32_t v) { return static_cast<std::uint32_t>(kEta - v); };
  for (std::size_t i = 0; i < kL; ++i) {
    pack<kEtaBits>(sk + kSkS1 + i * kEtaPolyBytes, w.s1[i], eta_minus);
  }
  for (std::size_t i = 0; i < kK; ++i) {
    pack<kEtaBits>(sk + kSkS2 + i * kEtaPolyBytes, w.s2[i], eta_minus);
  }
  for (std::size_t i = 0; i < kK; ++i) {
    pack<kT0Bits>(sk + kSkT0 + i * kT0PolyBytes, w.t0[i],
                  [](std::int32_t v) { return static_cast<std::uint32_t>((1 << (kD - 1)) - v); });
  }
}

template <class P>
base::Status Scheme<P>::sign(const std::uint8_t* sk, const Mu& mu, const Rnd& rnd, std::uint8_t* sig) {
  const detail::Kernels& k = detail::kernels();
  const detail::Kernels::Rounding& round = k.rounding<kGamma2>();
  auto ws = make_workspace<SignWork>();
  SignWork& w = *ws;
  Matrix* const a_hat = &w.a_hat;

  // skDecode (Alg. 25; the key was range-checked when SecretKey was built),
  // then s1-hat, s2-hat, t0-hat = NTT(s1), NTT(s2), NTT(t0).
  std::memcpy(w.rho, sk, kRhoBytes);
  base::ct_public(w.rho, kRhoBytes);  // rho is part of the public key
  std::memcpy(w.key, sk + kSkKey, kKeyBytes);
  for (std::size_t i = 0; i < kL; ++i) decode_eta(w.s1_hat[i], sk + kSkS1 + i * kEtaPolyBytes);
  for (std::size_t i = 0; i < kK; ++i) {
    decode_eta(w.s2_hat[i], sk + kSkS2 + i * kEtaPolyBytes);
    unpack<kT0Bits>(w.t0_hat[i], sk + kSkT0 + i * kT0PolyBytes,
                    [](std::uint32_t b) { return (1 << (kD - 1)) - static_cast<std::int32_t>(b); });
  }
  for (auto& p : w.s1_hat) k.ntt(p);
  for (auto& p : w.s2_hat) k.ntt(p);
  for (auto& p : w.t0_hat) k.ntt(p);
  expand_a(*a_hat, w.rho, k);

  // rho'' = H(K || rnd || mu, 64).
  shake256_parts({w.key, rnd, mu}, w.rho_2);

  // The rejection loop. ExpandMask encodes kappa + r in two bytes, so kappa
  // runs out after 2^16 / l attempts (at least 9362); FIPS 204 Appendix C
  // allows a loop limit of 814 or more. A key from keygen() needs about 4 to
  // 5 attempts on average and reaches the limit with probability far below
  // 2^-256; the limit keeps a malformed key from looping for ever.
  const std::size_t batch = k.keccak_ways >= 8 ? kMaxBatch : 1;
  for (std::size_t t = 0; t < kMaxBatch; ++t) std::memcpy(w.c_input[t], mu.data(), kMuBytes);
  std::uint32_t kappa = 0;
  while (kappa + kL <= (1U << 16)) {
    std::size_t attempts = 1;
    while (attempts < batch && kappa + (attempts + 1) * kL <= (1U << 16)) ++attempts;
    expand_mask(w.y, attempts, w.rho_2, kappa, k);
    for (std::size_t t = 0; t < attempts; ++t) {
      // w = NTT^-1(A-hat o NTT(y)), reduced to [0, q); w1 = HighBits(w)
      // (Alg. 37), encoded after mu.
      w.z = w.y[t];
      for (auto& p : w.z) k.ntt(p);
      for (std::size_t i = 0; i < kK; ++i) {
        k.pointwise_acc_montgomery(w.w[t][i], (*a_hat)[i].data(), w.z.data(), kL);
        k.invntt(w.w[t][i]);
        round.highbits(w.w1, w.w[t][i]);
        pack<kW1Bits>(w.c_input[t] + kMuBytes + i * kW1PolyBytes, w.w1,
                      [](std::int32_t v) { return static_cast<std::uint32_t>(v); });
      }
    }
    // c~ = H(mu || w1Encode(w1), lambda / 4), c = SampleInBall(c~).
    challenges(w, attempts);

    for (std::size_t t = 0; t < attempts; ++t, kappa += kL) {
      Poly& c_hat = w.c_hat[t];
      k.ntt(c_hat);

      // All four checks are folded into `reject` (all ones if the attempt
      // fails), with no early exit.
      std::int32_t reject = 0;

      // z = y + <<c s1>>, centred; ||z||_inf >= gamma1 - beta rejects.
      for (std::size_t j = 0; j < kL; ++j) {
        k.pointwise_montgomery(w.z[j], c_hat, w.s1_hat[j]);
        k.invntt(w.z[j]);
        reject |= k.poly_add_check_norm(w.z[j], w.y[t][j], kGamma1 - kBeta);
      }

      // r = w - <<c s2>>: ||LowBits(r)||_inf >= gamma2 - beta rejects, and
      // so does ||<<c t0>>||_inf >= gamma2; h = MakeHint(-<<c t0>>,
      // r + <<c t0>>) (Alg. 39).
      std::int32_t hints = 0;
      for (std::size_t i = 0; i < kK; ++i) {
        k.pointwise_montgomery(w.cs2, c_hat, w.s2_hat[i]);
        k.invntt(w.cs2);
        k.pointwise_montgomery(w.ct0, c_hat, w.t0_hat[i]);
        k.invntt(w.ct0);
        reject |= round.make_hints(w.h[i], w.w[t][i], w.cs2, w.ct0, kBeta, hints);
      }
      // More than omega ones in h rejects.
      reject |= (static_cast<std::int32_t>(kOmega) - hints) >> 31;

      base::ct_public(reject);  // the accept/reject decision is public
      if (reject == 0) {
        // sigEncode (Alg. 26): c~ || BitPack(z[i], gamma1 - 1, gamma1) || HintBitPack(h).
        std::memcpy(sig, w.c_tilde[t], kCTildeBytes);
        for (std::size_t j = 0; j < kL; ++j) {
          pack<kZBits>(sig + kSigZ + j * kZPolyBytes, w.z[j],
                       [](std::int32_t v) { return static_cast<std::uint32_t>(kGamma1 - v); });
        }
        base::ct_public(&w.h, sizeof(w.h));  // h is part of the signature
        hint_pack(sig + kSigH, w.h);
        return {};
      }
    }
  }
  return fail(Errc::invalid_value, std::string(level_name(P::kLevel)) +
                                       " signing found no signature within its loop limit;"
                                       " the secret key is malformed");
}

template <class P>
bool Scheme<P>::verify(const std::uint8_t* pk, const Mu* mu_given, std::initializer_list<ByteView> m_prime,
                       const std::uint8_t* sig) {
  const detail::Kernels& k = detail::kernels();
  auto ws = std::make_unique_for_overwrite<VerifyWork>();
  VerifyWork& w = *ws;

  // sigDecode (Alg. 27), and the final ||z||_inf < gamma1 - beta check done
  // first (everything here is public).
  std::memcpy(w.c_tilde, sig, kCTildeBytes);
  for (std::size_t j = 0; j < kL; ++j) {
    k.unpack_gamma1<kGamma1Log>()(w.z[j], sig + kSigZ + j * kZPolyBytes);
    std::int32_t too_big = 0;
    for (const std::int32_t v : w.z[j].c) too_big |= (kGamma1 - kBeta - 1 - abs_ct(v));
    if (too_big < 0) return false;
  }
  if (!hint_unpack(w.h, sig + kSigH)) return false;

  // pkDecode (Alg. 23).
  for (std::size_t i = 0; i < kK; ++i) {
    unpack<kT1Bits>(w.t1[i], pk + kRhoBytes + i * kT1PolyBytes,
                    [](std::uint32_t v) { return static_cast<std::int32_t>(v); });
  }

  // All the hashing before w1 in one set of SHAKE jobs: tr = H(pk, 64) and
  // mu = H(tr || M', 64) (unless mu is given), SampleInBall's H(c~), and
  // ExpandA (Alg. 32).
  Mu mu;
  std::uint8_t tr[kTrBytes];
  bool tr_done = false;
  const bool hash_mu = mu_given == nullptr;
  if (!hash_mu) mu = *mu_given;
  if (m_prime.size() > 3) std::abort();  // callers pass at most prefix, ctx, message
  std::uint8_t seeds[kK * kL][kRhoBytes + 2];
  std::size_t got[kK * kL] = {};
  std::uint8_t ball_bytes[4 * Shake256::kRateBytes];
  std::size_t ball_len = 0;
  bool ball_done = false;
  // Jobs: 0 = H(c~), 1 + i = A-hat entry i, then tr and mu when hashed.
  constexpr std::size_t kBall = 0, kFirstA = 1, kTr = kFirstA + kK * kL, kMu = kTr + 1;
  static_assert(kMu + 1 <= 64, "run_shake_jobs takes at most 64 jobs");
  const std::size_t jobs = hash_mu ? kMu + 1 : kTr;
  const auto job_of = [&](std::size_t i) {
    ShakeJob job;
    if (i == kBall) {
      job.rate = Shake256::kRateBytes;
      job.parts[0] = ByteView(w.c_tilde, kCTildeBytes);
    } else if (i < kTr) {
      const std::size_t a = i - kFirstA;
      std::memcpy(seeds[a], pk, kRhoBytes);
      seeds[a][kRhoBytes] = static_cast<std::uint8_t>(a % kL);
      seeds[a][kRhoBytes + 1] = static_cast<std::uint8_t>(a / kL);
      job.rate = Shake128::kRateBytes;
      job.parts[0] = ByteView(seeds[a], kRhoBytes + 2);
    } else if (i == kTr) {
      job.rate = Shake256::kRateBytes;
      job.parts[0] = ByteView(pk, kPublicKeyBytes);
    } else {
      job.rate = Shake256::kRateBytes;
      job.parts[0] = ByteView(tr, kTrBytes);
      std::size_t n = 1;
      for (const ByteView part : m_prime) job.parts[n++] = part;
    }
    return job;
  };
  // tr and mu go first: they are the longest.
  const auto order = [&](std::size_t i) {
    if (!hash_mu) return i;
    return i == 0 ? kTr : i == 1 ? kMu : i - 2;
  };
  const auto ready = [&](std::size_t i) { return order(i) != kMu || tr_done; };
  const auto consume = [&](std::size_t i, const std::uint8_t* block, std::size_t len) {
    const std::size_t job = order(i);
    if (job == kBall) {
      std::memcpy(ball_bytes + ball_len, block, len);
      ball_len += len;
      ball_done = sample_in_ball_from(w.c_hat, ball_bytes, ball_len, P::kTau);
      return ball_done || ball_len == sizeof(ball_bytes);
    }
    if (job < kTr) {
      const std::size_t a = job - kFirstA;
      got[a] += k.rej_uniform(w.a[a / kL][a % kL].c.data() + got[a], kN - got[a], block, len);
      return got[a] == kN;
    }
    if (job == kTr) {
      std::memcpy(tr, block, kTrBytes);
      tr_done = true;
    } else {
      std::memcpy(mu.data(), block, kMuBytes);
    }
    return true;
  };
  const auto job_in_order = [&](std::size_t i) { return job_of(order(i)); };
  if (k.keccak_ways >= 8) {
    run_shake_jobs<8>(jobs, job_in_order, ready, consume);
  } else if (k.keccak_ways >= 4) {
    run_shake_jobs<4>(jobs, job_in_order, ready, consume);
  } else {
    run_shake_jobs<1>(jobs, job_in_order, ready, consume);
  }
  // Four blocks of H(c~) not enough for tau positions: possible, never seen.
  if (!ball_done) sample_in_ball(w.c_hat, ByteView(w.c_tilde, kCTildeBytes), P::kTau);

  // w'_Approx = NTT^-1(A-hat o NTT(z) - NTT(c) o NTT(t1 * 2^d)).
  k.ntt(w.c_hat);
  for (auto& p : w.z) k.ntt(p);
  for (std::size_t i = 0; i < kK; ++i) {
    for (auto& v : w.t1[i].c) v <<= kD;  // t1 * 2^d <= q - 1
    k.ntt(w.t1[i]);
    k.pointwise_montgomery(w.ct1, w.c_hat, w.t1[i]);
    k.pointwise_acc_montgomery(w.w[i], w.a[i].data(), w.z.data(), kL);
    for (std::size_t n = 0; n < kN; ++n) w.w[i].c[n] -= w.ct1.c[n];
    k.poly_reduce(w.w[i]);
    k.invntt(w.w[i]);
    // w1' = UseHint(h, w'_Approx) (Alg. 40).
    k.rounding<kGamma2>().use_hints(w.w[i], w.w[i], w.h[i]);
  }
  // c~' = H(mu || w1Encode(w1'), lambda / 4); accept if it equals c~.
  w1_encode(w.w1_encoded, w.w);
  shake256_parts({mu, w.w1_encoded}, w.c_tilde_prime);
  return base::constant_time_equal(w.c_tilde, w.c_tilde_prime);
}

// ---- Dispatch on the level ----------------------------------------------

template <class F>
decltype(auto) with_scheme(Level level, F&& f) {
  switch (level) {
    case Level::k44: return f(Scheme<Params44>{});
    case Level::k65: return f(Scheme<Params65>{});
    case Level::k87: return f(Scheme<Params87>{});
  }
  // Not an enumerator: only a cast can make one. Entry points that take a
  // caller's Level check it with known() first; SecretKey's is always valid.
  std::abort();
}

constexpr bool known(Level level) noexcept { return sizes(level).public_key != 0; }

base::Failure context_too_long(std::size_t size) {
  return fail(Errc::length_over_max, "ML-DSA context is " + std::to_string(size) + " bytes; at most 255 are allowed");
}

ByteView tr_of(const SecretKey& sk) noexcept { return sk.bytes().subspan(kSkTrOffset, kTrBytes); }

// Verification with mu = H(H(pk, 64) || M'), M' given in parts; false for a
// key or signature of the wrong length.
bool verify_message(Level level, ByteView pk, std::initializer_list<ByteView> m_prime, ByteView sig) {
  if (!known(level) || pk.size() != sizes(level).public_key || sig.size() != sizes(level).signature) {
    return false;
  }
  return with_scheme(level, [&](auto s) { return s.verify(pk.data(), nullptr, m_prime, sig.data()); });
}

// ---- HashML-DSA pre-hash (Sec. 5.4) --------------------------------------

struct PreHashSpec {
  const char* evp_name;      // OpenSSL's name for PH
  std::uint8_t oid_arc;      // last arc of the OID 2.16.840.1.101.3.4.2.x
  std::size_t digest_bytes;  // SHAKE128: 256 bits, SHAKE256: 512 bits
  bool xof;
};

PreHashSpec prehash_spec(PreHash hash) noexcept {
  switch (hash) {
    case PreHash::sha2_224: return {"SHA2-224", 0x04, 28, false};
    case PreHash::sha2_256: return {"SHA2-256", 0x01, 32, false};
    case PreHash::sha2_384: return {"SHA2-384", 0x02, 48, false};
    case PreHash::sha2_512: return {"SHA2-512", 0x03, 64, false};
    case PreHash::sha2_512_224: return {"SHA2-512/224", 0x05, 28, false};
    case PreHash::sha2_512_256: return {"SHA2-512/256", 0x06, 32, false};
    case PreHash::sha3_224: return {"SHA3-224", 0x07, 28, false};
    case PreHash::sha3_256: return {"SHA3-256", 0x08, 32, false};
    case PreHash::sha3_384: return {"SHA3-384", 0x09, 48, false};
    case PreHash::sha3_512: return {"SHA3-512", 0x0a, 64, false};
    case PreHash::shake128: return {"SHAKE-128", 0x0b, 32, true};
    case PreHash::shake256: return {"SHAKE-256", 0x0c, 64, true};
  }
  return {nullptr, 0, 0, false};
}

// The part of M' after the context in Alg. 4 and 5: the DER encoding of
// PH's OID followed by PH(M). PH runs through OpenSSL's EVP;
// ML-DSA's own H and G use the project Keccak.
struct PreHashed {
  std::uint8_t bytes[11 + 64];
  std::size_t size;
  ByteView view() const noexcept { return {bytes, size}; }
};

Result<PreHashed> prehash(PreHash hash, ByteView message) {
  const PreHashSpec spec = prehash_spec(hash);
  if (spec.evp_name == nullptr) return fail(Errc::invalid_argument, "unknown HashML-DSA pre-hash");
  PreHashed out{{0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, spec.oid_arc}, 0};
  constexpr std::size_t oid_bytes = 11;
  const std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> md(EVP_MD_fetch(nullptr, spec.evp_name, nullptr), &EVP_MD_free);
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned int written = static_cast<unsigned int>(spec.digest_bytes);
  const bool ok = md && ctx && EVP_DigestInit_ex(ctx.get(), md.get(), nullptr) == 1 &&
                  EVP_DigestUpdate(ctx.get(), message.data(), message.size()) == 1 &&
                  (spec.xof ? EVP_DigestFinalXOF(ctx.get(), out.bytes + oid_bytes, spec.digest_bytes)
                            : EVP_DigestFinal_ex(ctx.get(), out.bytes + oid_bytes, &written)) == 1 &&
                  written == spec.digest_bytes;
  if (!ok) {
    return fail(Errc::unsupported, std::string("HashML-DSA: OpenSSL could not compute ") + spec.evp_name);
  }
  out.size = oid_bytes + spec.digest_bytes;
  return out;
}

}  // namespace

// ---- Public API -------------------------------------------------------------

const char* level_name(Level level) noexcept {
  switch (level) {
    case Level::k44: return "ML-DSA-44";
    case Level::k65: return "ML-DSA-65";
    case Level::k87: return "ML-DSA-87";
  }
  return "ML-DSA-?";
}

SecretKey::SecretKey(Level level, Bytes bytes) noexcept : level_(level), bytes_(std::move(bytes)) {}

SecretKey::SecretKey(SecretKey&& other) noexcept : level_(other.level_), bytes_(std::move(other.bytes_)) {
  other.bytes_.clear();
}

SecretKey& SecretKey::operator=(SecretKey&& other) noexcept {
  if (this != &other) {
    wipe();
    level_ = other.level_;
    bytes_ = std::move(other.bytes_);
    other.bytes_.clear();
  }
  return *this;
}

SecretKey::~SecretKey() { wipe(); }

void SecretKey::wipe() noexcept { base::secure_wipe(bytes_.data(), bytes_.size()); }

Result<SecretKey> SecretKey::from_bytes(Level level, ByteView encoded) {
  if (!known(level)) return fail(Errc::invalid_argument, "unknown ML-DSA level");
  const std::size_t expected = sizes(level).secret_key;
  if (encoded.size() != expected) {
    return fail(encoded.size() < expected ? Errc::truncated : Errc::trailing_bytes,
                std::string(level_name(level)) + " secret key must be " + std::to_string(expected) + " bytes, got " +
                    std::to_string(encoded.size()));
  }
  const bool in_range = with_scheme(level, [&](auto s) { return s.secret_key_in_range(encoded.data()); });
  if (!in_range) {
    return fail(Errc::invalid_value,
                std::string(level_name(level)) + " secret key has an s1 or s2 coefficient outside [-eta, eta]");
  }
  return SecretKey(level, Bytes(encoded.begin(), encoded.end()));
}

KeyPair keygen(Level level, const Seed& xi) {
  const Sizes size = sizes(level);
  Bytes pk(size.public_key);
  Bytes sk(size.secret_key);
  with_scheme(level, [&](auto s) { s.keygen(xi, pk.data(), sk.data()); });
  return KeyPair{std::move(pk), SecretKey(level, std::move(sk))};
}

Result<Bytes> sign_mu(const SecretKey& sk, const Mu& mu, const Rnd& rnd) {
  Bytes sig(sizes(sk.level()).signature);
  SION_TRY_STATUS(with_scheme(sk.level(), [&](auto s) { return s.sign(sk.bytes().data(), mu, rnd, sig.data()); }));
  return sig;
}

Result<Bytes> sign_internal(const SecretKey& sk, ByteView message_prime, const Rnd& rnd) {
  return sign_mu(sk, message_representative(tr_of(sk), {message_prime}), rnd);
}

Result<Bytes> sign(const SecretKey& sk, ByteView message, ByteView context, const Rnd& rnd) {
  // Alg. 2: M' = IntegerToBytes(0, 1) || IntegerToBytes(|ctx|, 1) || ctx || M.
  if (context.size() > kMaxContextBytes) return context_too_long(context.size());
  const std::uint8_t prefix[2] = {0, static_cast<std::uint8_t>(context.size())};
  return sign_mu(sk, message_representative(tr_of(sk), {prefix, context, message}), rnd);
}

Result<Bytes> sign_deterministic(const SecretKey& sk, ByteView message, ByteView context) {
  return sign(sk, message, context, Rnd{});
}

Result<Bytes> hash_sign(const SecretKey& sk, ByteView message, ByteView context, PreHash hash, const Rnd& rnd) {
  // Alg. 4: M' = IntegerToBytes(1, 1) || IntegerToBytes(|ctx|, 1) || ctx || OID || PH(M).
  if (context.size() > kMaxContextBytes) return context_too_long(context.size());
  const Result<PreHashed> ph = prehash(hash, message);
  if (!ph) return fail(ph.error());
  const std::uint8_t prefix[2] = {1, static_cast<std::uint8_t>(context.size())};
  return sign_mu(sk, message_representative(tr_of(sk), {prefix, context, ph->view()}), rnd);
}

bool verify(Level level, ByteView public_key, ByteView message, ByteView context, ByteView signature) {
  // Alg. 3.
  if (context.size() > kMaxContextBytes) return false;
  const std::uint8_t prefix[2] = {0, static_cast<std::uint8_t>(context.size())};
  return verify_message(level, public_key, {prefix, context, message}, signature);
}

bool hash_verify(Level level, ByteView public_key, ByteView message, ByteView context, PreHash hash,
                 ByteView signature) {
  // Alg. 5.
  if (context.size() > kMaxContextBytes) return false;
  const Result<PreHashed> ph = prehash(hash, message);
  if (!ph) return false;
  const std::uint8_t prefix[2] = {1, static_cast<std::uint8_t>(context.size())};
  return verify_message(level, public_key, {prefix, context, ph->view()}, signature);
}

bool verify_internal(Level level, ByteView public_key, ByteView message_prime, ByteView signature) {
  return verify_message(level, public_key, {message_prime}, signature);
}

Result<Mu> external_mu(Level level, ByteView public_key, ByteView message, ByteView context) {
  if (!known(level)) return fail(Errc::invalid_argument, "unknown ML-DSA level");
  if (public_key.size() != sizes(level).public_key) {
    return fail(Errc::invalid_value, std::string(level_name(level)) + " public key must be " +
                                         std::to_string(sizes(level).public_key) + " bytes");
  }
  if (context.size() > kMaxContextBytes) return context_too_long(context.size());
  std::uint8_t tr[kTrBytes];
  shake256_parts({public_key}, tr);
  const std::uint8_t prefix[2] = {0, static_cast<std::uint8_t>(context.size())};
  return message_representative(tr, {prefix, context, message});
}

bool verify_mu(Level level, ByteView public_key, const Mu& mu, ByteView signature) {
  if (!known(level) || public_key.size() != sizes(level).public_key || signature.size() != sizes(level).signature) {
    return false;
  }
  return with_scheme(level, [&](auto s) { return s.verify(public_key.data(), &mu, {}, signature.data()); });
}

}  // namespace sion::crypto::mldsa
