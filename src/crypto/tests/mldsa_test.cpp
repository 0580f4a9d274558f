// ML-DSA unit tests: the arithmetic against direct definitions, round trips,
// and the rejection of every class of malformed input. The conformance
// vectors are in mldsa_vectors_test.cpp.

#include "sion/crypto/mldsa.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "random_input.hpp"
#include "sion/crypto/detail/mldsa_poly.hpp"

namespace sion::crypto::mldsa {
namespace {

using base::Bytes;
using detail::kN;
using detail::kQ;
using detail::Poly;
using testing::random_array;
using testing::random_bytes;

constexpr Level kLevels[] = {Level::k44, Level::k65, Level::k87};

// Per-level constants the tests need (FIPS 204, Table 1).
struct Shape {
  std::size_t k, l, omega, c_tilde_bytes, z_bits, eta_bits;
  std::int32_t eta, gamma1, beta;
};
Shape shape(Level level) {
  switch (level) {
    case Level::k44: return {4, 4, 80, 32, 18, 3, 2, 1 << 17, 78};
    case Level::k65: return {6, 5, 55, 48, 20, 4, 4, 1 << 19, 196};
    case Level::k87: return {8, 7, 75, 64, 20, 3, 2, 1 << 19, 120};
  }
  return {};
}

std::int32_t mod_q(std::int64_t a) {
  const auto r = static_cast<std::int32_t>(a % kQ);
  return r < 0 ? r + kQ : r;
}

// ---- Arithmetic ---------------------------------------------------------------

TEST(MlDsaArithmetic, MontgomeryAndReductions) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100000; ++i) {
    // Anywhere in the documented input range |a| < 2^31 q.
    const auto a = static_cast<std::int64_t>(rng() % (std::uint64_t{kQ} << 32)) - (std::int64_t{kQ} << 31);
    const std::int32_t r = detail::montgomery_reduce(a);
    ASSERT_LT(detail::abs_ct(r), kQ);
    // r * 2^32 = a (mod q)
    ASSERT_EQ(mod_q(std::int64_t{r} * (std::int64_t{1} << 32) % kQ), mod_q(a));
    const auto b = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng())) / 2;
    ASSERT_EQ(detail::freeze(b), mod_q(b));
    ASSERT_LT(detail::abs_ct(detail::reduce32(b)), kQ);
  }
  for (std::int32_t a = 0; a < kQ; a += 997) {
    const std::int32_t c = detail::center(a);
    ASSERT_LE(detail::abs_ct(c), (kQ - 1) / 2);
    ASSERT_EQ(mod_q(c), a);
  }
}

// Decompose and Power2Round against Alg. 35 and 36 written with % and ifs,
// for every r in [0, q).
template <std::int32_t kGamma2>
void check_decompose_exhaustively() {
  for (std::int32_t r = 0; r < kQ; ++r) {
    std::int32_t r0 = r % (2 * kGamma2);
    if (r0 > kGamma2) r0 -= 2 * kGamma2;
    std::int32_t r1 = 0;
    if (r - r0 == kQ - 1) {
      r0 -= 1;
    } else {
      r1 = (r - r0) / (2 * kGamma2);
    }
    const detail::Split got = detail::decompose<kGamma2>(r);
    ASSERT_EQ(got.high, r1) << r;
    ASSERT_EQ(got.low, r0) << r;
  }
}

TEST(MlDsaArithmetic, DecomposeMatchesDefinitionForEveryValue) {
  check_decompose_exhaustively<(kQ - 1) / 88>();
  check_decompose_exhaustively<(kQ - 1) / 32>();
}

TEST(MlDsaArithmetic, Power2RoundMatchesDefinitionForEveryValue) {
  for (std::int32_t r = 0; r < kQ; ++r) {
    std::int32_t r0 = r % (1 << detail::kD);
    if (r0 > (1 << (detail::kD - 1))) r0 -= 1 << detail::kD;
    const detail::Split got = detail::power2round(r);
    ASSERT_EQ(got.low, r0) << r;
    ASSERT_EQ(got.high, (r - r0) >> detail::kD) << r;
  }
}

