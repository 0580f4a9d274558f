#pragma once
// ML-DSA polynomial arithmetic (FIPS 204, Sec. 7.4 and 7.5): the ring
// R_q = Z_q[X]/(X^256 + 1) with q = 8380417, its NTT, and the rounding
// functions. Internal to the crypto layer: sion/crypto/mldsa.hpp is the API.
// The header exists so the tests can check each piece on its own and so
// CPU-specific versions of the kernels (ntt, invntt, the pointwise products,
// the reductions) can be added behind the same signatures and chosen at run
// time (sion/base/cpu.hpp).
//
// Coefficients are int32 in a "lazy" range that each function documents; a
// bound written |a| < B means every coefficient. All arithmetic here is free
// of secret-dependent branches and memory indices.

#include <array>
#include <cstddef>
#include <cstdint>

namespace sion::crypto::mldsa::detail {

inline constexpr std::int32_t kQ = 8380417;  // q = 2^23 - 2^13 + 1
inline constexpr std::size_t kN = 256;       // n
inline constexpr int kD = 13;                // d, bits dropped from t (Power2Round)

struct alignas(64) Poly {  // 64: a cache line, and what AVX-512 loads want
  std::array<std::int32_t, kN> c;
};

// q^-1 mod 2^32, for Montgomery reduction with R = 2^32.
inline constexpr std::uint32_t kQInv = [] {
  // Newton iteration x <- x(2 - qx) doubles the correct low bits each step.
  std::uint32_t x = 1;
  for (int i = 0; i < 5; ++i) x *= 2U - static_cast<std::uint32_t>(kQ) * x;
  return x;
}();
static_assert(static_cast<std::uint32_t>(kQ) * kQInv == 1U);

// MontgomeryReduce (Alg. 49): a * 2^-32 mod q, for |a| < 2^31 q; the result
// has |r| < q.
constexpr std::int32_t montgomery_reduce(std::int64_t a) noexcept {
  // t = a q^-1 mod 2^32 (signed), so a - t q is divisible by 2^32.
  const auto t = static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * kQInv);
  return static_cast<std::int32_t>((a - static_cast<std::int64_t>(t) * kQ) >> 32);
}

// A representative of a mod q with |r| <= 2^22 + 256 (2^13 - 1) < q, for
// |a| < 2^31 - 2^22.
constexpr std::int32_t reduce32(std::int32_t a) noexcept {
  const std::int32_t t = (a + (1 << 22)) >> 23;  // round(a / 2^23), and 2^23 ~ q
  return a - t * kQ;
}

// a + q if a is negative: maps (-q, q) to [0, q).
constexpr std::int32_t caddq(std::int32_t a) noexcept { return a + ((a >> 31) & kQ); }

// The representative in [0, q), for |a| < 2^31 - 2^22.
constexpr std::int32_t freeze(std::int32_t a) noexcept { return caddq(reduce32(a)); }

// a mod± q, in [-(q-1)/2, (q-1)/2], for a in [0, q).
constexpr std::int32_t center(std::int32_t a) noexcept { return a - (((((kQ - 1) / 2) - a) >> 31) & kQ); }

// |a| for a in (-2^31, 2^31), without a branch.
constexpr std::int32_t abs_ct(std::int32_t a) noexcept {
  const std::int32_t sign = a >> 31;
  return (a ^ sign) - sign;
}

// ---- Twiddle factors --------------------------------------------------------

constexpr std::int64_t pow_mod(std::int64_t base, std::int64_t exp) {
  std::int64_t result = 1;
  base %= kQ;
  while (exp > 0) {
    if (exp & 1) result = result * base % kQ;
    base = base * base % kQ;
    exp >>= 1;
  }
  return result;
}

// x * 2^32 mod q for x in [0, q), centred, so that
// montgomery_reduce(to_montgomery(x) * a) = x * a mod q.
constexpr std::int32_t to_montgomery(std::int64_t x) {
  const auto r = static_cast<std::int32_t>(x * ((std::int64_t{1} << 32) % kQ) % kQ);
  return r > kQ / 2 ? r - kQ : r;
}

// zetas[m] = zeta^BitRev8(m) with zeta = 1753, the 512th root of unity of
// FIPS 204 Sec. 7.5 (Appendix B lists the same values), in Montgomery form.
inline constexpr std::array<std::int32_t, kN> kZetas = [] {
  std::array<std::int32_t, kN> z{};
  for (std::size_t m = 0; m < kN; ++m) {
    std::size_t rev = 0;
    for (int bit = 0; bit < 8; ++bit) rev |= ((m >> bit) & 1U) << (7 - bit);
    z[m] = to_montgomery(pow_mod(1753, static_cast<std::int64_t>(rev)));
  }
  return z;
}();

