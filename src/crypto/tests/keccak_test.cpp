#include "sion/crypto/keccak.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>

namespace sion::crypto {
namespace {

using base::Bytes;

Bytes openssl_digest(const char* name, const Bytes& in, std::size_t out_len) {
  EVP_MD* md = EVP_MD_fetch(nullptr, name, nullptr);
  EXPECT_NE(md, nullptr) << name;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  Bytes out(out_len);
  EXPECT_EQ(EVP_DigestInit_ex(ctx, md, nullptr), 1);
  EXPECT_EQ(EVP_DigestUpdate(ctx, in.data(), in.size()), 1);
  if (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) {
    EXPECT_EQ(EVP_DigestFinalXOF(ctx, out.data(), out.size()), 1);
  } else {
    unsigned len = 0;
    EXPECT_EQ(EVP_DigestFinal_ex(ctx, out.data(), &len), 1);
    EXPECT_EQ(len, out_len);
  }
  EVP_MD_CTX_free(ctx);
  EVP_MD_free(md);
  return out;
}

TEST(Keccak, Sha3KnownAnswers) {
  // FIPS 202 examples (SHA3-256 of "" and of "abc").
  EXPECT_EQ(base::to_hex(sha3_256({})), "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
  EXPECT_EQ(base::to_hex(sha3_256(base::as_bytes("abc"))),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
}

TEST(Keccak, MatchesOpenSslOnEveryLengthAroundTheRate) {
  std::mt19937_64 rng(42);
  for (std::size_t len = 0; len <= 3 * 168 + 3; ++len) {
    Bytes msg(len);
    for (auto& b : msg) b = static_cast<std::uint8_t>(rng());
    const auto d256 = sha3_256(msg);
    ASSERT_EQ(Bytes(d256.begin(), d256.end()), openssl_digest("SHA3-256", msg, 32)) << len;
    const auto d512 = sha3_512(msg);
    ASSERT_EQ(Bytes(d512.begin(), d512.end()), openssl_digest("SHA3-512", msg, 64)) << len;
    Bytes s128(len + 1);
    shake128(msg, s128);
    ASSERT_EQ(s128, openssl_digest("SHAKE128", msg, len + 1)) << len;
    Bytes s256(2 * len + 7);
    shake256(msg, s256);
    ASSERT_EQ(s256, openssl_digest("SHAKE256", msg, 2 * len + 7)) << len;
  }
}

TEST(Keccak, IncrementalAbsorbAndSqueezeMatchOneShot) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Bytes msg(rng() % 1000);
    for (auto& b : msg) b = static_cast<std::uint8_t>(rng());
    Shake128 xof;
    std::size_t pos = 0;
    while (pos < msg.size()) {
      const std::size_t take = std::min<std::size_t>(rng() % 200, msg.size() - pos);
      xof.absorb({msg.data() + pos, take});
      pos += take;
    }
    xof.finalize();
    Bytes pieces(700);
    std::size_t out = 0;
    while (out < pieces.size()) {
      const std::size_t take = std::min<std::size_t>(1 + rng() % 300, pieces.size() - out);
      xof.squeeze({pieces.data() + out, take});
      out += take;
    }
    Bytes whole(700);
    shake128(msg, whole);
    ASSERT_EQ(pieces, whole) << trial;
  }
}

TEST(Keccak, SqueezeBlocksEqualsSqueeze) {
  Shake128 a;
  Shake128 b;
  a.absorb(base::as_bytes("seed"));
  b.absorb(base::as_bytes("seed"));
  a.finalize();
  b.finalize();
  Bytes blocks(3 * Shake128::kRateBytes);
  Bytes bytes(blocks.size());
  a.squeeze_blocks(blocks.data(), 3);
  b.squeeze(bytes);
  EXPECT_EQ(blocks, bytes);
}

}  // namespace
}  // namespace sion::crypto
