// Portable kernels of sion/crypto/detail/mldsa_poly.hpp (FIPS 204, Sec. 7.5).

#include "sion/crypto/detail/mldsa_poly.hpp"

#include "sion/base/cpu.hpp"

namespace sion::crypto::mldsa::detail {

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
  // The last layer (len = 128) also multiplies by the final factor; see
  // kInvNttFactorZeta.
  std::size_t m = kN;
  for (std::size_t len = 1; len < kN / 2; len <<= 1) {
    for (std::size_t start = 0; start < kN; start += 2 * len) {
      const std::int64_t zeta = -kZetas[--m];
      for (std::size_t j = start; j < start + len; ++j) {
        const std::int32_t t = a.c[j];
        a.c[j] = t + a.c[j + len];
        a.c[j + len] = montgomery_reduce(zeta * (t - a.c[j + len]));
      }
    }
  }
  for (std::size_t j = 0; j < kN / 2; ++j) {
    const std::int32_t t = a.c[j];
    a.c[j] = montgomery_reduce(std::int64_t{kInvNttFactor} * (t + a.c[j + kN / 2]));
    a.c[j + kN / 2] = montgomery_reduce(std::int64_t{kInvNttFactorZeta} * (t - a.c[j + kN / 2]));
  }
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

template <std::int32_t kGamma2>
void poly_highbits(Poly& w1, Poly& w) noexcept {
  for (std::size_t i = 0; i < kN; ++i) {
    w.c[i] = freeze(w.c[i]);
    w1.c[i] = decompose<kGamma2>(w.c[i]).high;
  }
}

std::int32_t poly_add_check_norm(Poly& z, const Poly& y, std::int32_t bound) noexcept {
  std::int32_t reject = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    const std::int32_t v = center(freeze(z.c[i] + y.c[i]));
    z.c[i] = v;
    reject |= (bound - 1 - abs_ct(v)) >> 31;
  }
  return reject;
}

template <std::int32_t kGamma2>
std::int32_t poly_make_hints(Poly& h, const Poly& w, const Poly& cs2, const Poly& ct0, std::int32_t beta,
                             std::int32_t& count) noexcept {
  std::int32_t reject = 0;
  std::int32_t hints = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    const std::int32_t r = freeze(w.c[i] - cs2.c[i]);
    const Split r_parts = decompose<kGamma2>(r);
    reject |= (kGamma2 - beta - 1 - abs_ct(r_parts.low)) >> 31;
    const std::int32_t ct0_c = center(freeze(ct0.c[i]));
    reject |= (kGamma2 - 1 - abs_ct(ct0_c)) >> 31;
    // Whether HighBits of r + <<c t0>> and of r differ.
    const std::int32_t diff = decompose<kGamma2>(freeze(r + ct0_c)).high ^ r_parts.high;
    const auto hint = static_cast<std::int32_t>(static_cast<std::uint32_t>(diff | -diff) >> 31);
    h.c[i] = hint;
    hints += hint;
  }
  count += hints;
  return reject;
}

template <std::int32_t kGamma2>
void poly_use_hints(Poly& w1, const Poly& w, const Poly& h) noexcept {
  constexpr std::int32_t m = (kQ - 1) / (2 * kGamma2);
  for (std::size_t i = 0; i < kN; ++i) {
    const Split parts = decompose<kGamma2>(freeze(w.c[i]));
    // high + 1 if low > 0, else high - 1, where h = 1; then mod m.
    const std::int32_t up = (-parts.low) >> 31;  // -1 if low > 0
    const std::int32_t delta = -(up | 1);        // +1 if low > 0, else -1
    std::int32_t v = parts.high + (delta & -h.c[i]);
    v += (v >> 31) & m;
    v -= ((m - 1 - v) >> 31) & m;
    w1.c[i] = v;
  }
}

template void poly_highbits<(kQ - 1) / 88>(Poly&, Poly&) noexcept;
template void poly_highbits<(kQ - 1) / 32>(Poly&, Poly&) noexcept;
template std::int32_t poly_make_hints<(kQ - 1) / 88>(Poly&, const Poly&, const Poly&, const Poly&, std::int32_t,
                                                     std::int32_t&) noexcept;
template std::int32_t poly_make_hints<(kQ - 1) / 32>(Poly&, const Poly&, const Poly&, const Poly&, std::int32_t,
                                                     std::int32_t&) noexcept;
template void poly_use_hints<(kQ - 1) / 88>(Poly&, const Poly&, const Poly&) noexcept;
template void poly_use_hints<(kQ - 1) / 32>(Poly&, const Poly&, const Poly&) noexcept;

std::size_t rej_uniform(std::int32_t* out, std::size_t need, const std::uint8_t* buf, std::size_t len) noexcept {
  std::size_t n = 0;
  for (std::size_t pos = 0; pos + 3 <= len && n < need; pos += 3) {
    const std::uint32_t z =
        std::uint32_t{buf[pos]} | (std::uint32_t{buf[pos + 1]} << 8) | (std::uint32_t{buf[pos + 2] & 0x7fU} << 16);
    if (z < static_cast<std::uint32_t>(kQ)) out[n++] = static_cast<std::int32_t>(z);
  }
  return n;
}

template <int kLog>
void unpack_gamma1(Poly& z, const std::uint8_t* in) noexcept {
  constexpr unsigned bits = kLog + 1;
  constexpr std::uint32_t mask = (std::uint32_t{1} << bits) - 1;
  std::uint64_t acc = 0;
  unsigned have = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    for (; have < bits; have += 8) acc |= std::uint64_t{*in++} << have;
    z.c[i] = (1 << kLog) - static_cast<std::int32_t>(acc & mask);
    acc >>= bits;
    have -= bits;
  }
}

template void unpack_gamma1<17>(Poly&, const std::uint8_t*) noexcept;
template void unpack_gamma1<19>(Poly&, const std::uint8_t*) noexcept;

const Kernels kPortableKernels = {
    "portable",
    1,
    &ntt,
    &invntt,
    &pointwise_montgomery,
    &pointwise_acc_montgomery,
    &poly_reduce,
    &poly_freeze,
    &poly_add_check_norm,
    &rej_uniform,
    &unpack_gamma1<17>,
    &unpack_gamma1<19>,
    {&poly_highbits<(kQ - 1) / 88>, &poly_make_hints<(kQ - 1) / 88>, &poly_use_hints<(kQ - 1) / 88>},
    {&poly_highbits<(kQ - 1) / 32>, &poly_make_hints<(kQ - 1) / 32>, &poly_use_hints<(kQ - 1) / 32>},
};

const Kernels& kernels() noexcept {
  const base::CpuFeatures& cpu = base::cpu_features();
  if (cpu.avx512f && cpu.avx512vl && cpu.avx512bw && cpu.avx512dq) return kAvx512Kernels;
  if (cpu.avx2) return kAvx2Kernels;
  return kPortableKernels;
}

}  // namespace sion::crypto::mldsa::detail