// Alg. 42 ends with a multiplication by f = 256^-1 mod q. invntt() multiplies
// by f * 2^32 instead (see its comment), stored in Montgomery form like the
// zetas, and merges it into the last layer: the sums are multiplied by
// kInvNttFactor, the differences by kInvNttFactorZeta = that factor times
// -zetas[1] (the last layer's twiddle), so each coefficient gets one
// Montgomery product there instead of two.
inline constexpr std::int32_t kInvNttFactor = to_montgomery(pow_mod(256, kQ - 2) * ((std::int64_t{1} << 32) % kQ) % kQ);
inline constexpr std::int32_t kInvNttFactorZeta = [] {
  // kInvNttFactor * -zetas[1] * 2^-32 mod q, centred.
  const std::int64_t r_inv = pow_mod((std::int64_t{1} << 32) % kQ, kQ - 2);
  std::int64_t v = (std::int64_t{kInvNttFactor} + kQ) % kQ * ((kQ - kZetas[1]) % kQ) % kQ;
  v = v * r_inv % kQ;
  return static_cast<std::int32_t>(v > kQ / 2 ? v - kQ : v);
}();

// b * q^-1 mod 2^32 as a signed word, the second factor a SIMD Montgomery
// product with a constant b needs (the low half of a * b * q^-1 directly).
constexpr std::int32_t mont_qinv_factor(std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(b) * kQInv);
}

// ---- Kernels ------------------------------------------------------------

// NTT (FIPS 204, Alg. 41), in place. Input |a| < q; output |a| < 9q.
void ntt(Poly& a) noexcept;

// NTT^-1 (Alg. 42) times the Montgomery factor 2^32, in place: applied to a
// Montgomery product (pointwise_montgomery output, which carries 2^-32) it
// gives the plain inverse transform. Input |a| < q; output |a| < q.
void invntt(Poly& a) noexcept;

// out = a o b * 2^-32 (MultiplyNTT, Alg. 45). |a * b| < 2^31 q per
// coefficient (for instance |a| < 9q, |b| < 9q); output |out| < q.
void pointwise_montgomery(Poly& out, const Poly& a, const Poly& b) noexcept;

// out = sum_j a[j] o b[j] * 2^-32, one row of the matrix-vector product
// (Alg. 48), summed exactly before one reduction. Needs
// sum_j |a[j] * b[j]| < 2^31 q per coefficient; output |out| < q.
void pointwise_acc_montgomery(Poly& out, const Poly* a, const Poly* b, std::size_t n) noexcept;

// reduce32 / freeze on every coefficient.
void poly_reduce(Poly& a) noexcept;
void poly_freeze(Poly& a) noexcept;

// ---- Fused per-coefficient steps of signing and verification --------------
//
// Portable versions; the Kernels table below has SIMD ones with identical
// results. kGamma2 is (q - 1) / 88 or (q - 1) / 32.

// Signing (Alg. 7, line 11): w <- freeze(w), w1 <- HighBits(w). Input |w| < q.
template <std::int32_t kGamma2>
void poly_highbits(Poly& w1, Poly& w) noexcept;

// Signing (Alg. 7, lines 13-14): z <- center(freeze(z + y)); all ones if some
// |z| >= bound, else 0. Input |z| < q, |y| <= gamma1.
std::int32_t poly_add_check_norm(Poly& z, const Poly& y, std::int32_t bound) noexcept;

// Signing (Alg. 7, lines 13-22): with r = freeze(w - cs2) and
// ct0' = center(freeze(ct0)), sets h to MakeHint(-ct0', r + ct0') (0 or 1),
// adds the number of ones to `count` and returns all ones if
// ||LowBits(r)|| >= gamma2 - beta or ||ct0'|| >= gamma2, else 0.
// Inputs w in [0, q), |cs2| < q, |ct0| < q.
template <std::int32_t kGamma2>
std::int32_t poly_make_hints(Poly& h, const Poly& w, const Poly& cs2, const Poly& ct0, std::int32_t beta,
                             std::int32_t& count) noexcept;

// Verification (Alg. 8, line 10): w1 <- UseHint(h, freeze(w)) (Alg. 40).
// Input |w| < q, h in {0, 1}.
template <std::int32_t kGamma2>
void poly_use_hints(Poly& w1, const Poly& w, const Poly& h) noexcept;

// RejNTTPoly (Alg. 30) after G: appends to out[0, need) the three-byte
// candidates (CoeffFromThreeBytes, Alg. 14) of buf[0, len) that are below q,
// in order, and returns how many it wrote. len is a multiple of 3. Public
// data only: the SIMD versions index a table by the accept mask.
std::size_t rej_uniform(std::int32_t* out, std::size_t need, const std::uint8_t* buf, std::size_t len) noexcept;

// BitUnpack(., gamma1 - 1, gamma1) (Alg. 19) for gamma1 = 2^kLog: 256
// coefficients of kLog + 1 bits from in[0, 32 (kLog + 1)), each
// z = gamma1 - value. kLog is 17 or 19. Used by ExpandMask (secret y) and
// sigDecode.
template <int kLog>
void unpack_gamma1(Poly& z, const std::uint8_t* in) noexcept;

// ---- Run-time dispatch -------------------------------------------------------