// Multiplication in R_q = Z_q[X]/(X^256 + 1), by the schoolbook method.
Poly negacyclic_product(const Poly& a, const Poly& b) {
  std::int64_t acc[kN] = {};
  for (std::size_t i = 0; i < kN; ++i) {
    for (std::size_t j = 0; j < kN; ++j) {
      const std::int64_t p = std::int64_t{a.c[i]} * b.c[j] % kQ;
      if (i + j < kN) {
        acc[i + j] += p;
      } else {
        acc[i + j - kN] -= p;
      }
    }
  }
  Poly out;
  for (std::size_t i = 0; i < kN; ++i) out.c[i] = mod_q(acc[i]);
  return out;
}

TEST(MlDsaArithmetic, NttProductMatchesSchoolbook) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 20; ++trial) {
    Poly a;
    Poly b;
    // Inputs anywhere in the documented range |a| < q.
    for (auto& x : a.c) x = static_cast<std::int32_t>(rng() % (2 * kQ - 1)) - (kQ - 1);
    for (auto& x : b.c) x = static_cast<std::int32_t>(rng() % (2 * kQ - 1)) - (kQ - 1);
    const Poly expected = negacyclic_product(a, b);
    Poly a_hat = a;
    Poly b_hat = b;
    detail::ntt(a_hat);
    detail::ntt(b_hat);
    for (std::size_t i = 0; i < kN; ++i) {
      ASSERT_LT(detail::abs_ct(a_hat.c[i]), 9 * kQ);
    }
    Poly product;
    detail::pointwise_montgomery(product, a_hat, b_hat);
    detail::invntt(product);
    for (std::size_t i = 0; i < kN; ++i) ASSERT_LT(detail::abs_ct(product.c[i]), kQ);
    detail::poly_freeze(product);
    EXPECT_EQ(product.c, expected.c) << trial;

    // The accumulating kernel equals the sum of single products.
    Poly pair_a[2] = {a_hat, b_hat};
    Poly pair_b[2] = {b_hat, b_hat};
    Poly sum;
    detail::pointwise_acc_montgomery(sum, pair_a, pair_b, 2);
    detail::invntt(sum);
    detail::poly_freeze(sum);
    const Poly bb = negacyclic_product(b, b);
    for (std::size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(sum.c[i], mod_q(std::int64_t{expected.c[i]} + bb.c[i]));
    }
  }
}

// ---- API ----------------------------------------------------------------------

TEST(MlDsa, SizesMatchKeygenOutput) {
  for (const Level level : kLevels) {
    const KeyPair keys = keygen(level, Seed{});
    EXPECT_EQ(keys.public_key.size(), sizes(level).public_key);
    EXPECT_EQ(keys.secret_key.bytes().size(), sizes(level).secret_key);
    EXPECT_EQ(keys.secret_key.level(), level);
    const auto sig = sign_deterministic(keys.secret_key, {}, {});
    ASSERT_TRUE(sig.ok());
    EXPECT_EQ(sig->size(), sizes(level).signature);
  }
  EXPECT_STREQ(level_name(Level::k65), "ML-DSA-65");
}

