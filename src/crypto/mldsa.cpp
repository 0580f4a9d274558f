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

#include "sion/crypto/mldsa.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>

#include "sion/crypto/detail/mldsa_poly.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::crypto::mldsa {
namespace {

using base::ByteView;
using base::Bytes;
using base::Errc;
using base::fail;
using base::Result;
using detail::abs_ct;
using detail::center;
using detail::decompose;
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

constexpr std::size_t kRhoBytes = 32;       // rho, the public seed of A
constexpr std::size_t kRhoPrimeBytes = 64;  // rho' (seed of s1, s2) and rho'' (of y)
constexpr std::size_t kKeyBytes = 32;       // K
constexpr std::size_t kTrBytes = 64;        // tr = H(pk, 64)
constexpr std::size_t kSkTrOffset = kRhoBytes + kKeyBytes;  // skEncode: rho || K || tr || ...
constexpr unsigned kT1Bits = bitlen(kQ - 1) - kD;  // 10
constexpr unsigned kT0Bits = kD;                   // 13

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

// SimpleBitPack / BitPack: f(a_i) in [0, 2^kBits) for each coefficient,
// kBits bits each, least significant bit first (BitsToBytes, Alg. 12). The
// loop shape depends on kBits only, never on the values.
template <unsigned kBits, class F>
void pack(std::uint8_t* out, const Poly& a, F f) noexcept {
  static_assert(kBits <= 32);
  std::uint64_t acc = 0;
  unsigned have = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    acc |= std::uint64_t{f(a.c[i])} << have;
    have += kBits;
    for (; have >= 8; have -= 8, acc >>= 8) *out++ = static_cast<std::uint8_t>(acc);
  }
}

// SimpleBitUnpack / BitUnpack: a_i = f(next kBits bits).
template <unsigned kBits, class F>
void unpack(Poly& a, const std::uint8_t* in, F f) noexcept {
  constexpr std::uint64_t mask = (std::uint64_t{1} << kBits) - 1;
  std::uint64_t acc = 0;
  unsigned have = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    for (; have < kBits; have += 8) acc |= std::uint64_t{*in++} << have;
    a.c[i] = f(static_cast<std::uint32_t>(acc & mask));
    acc >>= kBits;
    have -= kBits;
  }
}

// ---- Sampling (Sec. 7.3) ----------------------------------------------------

// RejNTTPoly (Alg. 30) with CoeffFromThreeBytes (Alg. 14): a uniform element
// of T_q from G(seed), seed = rho || s || r. Public data only.
void rej_ntt_poly(Poly& a, const std::uint8_t (&seed)[kRhoBytes + 2]) noexcept {
  constexpr std::size_t rate = Shake128::kRateBytes;
  static_assert(rate % 3 == 0, "three-byte candidates never straddle a block");
  Shake128 g;
  g.absorb(seed);
  g.finalize();
  // 5 blocks give 280 candidates; 256 are needed and each passes with
  // probability q / 2^23 > 0.999, so a sixth block is rare.
  std::uint8_t buf[5 * rate];
  g.squeeze_blocks(buf, 5);
  std::size_t len = sizeof(buf);
  std::size_t pos = 0;
  std::size_t j = 0;
  while (j < kN) {
    if (pos == len) {
      g.squeeze_blocks(buf, 1);
      len = rate;
      pos = 0;
    }
    const std::uint32_t z = std::uint32_t{buf[pos]} | (std::uint32_t{buf[pos + 1]} << 8) |
                            (std::uint32_t{buf[pos + 2] & 0x7fU} << 16);
    pos += 3;
    if (z < static_cast<std::uint32_t>(kQ)) a.c[j++] = static_cast<std::int32_t>(z);
  }
}

// RejBoundedPoly (Alg. 31) with CoeffFromHalfByte (Alg. 15): coefficients in
// [-eta, eta] from H(seed), seed = rho' || IntegerToBytes(r, 2). The seed is
// secret; the accept/reject branch reveals only which nibbles were >= 15
// (eta = 2) or >= 9 (eta = 4), which says nothing about the accepted ones.
template <std::int32_t kEta>
void rej_bounded_poly(Poly& a, const std::uint8_t (&seed)[kRhoPrimeBytes + 2]) noexcept {
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
  Shake256 h;
  h.absorb(seed);
  h.finalize();
  std::uint8_t buf[Shake256::kRateBytes];
  std::size_t j = 0;
  while (j < kN) {
    h.squeeze_blocks(buf, 1);
    for (std::size_t pos = 0; pos < sizeof(buf) && j < kN; ++pos) {
      const std::uint32_t z0 = buf[pos] & 0x0fU;
      const std::uint32_t z1 = buf[pos] >> 4;
      if (z0 < bound) a.c[j++] = coeff(z0);
      if (z1 < bound && j < kN) a.c[j++] = coeff(z1);
    }
  }
  base::secure_wipe(buf, sizeof(buf));
}

