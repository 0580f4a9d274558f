// The SIMD kernels of detail/mldsa_poly.hpp against the portable ones on
// random and extreme inputs (they must agree bit for bit), and ML-DSA as a
// whole across dispatch paths: keys and deterministic signatures made on
// one path equal those of every other, and verify there.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "cpu_paths.hpp"
#include "sion/base/cpu.hpp"
#include "sion/crypto/detail/mldsa_poly.hpp"
#include "sion/crypto/mldsa.hpp"

namespace sion::crypto::mldsa {
namespace {

using detail::Kernels;
using detail::kN;
using detail::kQ;
using detail::Poly;

// The SIMD kernel sets this CPU can run.
std::vector<const Kernels*> simd_kernels() {
  const base::CpuFeatures cpu = base::detect_cpu_features();
  std::vector<const Kernels*> out;
  if (cpu.avx2) out.push_back(&detail::kAvx2Kernels);
  if (cpu.avx512f && cpu.avx512vl && cpu.avx512bw && cpu.avx512dq) {
    out.push_back(&detail::kAvx512Kernels);
  }
  return out;
}

// Coefficients uniform in (-bound, bound), with the extremes and zero
// planted at a few random places.
Poly random_poly(std::mt19937_64& rng, std::int32_t bound) {
  Poly p;
  const auto span = static_cast<std::uint64_t>(2 * static_cast<std::int64_t>(bound) - 1);
  for (auto& x : p.c) x = static_cast<std::int32_t>(static_cast<std::int64_t>(rng() % span) - (bound - 1));
  for (int i = 0; i < 8; ++i) {
    p.c[rng() % kN] = bound - 1;
    p.c[rng() % kN] = -(bound - 1);
    p.c[rng() % kN] = 0;
  }
  return p;
}

Poly constant_poly(std::int32_t v) {
  Poly p;
  p.c.fill(v);
  return p;
}

TEST(MlDsaSimdKernels, DispatchFollowsCpuFeatures) {
  {
    testing::ScopedCpuFeatures cpu(base::CpuFeatures{});
    EXPECT_EQ(&detail::kernels(), &detail::kPortableKernels);
  }
  for (const auto& path : testing::cpu_paths()) {
    testing::ScopedCpuFeatures cpu(path.features);
    EXPECT_EQ(std::string(detail::kernels().name), path.name);
  }
}

TEST(MlDsaSimdKernels, NttMatchesPortable) {
  const Kernels& ref = detail::kPortableKernels;
  std::mt19937_64 rng(21);
  for (const Kernels* k : simd_kernels()) {
    SCOPED_TRACE(k->name);
    std::vector<Poly> inputs = {constant_poly(kQ - 1), constant_poly(-(kQ - 1)), constant_poly(0)};
    for (int i = 0; i < 200; ++i) inputs.push_back(random_poly(rng, kQ));  // |a| < q
    for (const Poly& in : inputs) {
      Poly want = in;
      Poly got = in;
      ref.ntt(want);
      k->ntt(got);
      ASSERT_EQ(got.c, want.c);
    }
  }
}

TEST(MlDsaSimdKernels, InvNttMatchesPortable) {
  const Kernels& ref = detail::kPortableKernels;
  std::mt19937_64 rng(22);
  for (const Kernels* k : simd_kernels()) {
    SCOPED_TRACE(k->name);
    std::vector<Poly> inputs = {constant_poly(kQ - 1), constant_poly(-(kQ - 1)), constant_poly(0)};
    // Alternating extremes make the sums and differences of every layer as
    // large as the documented input range allows.
    Poly alternating;
    for (std::size_t i = 0; i < kN; ++i) alternating.c[i] = (i % 2 == 0) ? kQ - 1 : -(kQ - 1);
    inputs.push_back(alternating);
    for (int i = 0; i < 200; ++i) inputs.push_back(random_poly(rng, kQ));
    for (const Poly& in : inputs) {
      Poly want = in;
      Poly got = in;
      ref.invntt(want);
      k->invntt(got);
      ASSERT_EQ(got.c, want.c);
      for (const std::int32_t x : got.c) ASSERT_LT(detail::abs_ct(x), kQ);
    }
  }
}

TEST(MlDsaSimdKernels, NttRoundTripIsIdentityTimesMontgomeryFactor) {
  // invntt(ntt(a)) = a * 2^32 (mod q) on every path.
  std::mt19937_64 rng(23);
  std::vector<const Kernels*> all = simd_kernels();
  all.push_back(&detail::kPortableKernels);
  for (const Kernels* k : all) {
    SCOPED_TRACE(k->name);
    const Poly a = random_poly(rng, kQ);
    Poly b = a;
    k->ntt(b);
    k->poly_reduce(b);
    k->invntt(b);
    k->poly_freeze(b);
    const std::int64_t r = (std::int64_t{1} << 32) % kQ;
    for (std::size_t i = 0; i < kN; ++i) {
      const std::int64_t want = ((std::int64_t{a.c[i]} * r) % kQ + kQ) % kQ;
      ASSERT_EQ(b.c[i], want) << i;
    }
  }
}

TEST(MlDsaSimdKernels, PointwiseAndReductionsMatchPortable) {
  const Kernels& ref = detail::kPortableKernels;
  std::mt19937_64 rng(24);
  for (const Kernels* k : simd_kernels()) {
    SCOPED_TRACE(k->name);
    for (int trial = 0; trial < 100; ++trial) {
      // NTT outputs: |a| < 9q.
      Poly a[8];
      Poly b[8];
      for (auto& p : a) p = random_poly(rng, 9 * kQ);
      for (auto& p : b) p = random_poly(rng, 9 * kQ);
      if (trial == 0) {
        for (auto& p : a) p = constant_poly(9 * kQ - 1);
        for (auto& p : b) p = constant_poly(-(9 * kQ - 1));
      }
      Poly want;
      Poly got;
      ref.pointwise_montgomery(want, a[0], b[0]);
      k->pointwise_montgomery(got, a[0], b[0]);
      ASSERT_EQ(got.c, want.c);
      for (std::size_t n : {std::size_t{1}, std::size_t{4}, std::size_t{5}, std::size_t{7}}) {
        // sum_j |a_j b_j| < 2^31 q needs smaller factors for longer sums.
        Poly small_a[8];
        for (std::size_t j = 0; j < n; ++j) {
          small_a[j] = n == 1 ? a[j] : random_poly(rng, kQ);
        }
        ref.pointwise_acc_montgomery(want, small_a, b, n);
        k->pointwise_acc_montgomery(got, small_a, b, n);
        ASSERT_EQ(got.c, want.c) << n;
      }
      // Reductions anywhere in |a| < 2^31 - 2^22.
      Poly r = random_poly(rng, (1 << 30) + (1 << 29) + (1 << 28) + (1 << 27) + (1 << 26));
      want = r;
      got = r;
      ref.poly_reduce(want);
      k->poly_reduce(got);
      ASSERT_EQ(got.c, want.c);
      want = r;
      got = r;
      ref.poly_freeze(want);
      k->poly_freeze(got);
      ASSERT_EQ(got.c, want.c);
    }
  }
}

// HighBits and UseHint for every w in [0, q) (and the same shifted by -q),
// both gamma2, against the portable kernels.
template <std::int32_t kGamma2>
void check_rounding_exhaustively(const Kernels& k) {
  const Kernels::Rounding& simd = k.rounding<kGamma2>();
  const Kernels::Rounding& ref = detail::kPortableKernels.rounding<kGamma2>();
  std::mt19937_64 rng(26);
  for (std::int32_t start = -kQ + 1; start < kQ; start += static_cast<std::int32_t>(kN)) {
    Poly w;
    Poly h;
    for (std::size_t i = 0; i < kN; ++i) {
      w.c[i] = std::min(start + static_cast<std::int32_t>(i), kQ - 1);
      h.c[i] = static_cast<std::int32_t>(rng() & 1);
    }
    Poly want_w = w, got_w = w, want_w1, got_w1;
    if (start >= 0) {  // highbits takes |w| < q too, but signing only has [0, q)
      ref.highbits(want_w1, want_w);
      simd.highbits(got_w1, got_w);
      ASSERT_EQ(got_w.c, want_w.c) << start;
      ASSERT_EQ(got_w1.c, want_w1.c) << start;
    }
    ref.use_hints(want_w1, w, h);
    simd.use_hints(got_w1, w, h);
    ASSERT_EQ(got_w1.c, want_w1.c) << start;
  }
}

TEST(MlDsaSimdKernels, RoundingMatchesPortableForEveryValue) {
  for (const Kernels* k : simd_kernels()) {
    SCOPED_TRACE(k->name);
    check_rounding_exhaustively<(kQ - 1) / 88>(*k);
    check_rounding_exhaustively<(kQ - 1) / 32>(*k);
  }
}

template <std::int32_t kGamma2>
void check_make_hints(const Kernels& k, std::mt19937_64& rng) {
  for (const std::int32_t beta : {78, 120, 196}) {
    for (int trial = 0; trial < 300; ++trial) {
      Poly w = random_poly(rng, kQ);
      for (auto& x : w.c) x = detail::freeze(x);  // [0, q)
      // Small cs2 and ct0 (as in honest signing) make some attempts pass;
      // full-range ones exercise the rejections.
      const std::int32_t bound = trial % 3 == 0 ? kQ : trial % 3 == 1 ? 400 : kGamma2 + 300;
      const Poly cs2 = random_poly(rng, std::min(bound, kQ));
      const Poly ct0 = random_poly(rng, std::min(bound, kQ));
      Poly want_h, got_h;
      std::int32_t want_count = 5, got_count = 5;
      const std::int32_t want =
          detail::kPortableKernels.rounding<kGamma2>().make_hints(want_h, w, cs2, ct0, beta, want_count);
      const std::int32_t got = k.rounding<kGamma2>().make_hints(got_h, w, cs2, ct0, beta, got_count);
      ASSERT_EQ(got, want);
      ASSERT_EQ(got_count, want_count);
      ASSERT_EQ(got_h.c, want_h.c);
    }
  }
}

TEST(MlDsaSimdKernels, SigningChecksMatchPortable) {
  std::mt19937_64 rng(27);
  for (const Kernels* k : simd_kernels()) {
    SCOPED_TRACE(k->name);
    check_make_hints<(kQ - 1) / 88>(*k, rng);
    check_make_hints<(kQ - 1) / 32>(*k, rng);
    for (const std::int32_t gamma1 : {1 << 17, 1 << 19}) {
      for (int trial = 0; trial < 300; ++trial) {
        const Poly z = random_poly(rng, trial % 2 == 0 ? kQ : 1000);
        const Poly y = random_poly(rng, gamma1 + 1);
        Poly want_z = z, got_z = z;
        const std::int32_t bound = gamma1 - 78;
        const std::int32_t want = detail::kPortableKernels.poly_add_check_norm(want_z, y, bound);
        const std::int32_t got = k->poly_add_check_norm(got_z, y, bound);
        ASSERT_EQ(got, want);
        ASSERT_EQ(got_z.c, want_z.c);
      }
    }
  }
}

TEST(MlDsaSimdKernels, RejUniformMatchesPortable) {
  std::mt19937_64 rng(28);
  for (const Kernels* k : simd_kernels()) {
    SCOPED_TRACE(k->name);
    for (int trial = 0; trial < 500; ++trial) {
      std::vector<std::uint8_t> buf(5 * 168);
      for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
      // Many rejections in some trials: top bits set where bit 23 is masked.
      if (trial % 4 == 0) {
        for (std::size_t i = 2; i < buf.size(); i += 3) buf[i] |= 0x7f;
      }
      const std::size_t need = trial % 5 == 0 ? kN : 1 + rng() % kN;
      const std::size_t len = 3 * (rng() % (buf.size() / 3 + 1));
      std::vector<std::int32_t> want(kN, -1), got(kN, -1);
      const std::size_t n_want = detail::kPortableKernels.rej_uniform(want.data(), need, buf.data(), len);
      const std::size_t n_got = k->rej_uniform(got.data(), need, buf.data(), len);
      ASSERT_EQ(n_got, n_want);
      ASSERT_LE(n_got, need);
      for (std::size_t i = 0; i < n_got; ++i) ASSERT_EQ(got[i], want[i]) << i;
      // Nothing beyond `need` is written.
      for (std::size_t i = need; i < kN; ++i) ASSERT_EQ(got[i], -1) << i;
    }
  }
}

TEST(MlDsaSimdKernels, UnpackGamma1MatchesPortable) {
  std::mt19937_64 rng(29);
  for (const Kernels* k : simd_kernels()) {
    SCOPED_TRACE(k->name);
    for (int trial = 0; trial < 200; ++trial) {
      // Exactly the encoding (32 * 18 or 32 * 20 bytes) on the heap, so
      // that a read past its end would be caught by the sanitizers.
      for (const int log : {17, 19}) {
        std::vector<std::uint8_t> in(static_cast<std::size_t>(32 * (log + 1)));
        for (auto& b : in) b = static_cast<std::uint8_t>(rng());
        if (trial == 0) std::fill(in.begin(), in.end(), 0xff);
        Poly want, got;
        (log == 17 ? detail::kPortableKernels.unpack_gamma1_17 : detail::kPortableKernels.unpack_gamma1_19)(want,
                                                                                                            in.data());
        (log == 17 ? k->unpack_gamma1_17 : k->unpack_gamma1_19)(got, in.data());
        ASSERT_EQ(got.c, want.c) << log;
      }
    }
  }
}

// ---- Whole scheme across paths ------------------------------------------------

TEST(MlDsaSimdPaths, KeysAndSignaturesAgreeAcrossPaths) {
  const auto paths = testing::cpu_paths();
  std::mt19937_64 rng(25);
  for (const Level level : {Level::k44, Level::k65, Level::k87}) {
    for (int trial = 0; trial < 8; ++trial) {
      Seed seed;
      for (auto& b : seed) b = static_cast<std::uint8_t>(rng());
      Rnd rnd;
      for (auto& b : rnd) b = static_cast<std::uint8_t>(rng());
      std::vector<std::uint8_t> msg(static_cast<std::size_t>(rng() % 200));
      for (auto& b : msg) b = static_cast<std::uint8_t>(rng());
      base::Bytes first_pk;
      base::Bytes first_sig;
      for (const auto& path : paths) {
        SCOPED_TRACE(path.name + " " + level_name(level));
        testing::ScopedCpuFeatures cpu(path.features);
        const KeyPair keys = keygen(level, seed);
        auto sig = sign(keys.secret_key, msg, {}, rnd);
        ASSERT_TRUE(sig.ok());
        if (first_pk.empty()) {
          first_pk = keys.public_key;
          first_sig = *sig;
        }
        EXPECT_EQ(keys.public_key, first_pk);
        EXPECT_EQ(*sig, first_sig);
        // Every path accepts it, and rejects a flipped bit.
        for (const auto& other : paths) {
          testing::ScopedCpuFeatures cpu2(other.features);
          EXPECT_TRUE(verify(level, first_pk, msg, {}, *sig)) << other.name;
          base::Bytes bad = *sig;
          bad[static_cast<std::size_t>(rng() % bad.size())] ^= 0x10;
          EXPECT_FALSE(verify(level, first_pk, msg, {}, bad)) << other.name;
        }
      }
    }
  }
}

// Verification hashes tr, mu and c in one multi-way job scheduler; mu's
// input (tr || 0 || |ctx| || ctx || M) crosses the SHAKE256 block size at
// many places for these lengths. Signing computes mu the ordinary way, so
// every path accepting exactly the right messages checks the scheduler.
TEST(MlDsaSimdPaths, VerifyHashesMessagesOfEveryShape) {
  std::mt19937_64 rng(30);
  Seed seed;
  for (auto& b : seed) b = static_cast<std::uint8_t>(rng());
  const KeyPair keys = keygen(Level::k44, seed);
  for (const std::size_t ctx_len : {std::size_t{0}, std::size_t{4}, std::size_t{255}}) {
    for (const int len : {0, 1, 69, 70, 71, 135, 136, 137, 206, 272, 273, 1000}) {
      const auto msg_len = static_cast<std::size_t>(len);
      std::vector<std::uint8_t> ctx(ctx_len), msg(msg_len);
      for (auto& b : ctx) b = static_cast<std::uint8_t>(rng());
      for (auto& b : msg) b = static_cast<std::uint8_t>(rng());
      auto sig = sign_deterministic(keys.secret_key, msg, ctx);
      ASSERT_TRUE(sig.ok());
      for (const auto& path : testing::cpu_paths()) {
        testing::ScopedCpuFeatures cpu(path.features);
        EXPECT_TRUE(verify(Level::k44, keys.public_key, msg, ctx, *sig))
            << path.name << " ctx " << ctx_len << " msg " << msg_len;
        std::vector<std::uint8_t> other = msg;
        other.push_back(0);
        EXPECT_FALSE(verify(Level::k44, keys.public_key, other, ctx, *sig)) << path.name;
        auto mu = external_mu(Level::k44, keys.public_key, msg, ctx);
        ASSERT_TRUE(mu.ok());
        EXPECT_TRUE(verify_mu(Level::k44, keys.public_key, *mu, *sig)) << path.name;
      }
    }
  }
}

}  // namespace
}  // namespace sion::crypto::mldsa