TEST(MlDsa, RoundTripAndTamperingPerLevel) {
  std::mt19937_64 rng(3);
  for (const Level level : kLevels) {
    SCOPED_TRACE(level_name(level));
    for (int trial = 0; trial < 8; ++trial) {
      const KeyPair keys = keygen(level, random_array<kSeedBytes>(rng));
      const Bytes msg = random_bytes(rng, rng() % 300);
      const Bytes ctx = random_bytes(rng, trial == 0 ? 255 : rng() % 40);
      const auto sig = sign(keys.secret_key, msg, ctx, random_array<kRndBytes>(rng));
      ASSERT_TRUE(sig.ok());
      EXPECT_TRUE(verify(level, keys.public_key, msg, ctx, *sig));

      Bytes bad_sig = *sig;
      bad_sig[rng() % bad_sig.size()] ^= static_cast<std::uint8_t>(1U << (rng() % 8));
      EXPECT_FALSE(verify(level, keys.public_key, msg, ctx, bad_sig));

      Bytes bad_msg = msg;
      bad_msg.push_back(0);
      EXPECT_FALSE(verify(level, keys.public_key, bad_msg, ctx, *sig));

      Bytes bad_ctx = ctx;
      if (bad_ctx.empty()) {
        bad_ctx.push_back(0);
      } else {
        bad_ctx[0] ^= 1;
      }
      EXPECT_FALSE(verify(level, keys.public_key, msg, bad_ctx, *sig));

      Bytes bad_pk = keys.public_key;
      bad_pk[rng() % bad_pk.size()] ^= 0x10;
      EXPECT_FALSE(verify(level, bad_pk, msg, ctx, *sig));

      // The signature is not a HashML-DSA or internal signature of msg.
      EXPECT_FALSE(hash_verify(level, keys.public_key, msg, ctx, PreHash::sha2_512, *sig));
      EXPECT_FALSE(verify_internal(level, keys.public_key, msg, *sig));
    }
  }
}

TEST(MlDsa, InterfacesAgree) {
  std::mt19937_64 rng(4);
  for (const Level level : kLevels) {
    SCOPED_TRACE(level_name(level));
    const KeyPair keys = keygen(level, random_array<kSeedBytes>(rng));
    const Bytes msg = random_bytes(rng, 100);
    const Bytes ctx = random_bytes(rng, 9);
    const Rnd rnd = random_array<kRndBytes>(rng);

    // Deterministic signing is signing with rnd = 0^32, and is repeatable.
    const auto det = sign_deterministic(keys.secret_key, msg, ctx);
    ASSERT_TRUE(det.ok());
    EXPECT_EQ(*det, *sign(keys.secret_key, msg, ctx, Rnd{}));
    EXPECT_EQ(*det, *sign_deterministic(keys.secret_key, msg, ctx));
    // Hedged signing differs from it.
    const auto hedged = sign(keys.secret_key, msg, ctx, rnd);
    ASSERT_TRUE(hedged.ok());
    EXPECT_NE(*hedged, *det);

    // Sign = Sign_internal on M' = 0 || |ctx| || ctx || M = sign_mu(external_mu).
    Bytes m_prime = {0, static_cast<std::uint8_t>(ctx.size())};
    m_prime.insert(m_prime.end(), ctx.begin(), ctx.end());
    m_prime.insert(m_prime.end(), msg.begin(), msg.end());
    EXPECT_EQ(*sign_internal(keys.secret_key, m_prime, rnd), *hedged);
    const auto mu = external_mu(level, keys.public_key, msg, ctx);
    ASSERT_TRUE(mu.ok());
    EXPECT_EQ(*sign_mu(keys.secret_key, *mu, rnd), *hedged);
    EXPECT_TRUE(verify_internal(level, keys.public_key, m_prime, *hedged));
    EXPECT_TRUE(verify_mu(level, keys.public_key, *mu, *hedged));
    Mu other_mu = *mu;
    other_mu[0] ^= 1;
    EXPECT_FALSE(verify_mu(level, keys.public_key, other_mu, *hedged));

    // A secret key survives its encoding.
    auto reloaded = SecretKey::from_bytes(level, keys.secret_key.bytes());
    ASSERT_TRUE(reloaded.ok());
    EXPECT_EQ(*sign(*reloaded, msg, ctx, rnd), *hedged);
    // Keys of another level do not verify.
    const Level other = level == Level::k44 ? Level::k65 : Level::k44;
    EXPECT_FALSE(verify(other, keys.public_key, msg, ctx, *hedged));
  }
}

