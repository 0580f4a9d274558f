// Portable kernels of sion/crypto/detail/mldsa_poly.hpp (FIPS 204, Sec. 7.5).

#include "sion/crypto/detail/mldsa_poly.hpp"

namespace sion::crypto::mldsa::detail {
namespace {

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
constexpr std::array<std::int32_t, kN> kZetas = [] {
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
// zetas.
constexpr std::int32_t kInvNttFactor =
    to_montgomery(pow_mod(256, kQ - 2) * ((std::int64_t{1} << 32) % kQ) % kQ);

}  // namespace

void ntt(Poly& a) noexcept {
  // Alg. 41. Each layer adds less than q to the bound (the Montgomery product
  // t is below q), so |a| < q grows to < 9q after the eight layers.
  std::size_t m = 0;
  for (std::size_t len = 128; len >= 1; len >>= 1) {
    for (std::size_t start = 0; start < kN; start += 2 * len) {
      const std::int64_t zeta = kZetas[++m];
      for (std::size_t j = start; j < start + len; ++j) {
        const std::int32_t t = montgomery_reduce(zeta * a.c[j + len]);
        a.c[j + len] = a.c[j] - t;
        a.c[j] = a.c[j] + t;
      }
    }
  }
}

void invntt(Poly& a) noexcept {
  // Alg. 42. The sums double the bound each layer: |a| < q becomes
  // < 2^8 q < 2^31 after the last one, so no intermediate reduction is needed;
  // the differences are brought below q by the Montgomery product.
  std::size_t m = kN;
  for (std::size_t len = 1; len < kN; len <<= 1) {
    for (std::size_t start = 0; start < kN; start += 2 * len) {
      const std::int64_t zeta = -kZetas[--m];
      for (std::size_t j = start; j < start + len; ++j) {
        const std::int32_t t = a.c[j];
        a.c[j] = t + a.c[j + len];
        a.c[j + len] = montgomery_reduce(zeta * (t - a.c[j + len]));
      }
    }
  }
  for (auto& x : a.c) x = montgomery_reduce(std::int64_t{kInvNttFactor} * x);
}

void pointwise_montgomery(Poly& out, const Poly& a, const Poly& b) noexcept {
  for (std::size_t i = 0; i < kN; ++i) {
    out.c[i] = montgomery_reduce(std::int64_t{a.c[i]} * b.c[i]);
  }
}

void pointwise_acc_montgomery(Poly& out, const Poly* a, const Poly* b, std::size_t n) noexcept {
  for (std::size_t i = 0; i < kN; ++i) {
    std::int64_t acc = 0;
    for (std::size_t j = 0; j < n; ++j) acc += std::int64_t{a[j].c[i]} * b[j].c[i];
    out.c[i] = montgomery_reduce(acc);
  }
}

void poly_reduce(Poly& a) noexcept {
  for (auto& x : a.c) x = reduce32(x);
}

void poly_freeze(Poly& a) noexcept {
  for (auto& x : a.c) x = freeze(x);
}

}  // namespace sion::crypto::mldsa::detail