// SampleInBall (Alg. 29): c with tau coefficients +-1, the rest 0, from
// H(c~). Indexes memory by hash output; see the note at the top of the file.
void sample_in_ball(Poly& c, ByteView c_tilde, std::size_t tau) noexcept {
  constexpr std::size_t rate = Shake256::kRateBytes;
  Shake256 h;
  h.absorb(c_tilde);
  h.finalize();
  std::uint8_t buf[rate];
  h.squeeze_blocks(buf, 1);
  std::uint64_t signs = 0;
  for (std::size_t i = 0; i < 8; ++i) signs |= std::uint64_t{buf[i]} << (8 * i);
  std::size_t pos = 8;
  c.c.fill(0);
  for (std::size_t i = kN - tau; i < kN; ++i) {
    std::size_t j;
    do {
      if (pos == rate) {
        h.squeeze_blocks(buf, 1);
        pos = 0;
      }
      j = buf[pos++];
    } while (j > i);
    c.c[i] = c.c[j];
    c.c[j] = 1 - 2 * static_cast<std::int32_t>(signs & 1);
    signs >>= 1;
  }
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

  // ExpandA (Alg. 32): A-hat[r][s] = RejNTTPoly(rho || s || r).
  static void expand_a(Matrix& a, const std::uint8_t* rho) noexcept {
    std::uint8_t seed[kRhoBytes + 2];
    std::memcpy(seed, rho, kRhoBytes);
    for (std::size_t r = 0; r < kK; ++r) {
      for (std::size_t s = 0; s < kL; ++s) {
        seed[kRhoBytes] = static_cast<std::uint8_t>(s);
        seed[kRhoBytes + 1] = static_cast<std::uint8_t>(r);
        rej_ntt_poly(a[r][s], seed);
      }
    }
  }

  // ExpandS (Alg. 33): s1[r] from rho' || r, s2[r] from rho' || (r + l), the
  // index as two little-endian bytes.
  static void expand_s(VecL& s1, VecK& s2, const std::uint8_t* rho_prime) noexcept {
    std::uint8_t seed[kRhoPrimeBytes + 2];
    std::memcpy(seed, rho_prime, kRhoPrimeBytes);
    seed[kRhoPrimeBytes + 1] = 0;
    for (std::size_t r = 0; r < kL + kK; ++r) {
      seed[kRhoPrimeBytes] = static_cast<std::uint8_t>(r);
      rej_bounded_poly<kEta>(r < kL ? s1[r] : s2[r - kL], seed);
    }
    base::secure_wipe(seed, sizeof(seed));
  }

  // ExpandMask (Alg. 34): y[r] = BitUnpack(H(rho'' || IntegerToBytes(kappa + r, 2)),
  // gamma1 - 1, gamma1).
  static void expand_mask(VecL& y, const std::uint8_t* rho_2, std::uint32_t kappa) noexcept {
    std::uint8_t seed[kRhoPrimeBytes + 2];
    std::uint8_t buf[kZPolyBytes];
    std::memcpy(seed, rho_2, kRhoPrimeBytes);
    for (std::size_t r = 0; r < kL; ++r) {
      const auto index = static_cast<std::uint32_t>(kappa + r);
      seed[kRhoPrimeBytes] = static_cast<std::uint8_t>(index);
      seed[kRhoPrimeBytes + 1] = static_cast<std::uint8_t>(index >> 8);
      shake256_parts({seed}, buf);
      unpack<kZBits>(y[r], buf,
                     [](std::uint32_t v) { return kGamma1 - static_cast<std::int32_t>(v); });
    }
    base::secure_wipe(seed, sizeof(seed));
    base::secure_wipe(buf, sizeof(buf));
  }

  // w1Encode (Alg. 28): SimpleBitPack(w1[i], (q - 1) / (2 gamma2) - 1).
  static void w1_encode(std::uint8_t* out, const VecK& w1) noexcept {
    for (std::size_t i = 0; i < kK; ++i) {
      pack<kW1Bits>(out + i * kW1PolyBytes, w1[i],
                    [](std::int32_t v) { return static_cast<std::uint32_t>(v); });
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

  // Secret intermediates live in wiped heap workspaces; A-hat, which
  // depends on rho only, is allocated beside them and not wiped.
  struct KeygenWork {
    VecL s1, s1_hat;
    VecK s2, t, t1, t0;
    std::uint8_t seeds[kRhoBytes + kRhoPrimeBytes + kKeyBytes];
    std::uint8_t tr[kTrBytes];
  };

  static void keygen(const Seed& xi, std::uint8_t* pk, std::uint8_t* sk);

  // ---- ML-DSA.Sign_internal (Alg. 7) after mu is computed ----

  struct SignWork {
    VecL s1_hat, y, y_hat, z;
    VecK s2_hat, t0_hat, w, w1, h;
    Poly c_hat, cs2, ct0;
    std::uint8_t rho[kRhoBytes];
    std::uint8_t key[kKeyBytes];
    std::uint8_t rho_2[kRhoPrimeBytes];  // rho''
    std::uint8_t c_tilde[kCTildeBytes];
    std::uint8_t w1_encoded[kK * kW1PolyBytes];
  };

  static base::Status sign(const std::uint8_t* sk, const Mu& mu, const Rnd& rnd,
                           std::uint8_t* sig);

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

  static bool verify(const std::uint8_t* pk, const Mu& mu, const std::uint8_t* sig);

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
    std::memset(y, 0, kOmega + kK);
    std::size_t index = 0;
    for (std::size_t i = 0; i < kK; ++i) {
      for (std::size_t j = 0; j < kN; ++j) {
        if (h[i].c[j] != 0) y[index++] = static_cast<std::uint8_t>(j);
      }
      y[kOmega + i] = static_cast<std::uint8_t>(index);
    }
  }
};

// Heap workspaces (up to about 100 KiB, too much for some thread stacks),
// wiped before they are freed.
template <class T>
struct WipingDelete {
  void operator()(T* p) const noexcept {
    base::secure_wipe(p, sizeof(T));
    delete p;
  }
};
template <class T>
using Workspace = std::unique_ptr<T, WipingDelete<T>>;
template <class T>
Workspace<T> make_workspace() {
  static_assert(std::is_trivially_destructible_v<T>);
  return Workspace<T>(new T());
}

template <class P>
void Scheme<P>::keygen(const Seed& xi, std::uint8_t* pk, std::uint8_t* sk) {
  auto ws = make_workspace<KeygenWork>();
  KeygenWork& w = *ws;
  const auto a_hat = std::make_unique<Matrix>();
  // (rho, rho', K) = H(xi || IntegerToBytes(k, 1) || IntegerToBytes(l, 1), 128).
  const std::uint8_t dims[2] = {static_cast<std::uint8_t>(kK), static_cast<std::uint8_t>(kL)};
  shake256_parts({xi, dims}, w.seeds);
  const std::uint8_t* rho = w.seeds;
  const std::uint8_t* rho_prime = w.seeds + kRhoBytes;
  const std::uint8_t* key = rho_prime + kRhoPrimeBytes;

  expand_a(*a_hat, rho);
  expand_s(w.s1, w.s2, rho_prime);
  // t = NTT^-1(A-hat o NTT(s1)) + s2, then (t1, t0) = Power2Round(t).
  w.s1_hat = w.s1;
  for (auto& p : w.s1_hat) detail::ntt(p);
  for (std::size_t i = 0; i < kK; ++i) {
    detail::pointwise_acc_montgomery(w.t[i], (*a_hat)[i].data(), w.s1_hat.data(), kL);
    detail::invntt(w.t[i]);
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
    pack<kT0Bits>(sk + kSkT0 + i * kT0PolyBytes, w.t0[i], [](std::int32_t v) {
      return static_cast<std::uint32_t>((1 << (kD - 1)) - v);
    });
  }
}

template <class P>
base::Status Scheme<P>::sign(const std::uint8_t* sk, const Mu& mu, const Rnd& rnd,
                             std::uint8_t* sig) {
  auto ws = make_workspace<SignWork>();
  SignWork& w = *ws;
  const auto a_hat = std::make_unique<Matrix>();

  // skDecode (Alg. 25; the key was range-checked when SecretKey was built),
  // then s1-hat, s2-hat, t0-hat = NTT(s1), NTT(s2), NTT(t0).
  std::memcpy(w.rho, sk, kRhoBytes);
  std::memcpy(w.key, sk + kSkKey, kKeyBytes);
  for (std::size_t i = 0; i < kL; ++i) decode_eta(w.s1_hat[i], sk + kSkS1 + i * kEtaPolyBytes);
  for (std::size_t i = 0; i < kK; ++i) {
    decode_eta(w.s2_hat[i], sk + kSkS2 + i * kEtaPolyBytes);
    unpack<kT0Bits>(w.t0_hat[i], sk + kSkT0 + i * kT0PolyBytes, [](std::uint32_t b) {
      return (1 << (kD - 1)) - static_cast<std::int32_t>(b);
    });
  }
  for (auto& p : w.s1_hat) detail::ntt(p);
  for (auto& p : w.s2_hat) detail::ntt(p);
  for (auto& p : w.t0_hat) detail::ntt(p);
  expand_a(*a_hat, w.rho);

  // rho'' = H(K || rnd || mu, 64).
  shake256_parts({w.key, rnd, mu}, w.rho_2);

  // The rejection loop. ExpandMask encodes kappa + r in two bytes, so kappa
  // runs out after 2^16 / l attempts (at least 9362); FIPS 204 Appendix C
  // allows a loop limit of 814 or more. A key from keygen() needs about 4 to
  // 5 attempts on average and reaches the limit with probability far below
  // 2^-256; the limit keeps a malformed key from looping for ever.
  for (std::uint32_t kappa = 0; kappa + kL <= (1U << 16); kappa += kL) {
    expand_mask(w.y, w.rho_2, kappa);
    // w = NTT^-1(A-hat o NTT(y)), reduced to [0, q).
    w.y_hat = w.y;
    for (auto& p : w.y_hat) detail::ntt(p);
    for (std::size_t i = 0; i < kK; ++i) {
      detail::pointwise_acc_montgomery(w.w[i], (*a_hat)[i].data(), w.y_hat.data(), kL);
      detail::invntt(w.w[i]);
      detail::poly_freeze(w.w[i]);
      // w1 = HighBits(w) (Alg. 37).
      for (std::size_t n = 0; n < kN; ++n) w.w1[i].c[n] = decompose<kGamma2>(w.w[i].c[n]).high;
    }
    // c~ = H(mu || w1Encode(w1), lambda / 4), c = SampleInBall(c~).
    w1_encode(w.w1_encoded, w.w1);
    shake256_parts({mu, w.w1_encoded}, w.c_tilde);
    sample_in_ball(w.c_hat, w.c_tilde, P::kTau);
    detail::ntt(w.c_hat);

    // All four checks are folded into `reject` (all ones if the attempt
    // fails), with no early exit.
    std::int32_t reject = 0;

    // z = y + <<c s1>>, centred; ||z||_inf >= gamma1 - beta rejects.
    for (std::size_t j = 0; j < kL; ++j) {
      detail::pointwise_montgomery(w.z[j], w.c_hat, w.s1_hat[j]);
      detail::invntt(w.z[j]);
      for (std::size_t n = 0; n < kN; ++n) {
        const std::int32_t v = center(freeze(w.z[j].c[n] + w.y[j].c[n]));
        w.z[j].c[n] = v;
        reject |= (kGamma1 - kBeta - 1 - abs_ct(v)) >> 31;
      }
    }

    std::int32_t hints = 0;
    for (std::size_t i = 0; i < kK; ++i) {
      detail::pointwise_montgomery(w.cs2, w.c_hat, w.s2_hat[i]);
      detail::invntt(w.cs2);
      detail::pointwise_montgomery(w.ct0, w.c_hat, w.t0_hat[i]);
      detail::invntt(w.ct0);
      for (std::size_t n = 0; n < kN; ++n) {
        // r = w - <<c s2>>; ||LowBits(r)||_inf >= gamma2 - beta rejects.
        const std::int32_t r = freeze(w.w[i].c[n] - w.cs2.c[n]);
        const detail::Split r_parts = decompose<kGamma2>(r);
        reject |= (kGamma2 - kBeta - 1 - abs_ct(r_parts.low)) >> 31;
        // ||<<c t0>>||_inf >= gamma2 rejects.
        const std::int32_t ct0 = center(freeze(w.ct0.c[n]));
        reject |= (kGamma2 - 1 - abs_ct(ct0)) >> 31;
        // h = MakeHint(-<<c t0>>, r + <<c t0>>) (Alg. 39): whether HighBits
        // of r + <<c t0>> and of r differ.
        const std::int32_t diff = decompose<kGamma2>(freeze(r + ct0)).high ^ r_parts.high;
        const auto hint =
            static_cast<std::int32_t>(static_cast<std::uint32_t>(diff | -diff) >> 31);
        w.h[i].c[n] = hint;
        hints += hint;
      }
    }
    // More than omega ones in h rejects.
    reject |= (static_cast<std::int32_t>(kOmega) - hints) >> 31;

    if (reject == 0) {
      // sigEncode (Alg. 26): c~ || BitPack(z[i], gamma1 - 1, gamma1) || HintBitPack(h).
      std::memcpy(sig, w.c_tilde, kCTildeBytes);
      for (std::size_t j = 0; j < kL; ++j) {
        pack<kZBits>(sig + kSigZ + j * kZPolyBytes, w.z[j],
                     [](std::int32_t v) { return static_cast<std::uint32_t>(kGamma1 - v); });
      }
      hint_pack(sig + kSigH, w.h);
      return {};
    }
  }
  return fail(Errc::invalid_value, std::string(level_name(P::kLevel)) +
                                       " signing found no signature within its loop limit;"
                                       " the secret key is malformed");
}

template <class P>
bool Scheme<P>::verify(const std::uint8_t* pk, const Mu& mu, const std::uint8_t* sig) {
  auto ws = std::make_unique<VerifyWork>();
  VerifyWork& w = *ws;

  // sigDecode (Alg. 27), and the final ||z||_inf < gamma1 - beta check done
  // first (everything here is public).
  std::memcpy(w.c_tilde, sig, kCTildeBytes);
  for (std::size_t j = 0; j < kL; ++j) {
    unpack<kZBits>(w.z[j], sig + kSigZ + j * kZPolyBytes,
                   [](std::uint32_t v) { return kGamma1 - static_cast<std::int32_t>(v); });
    for (const std::int32_t v : w.z[j].c) {
      if (abs_ct(v) >= kGamma1 - kBeta) return false;
    }
  }
  if (!hint_unpack(w.h, sig + kSigH)) return false;

  // pkDecode (Alg. 23).
  for (std::size_t i = 0; i < kK; ++i) {
    unpack<kT1Bits>(w.t1[i], pk + kRhoBytes + i * kT1PolyBytes,
                    [](std::uint32_t v) { return static_cast<std::int32_t>(v); });
  }
  expand_a(w.a, pk);

  // w'_Approx = NTT^-1(A-hat o NTT(z) - NTT(c) o NTT(t1 * 2^d)).
  sample_in_ball(w.c_hat, w.c_tilde, P::kTau);
  detail::ntt(w.c_hat);
  for (auto& p : w.z) detail::ntt(p);
  for (std::size_t i = 0; i < kK; ++i) {
    for (auto& v : w.t1[i].c) v <<= kD;  // t1 * 2^d <= q - 1
    detail::ntt(w.t1[i]);
    detail::pointwise_montgomery(w.ct1, w.c_hat, w.t1[i]);
    detail::pointwise_acc_montgomery(w.w[i], w.a[i].data(), w.z.data(), kL);
    for (std::size_t n = 0; n < kN; ++n) w.w[i].c[n] -= w.ct1.c[n];
    detail::poly_reduce(w.w[i]);
    detail::invntt(w.w[i]);
    detail::poly_freeze(w.w[i]);
    // w1' = UseHint(h, w'_Approx) (Alg. 40).
    for (std::size_t n = 0; n < kN; ++n) {
      const detail::Split parts = decompose<kGamma2>(w.w[i].c[n]);
      std::int32_t w1 = parts.high;
      if (w.h[i].c[n] != 0) {
        w1 = parts.low > 0 ? (w1 + 1) % kW1Modulus : (w1 - 1 + kW1Modulus) % kW1Modulus;
      }
      w.w[i].c[n] = w1;
    }
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
  return fail(Errc::length_over_max, "ML-DSA context is " + std::to_string(size) +
                                         " bytes; at most 255 are allowed");
}

ByteView tr_of(const SecretKey& sk) noexcept { return sk.bytes().subspan(kSkTrOffset, kTrBytes); }

// Verification with mu = H(H(pk, 64) || M'), M' given in parts; false for a
// key or signature of the wrong length.
bool verify_message(Level level, ByteView pk, std::initializer_list<ByteView> m_prime,
                    ByteView sig) {
  if (!known(level) || pk.size() != sizes(level).public_key ||
      sig.size() != sizes(level).signature) {
    return false;
  }
  std::uint8_t tr[kTrBytes];
  shake256_parts({pk}, tr);
  const Mu mu = message_representative(tr, m_prime);
  return with_scheme(level, [&](auto s) { return s.verify(pk.data(), mu, sig.data()); });
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
  const std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> md(
      EVP_MD_fetch(nullptr, spec.evp_name, nullptr), &EVP_MD_free);
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                     &EVP_MD_CTX_free);
  unsigned int written = static_cast<unsigned int>(spec.digest_bytes);
  const bool ok =
      md && ctx && EVP_DigestInit_ex(ctx.get(), md.get(), nullptr) == 1 &&
      EVP_DigestUpdate(ctx.get(), message.data(), message.size()) == 1 &&
      (spec.xof ? EVP_DigestFinalXOF(ctx.get(), out.bytes + oid_bytes, spec.digest_bytes)
                : EVP_DigestFinal_ex(ctx.get(), out.bytes + oid_bytes, &written)) == 1 &&
      written == spec.digest_bytes;
  if (!ok) {
    return fail(Errc::unsupported,
                std::string("HashML-DSA: OpenSSL could not compute ") + spec.evp_name);
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

SecretKey::SecretKey(SecretKey&& other) noexcept
    : level_(other.level_), bytes_(std::move(other.bytes_)) {
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
                std::string(level_name(level)) + " secret key must be " +
                    std::to_string(expected) + " bytes, got " + std::to_string(encoded.size()));
  }
  const bool in_range = with_scheme(
      level, [&](auto s) { return s.secret_key_in_range(encoded.data()); });
  if (!in_range) {
    return fail(Errc::invalid_value,
                std::string(level_name(level)) +
                    " secret key has an s1 or s2 coefficient outside [-eta, eta]");
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
  base::Status status = with_scheme(
      sk.level(), [&](auto s) { return s.sign(sk.bytes().data(), mu, rnd, sig.data()); });
  if (!status) return fail(std::move(status).error());
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

Result<Bytes> hash_sign(const SecretKey& sk, ByteView message, ByteView context, PreHash hash,
                        const Rnd& rnd) {
  // Alg. 4: M' = IntegerToBytes(1, 1) || IntegerToBytes(|ctx|, 1) || ctx || OID || PH(M).
  if (context.size() > kMaxContextBytes) return context_too_long(context.size());
  const Result<PreHashed> ph = prehash(hash, message);
  if (!ph) return fail(ph.error());
  const std::uint8_t prefix[2] = {1, static_cast<std::uint8_t>(context.size())};
  return sign_mu(sk, message_representative(tr_of(sk), {prefix, context, ph->view()}), rnd);
}

bool verify(Level level, ByteView public_key, ByteView message, ByteView context,
            ByteView signature) {
  // Alg. 3.
  if (context.size() > kMaxContextBytes) return false;
  const std::uint8_t prefix[2] = {0, static_cast<std::uint8_t>(context.size())};
  return verify_message(level, public_key, {prefix, context, message}, signature);
}

bool hash_verify(Level level, ByteView public_key, ByteView message, ByteView context,
                 PreHash hash, ByteView signature) {
  // Alg. 5.
  if (context.size() > kMaxContextBytes) return false;
  const Result<PreHashed> ph = prehash(hash, message);
  if (!ph) return false;
  const std::uint8_t prefix[2] = {1, static_cast<std::uint8_t>(context.size())};
  return verify_message(level, public_key, {prefix, context, ph->view()}, signature);
}

bool verify_internal(Level level, ByteView public_key, ByteView message_prime,
                     ByteView signature) {
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
  if (!known(level) || public_key.size() != sizes(level).public_key ||
      signature.size() != sizes(level).signature) {
    return false;
  }
  return with_scheme(level,
                     [&](auto s) { return s.verify(public_key.data(), mu, signature.data()); });
}

}  // namespace sion::crypto::mldsa