TEST(MlDsa, HashMlDsaRoundTripForEveryPreHash) {
  std::mt19937_64 rng(5);
  const KeyPair keys = keygen(Level::k44, random_array<kSeedBytes>(rng));
  const Bytes msg = random_bytes(rng, 77);
  const Bytes ctx = random_bytes(rng, 5);
  for (int h = 0; h <= static_cast<int>(PreHash::shake256); ++h) {
    const auto hash = static_cast<PreHash>(h);
    SCOPED_TRACE(h);
    const auto sig = hash_sign(keys.secret_key, msg, ctx, hash, Rnd{});
    ASSERT_TRUE(sig.ok()) << sig.error().to_string();
    EXPECT_TRUE(hash_verify(Level::k44, keys.public_key, msg, ctx, hash, *sig));
    EXPECT_FALSE(verify(Level::k44, keys.public_key, msg, ctx, *sig));
    const auto other = static_cast<PreHash>((h + 1) % (static_cast<int>(PreHash::shake256) + 1));
    EXPECT_FALSE(hash_verify(Level::k44, keys.public_key, msg, ctx, other, *sig));
  }
}

TEST(MlDsa, SecretKeyMoveAndWipe) {
  KeyPair keys = keygen(Level::k44, Seed{});
  const Bytes copy(keys.secret_key.bytes().begin(), keys.secret_key.bytes().end());
  SecretKey moved = std::move(keys.secret_key);
  EXPECT_TRUE(keys.secret_key.bytes().empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(std::equal(copy.begin(), copy.end(), moved.bytes().begin(), moved.bytes().end()));
  SecretKey other = keygen(Level::k87, Seed{1}).secret_key;
  other = std::move(moved);
  EXPECT_EQ(other.level(), Level::k44);
  EXPECT_TRUE(std::equal(copy.begin(), copy.end(), other.bytes().begin(), other.bytes().end()));
}

// ---- Malformed input ---------------------------------------------------------

TEST(MlDsa, RejectsContextsLongerThan255Bytes) {
  const KeyPair keys = keygen(Level::k44, Seed{});
  const Bytes ctx255(255, 7);
  const Bytes ctx256(256, 7);
  const Bytes msg = {1, 2, 3};
  const auto sig = sign_deterministic(keys.secret_key, msg, ctx255);
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(verify(Level::k44, keys.public_key, msg, ctx255, *sig));

  const auto too_long = sign_deterministic(keys.secret_key, msg, ctx256);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().code, base::Errc::length_over_max);
  EXPECT_FALSE(sign(keys.secret_key, msg, ctx256, Rnd{}).ok());
  EXPECT_FALSE(hash_sign(keys.secret_key, msg, ctx256, PreHash::sha2_256, Rnd{}).ok());
  EXPECT_FALSE(external_mu(Level::k44, keys.public_key, msg, ctx256).ok());
  EXPECT_FALSE(verify(Level::k44, keys.public_key, msg, ctx256, *sig));
  EXPECT_FALSE(hash_verify(Level::k44, keys.public_key, msg, ctx256, PreHash::sha2_256, *sig));
}

