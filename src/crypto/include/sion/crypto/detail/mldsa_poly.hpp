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

struct alignas(32) Poly {
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
constexpr std::int32_t center(std::int32_t a) noexcept {
  return a - (((((kQ - 1) / 2) - a) >> 31) & kQ);
}

// |a| for a in (-2^31, 2^31), without a branch.
constexpr std::int32_t abs_ct(std::int32_t a) noexcept {
  const std::int32_t sign = a >> 31;
  return (a ^ sign) - sign;
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
  std::int32_t high =
      static_cast<std::int32_t>((static_cast<std::uint64_t>(r) * recip) >> 48);  // floor(r / m)
  std::int32_t low = r - high * m;                                              // in [0, m)
  const std::int32_t over = (kGamma2 - low) >> 31;  // -1 if low > gamma2: centre it
  low -= over & m;
  high -= over;
  const std::int32_t wrap = ((high ^ top) - 1) >> 31;  // -1 if high == top (r - low = q - 1)
  high &= ~wrap;
  low += wrap;
  return {high, low};
}

}  // namespace sion::crypto::mldsa::detail