// One implementation of each kernel above. Every implementation gives
// bit-identical results for the same inputs (the tests check this), so the
// choice only changes speed.
struct Kernels {
  const char* name;  // "portable", "avx2", "avx512"
  // How many SHAKE instances ExpandA and friends run side by side: 8
  // (keccak_f1600_x8 on AVX-512), 4 (AVX2) or 1 (portable, where the
  // multi-way permutation is only a loop and idle ways would cost as much
  // as busy ones).
  unsigned keccak_ways;
  void (*ntt)(Poly& a) noexcept;
  void (*invntt)(Poly& a) noexcept;
  void (*pointwise_montgomery)(Poly& out, const Poly& a, const Poly& b) noexcept;
  void (*pointwise_acc_montgomery)(Poly& out, const Poly* a, const Poly* b, std::size_t n) noexcept;
  void (*poly_reduce)(Poly& a) noexcept;
  void (*poly_freeze)(Poly& a) noexcept;
  std::int32_t (*poly_add_check_norm)(Poly& z, const Poly& y, std::int32_t bound) noexcept;
  std::size_t (*rej_uniform)(std::int32_t* out, std::size_t need, const std::uint8_t* buf, std::size_t len) noexcept;
  void (*unpack_gamma1_17)(Poly& z, const std::uint8_t* in) noexcept;
  void (*unpack_gamma1_19)(Poly& z, const std::uint8_t* in) noexcept;

  template <int kLog>
  auto unpack_gamma1() const noexcept {
    static_assert(kLog == 17 || kLog == 19);
    return kLog == 17 ? unpack_gamma1_17 : unpack_gamma1_19;
  }
  // The rounding steps for one gamma2.
  struct Rounding {
    void (*highbits)(Poly& w1, Poly& w) noexcept;
    std::int32_t (*make_hints)(Poly& h, const Poly& w, const Poly& cs2, const Poly& ct0, std::int32_t beta,
                               std::int32_t& count) noexcept;
    void (*use_hints)(Poly& w1, const Poly& w, const Poly& h) noexcept;
  };
  Rounding gamma2_88;  // gamma2 = (q - 1) / 88 (ML-DSA-44)
  Rounding gamma2_32;  // gamma2 = (q - 1) / 32 (ML-DSA-65, -87)

  template <std::int32_t kGamma2>
  const Rounding& rounding() const noexcept {
    static_assert(kGamma2 == (kQ - 1) / 88 || kGamma2 == (kQ - 1) / 32);
    return kGamma2 == (kQ - 1) / 88 ? gamma2_88 : gamma2_32;
  }
};

// The kernels for what sion::base::cpu_features() reports now. Cheap (a few
// flag tests), but meant to be called once per top-level operation, not per
// kernel call.
const Kernels& kernels() noexcept;

// Each implementation, for tests: only call those the CPU has
// (portable always; avx2 with cpu.avx2; avx512 with cpu.avx512f and
// cpu.avx512vl, cpu.avx512bw, cpu.avx512dq).
extern const Kernels kPortableKernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;

// ---- Rounding (Sec. 7.4) --------------------------------------------------

struct Split {
  std::int32_t high;
  std::int32_t low;
};

// Power2Round (Alg. 35) for r in [0, q): r = high * 2^d + low with
// low in (-2^(d-1), 2^(d-1)].
constexpr Split power2round(std::int32_t r) noexcept {
  std::int32_t low = r & ((1 << kD) - 1);
  low -= (((1 << (kD - 1)) - low) >> 31) & (1 << kD);  // low > 2^(d-1): subtract 2^d
  return {(r - low) >> kD, low};
}

// Decompose (Alg. 36) for r in [0, q): r = high * 2 gamma2 + low with
// low = r mod± 2 gamma2, except that the top value high = (q-1)/(2 gamma2)
// wraps to 0 (and low drops by 1). Constant time: the division is a
// multiplication by a rounded-up reciprocal, exact for every r < 2^23 since
// its error r * (ceil(2^48 / m) - 2^48 / m) / 2^48 < 2^-25 stays below the
// smallest gap 1/m between r/m and the next integer.
template <std::int32_t kGamma2>
constexpr Split decompose(std::int32_t r) noexcept {
  static_assert((kQ - 1) % (2 * kGamma2) == 0);
  constexpr std::int32_t m = 2 * kGamma2;
  constexpr std::int32_t top = (kQ - 1) / m;
  constexpr std::uint64_t recip = ((std::uint64_t{1} << 48) + m - 1) / m;
  std::int32_t high = static_cast<std::int32_t>((static_cast<std::uint64_t>(r) * recip) >> 48);  // floor(r / m)
  std::int32_t low = r - high * m;                                                               // in [0, m)
  const std::int32_t over = (kGamma2 - low) >> 31;  // -1 if low > gamma2: centre it
  low -= over & m;
  high -= over;
  const std::int32_t wrap = ((high ^ top) - 1) >> 31;  // -1 if high == top (r - low = q - 1)
  high &= ~wrap;
  low += wrap;
  return {high, low};
}

}  // namespace sion::crypto::mldsa::detail