TEST(MlDsa, RejectsWrongLengths) {
  for (const Level level : kLevels) {
    SCOPED_TRACE(level_name(level));
    const KeyPair keys = keygen(level, Seed{});
    const Bytes msg = {9};
    const auto sig = sign_deterministic(keys.secret_key, msg, {});
    ASSERT_TRUE(sig.ok());
    const auto mu = external_mu(level, keys.public_key, msg, {});
    ASSERT_TRUE(mu.ok());
    const Bytes sk(keys.secret_key.bytes().begin(), keys.secret_key.bytes().end());
    // One byte short, one byte long, and empty.
    const auto variants = [](const Bytes& good) {
      Bytes shorter(good.begin(), good.end() - 1);
      Bytes longer = good;
      longer.push_back(0);
      return std::vector<Bytes>{shorter, longer, Bytes{}};
    };
    for (const Bytes& pk : variants(keys.public_key)) {
      EXPECT_FALSE(verify(level, pk, msg, {}, *sig));
      EXPECT_FALSE(verify_internal(level, pk, msg, *sig));
      EXPECT_FALSE(verify_mu(level, pk, *mu, *sig));
      EXPECT_FALSE(external_mu(level, pk, msg, {}).ok());
    }
    for (const Bytes& bad_sig : variants(*sig)) {
      EXPECT_FALSE(verify(level, keys.public_key, msg, {}, bad_sig));
      EXPECT_FALSE(verify_mu(level, keys.public_key, *mu, bad_sig));
    }
    for (const Bytes& bad_sk : variants(sk)) {
      const auto parsed = SecretKey::from_bytes(level, bad_sk);
      ASSERT_FALSE(parsed.ok());
      EXPECT_EQ(parsed.error().code, bad_sk.size() < sk.size() ? base::Errc::truncated : base::Errc::trailing_bytes);
    }
    EXPECT_TRUE(verify(level, keys.public_key, msg, {}, *sig));
  }
}

// Writes `value` into field number `index` of a packed array of `bits`-bit
// fields that starts at byte `offset` of `data`.
void write_field(Bytes& data, std::size_t offset, std::size_t index, unsigned bits, std::uint32_t value) {
  for (unsigned b = 0; b < bits; ++b) {
    const std::size_t pos = offset * 8 + index * bits + b;
    const auto mask = static_cast<std::uint8_t>(1U << (pos % 8));
    data[pos / 8] = static_cast<std::uint8_t>(((value >> b) & 1U) != 0 ? data[pos / 8] | mask : data[pos / 8] & ~mask);
  }
}

TEST(MlDsa, RejectsSecretKeysWithOutOfRangeCoefficients) {
  for (const Level level : kLevels) {
    SCOPED_TRACE(level_name(level));
    const Shape s = shape(level);
    const KeyPair keys = keygen(level, Seed{3});
    const std::size_t s1_offset = 128;
    const std::size_t s2_offset = s1_offset + s.l * 32 * s.eta_bits;
    // A field holds eta - coefficient: 2 eta (coefficient -eta) is valid,
    // 2 eta + 1 and above are not.
    for (const std::size_t offset : {s1_offset, s2_offset}) {
      for (const std::uint32_t value :
           {static_cast<std::uint32_t>(2 * s.eta), static_cast<std::uint32_t>(2 * s.eta + 1), (1U << s.eta_bits) - 1}) {
        Bytes sk(keys.secret_key.bytes().begin(), keys.secret_key.bytes().end());
        write_field(sk, offset, 200, static_cast<unsigned>(s.eta_bits), value);
        const auto parsed = SecretKey::from_bytes(level, sk);
        EXPECT_EQ(parsed.ok(), value <= static_cast<std::uint32_t>(2 * s.eta)) << value;
        if (!parsed.ok()) {
          EXPECT_EQ(parsed.error().code, base::Errc::invalid_value);
        }
      }
    }
  }
}

TEST(MlDsa, RejectsMalformedSignatures) {
  std::mt19937_64 rng(6);
  for (const Level level : kLevels) {
    SCOPED_TRACE(level_name(level));
    const Shape s = shape(level);
    const KeyPair keys = keygen(level, random_array<kSeedBytes>(rng));
    const Bytes msg = random_bytes(rng, 20);
    // A signature whose hint section has at least two ones in polynomial 0
    // and room for padding, so each malformation below can be applied.
    Bytes sig;
    std::size_t hint = 0;
    for (int attempt = 0;; ++attempt) {
      ASSERT_LT(attempt, 1000);
      sig = *sign(keys.secret_key, msg, {}, random_array<kRndBytes>(rng));
      hint = sig.size() - s.omega - s.k;
      if (sig[hint + s.omega] >= 2 && sig[hint + s.omega + s.k - 1] < s.omega) break;
    }
    ASSERT_TRUE(verify(level, keys.public_key, msg, {}, sig));
    const auto rejects = [&](const Bytes& bad_sig) { return !verify(level, keys.public_key, msg, {}, bad_sig); };

    // Wrong c~.
    Bytes bad = sig;
    bad[s.c_tilde_bytes - 1] ^= 0x80;
    EXPECT_TRUE(rejects(bad));

    // z coefficients at and beyond gamma1 - beta, in both directions (the
    // field holds gamma1 - z).
    for (const std::int32_t z : {s.gamma1 - s.beta, -(s.gamma1 - s.beta), s.gamma1, -(s.gamma1 - 1)}) {
      bad = sig;
      write_field(bad, s.c_tilde_bytes, 5, static_cast<unsigned>(s.z_bits), static_cast<std::uint32_t>(s.gamma1 - z));
      EXPECT_TRUE(rejects(bad)) << z;
    }

    // Hint indices not strictly increasing within a polynomial (swapped,
    // then repeated).
    bad = sig;
    std::swap(bad[hint], bad[hint + 1]);
    EXPECT_TRUE(rejects(bad));
    bad = sig;
    bad[hint + 1] = bad[hint];
    EXPECT_TRUE(rejects(bad));
    // Counts decreasing from one polynomial to the next.
    bad = sig;
    bad[hint + s.omega + 1] = static_cast<std::uint8_t>(bad[hint + s.omega] - 1);
    EXPECT_TRUE(rejects(bad));
    // More than omega ones in total.
    bad = sig;
    bad[hint + s.omega + s.k - 1] = static_cast<std::uint8_t>(s.omega + 1);
    EXPECT_TRUE(rejects(bad));
    bad[hint + s.omega + s.k - 1] = 255;
    EXPECT_TRUE(rejects(bad));
    // Nonzero padding after the last index.
    bad = sig;
    bad[hint + s.omega - 1] = 1;
    EXPECT_TRUE(rejects(bad));

    EXPECT_TRUE(verify(level, keys.public_key, msg, {}, sig));
  }
}

TEST(MlDsa, VerifyNeverCrashesOnGarbage) {
  std::mt19937_64 rng(7);
  for (const Level level : kLevels) {
    const Sizes size = sizes(level);
    for (int trial = 0; trial < 50; ++trial) {
      const Bytes pk = random_bytes(rng, size.public_key);
      const Bytes sig = random_bytes(rng, size.signature);
      EXPECT_FALSE(verify(level, pk, {}, {}, sig));
    }
  }
}

// A key whose s1 and s2 are in range but whose t0 does not belong to them
// and has the largest magnitude everywhere: ||<<c t0>>|| and the hint count
// grow, so signing needs more attempts (about three times as many), yet it
// still finishes with a signature, every time.
TEST(MlDsa, SigningWithAnInconsistentKeyStillFinishes) {
  const KeyPair keys = keygen(Level::k44, Seed{});
  for (const std::uint32_t field : {0U, 8191U}) {  // t0 = 4096 and t0 = -4095
    Bytes sk(keys.secret_key.bytes().begin(), keys.secret_key.bytes().end());
    const std::size_t t0_offset = 128 + 8 * 96;
    for (std::size_t i = 0; i < 4 * kN; ++i) write_field(sk, t0_offset, i, 13, field);
    auto odd = SecretKey::from_bytes(Level::k44, sk);
    ASSERT_TRUE(odd.ok());
    for (std::uint8_t m = 0; m < 20; ++m) {
      const Bytes msg = {m};
      const auto sig = sign_deterministic(*odd, msg, {});
      ASSERT_TRUE(sig.ok()) << sig.error().to_string();
      EXPECT_EQ(sig->size(), sizes(Level::k44).signature);
    }
  }
}

}  // namespace
}  // namespace sion::crypto::mldsa
