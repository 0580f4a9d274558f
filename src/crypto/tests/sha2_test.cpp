#include "sion/crypto/sha2.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <random>

namespace sion::crypto {
namespace {

using base::Bytes;

Bytes random_bytes(std::mt19937_64& rng, std::size_t len) {
  Bytes out(len);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

template <std::size_t N>
Bytes to_vec(const base::ByteArray<N>& a) {
  return Bytes(a.begin(), a.end());
}

Bytes openssl_digest(const EVP_MD* md, base::ByteView in) {
  Bytes out(static_cast<std::size_t>(EVP_MD_get_size(md)));
  unsigned len = 0;
  EXPECT_EQ(EVP_Digest(in.data(), in.size(), out.data(), &len, md, nullptr), 1);
  EXPECT_EQ(len, out.size());
  return out;
}

Bytes openssl_hmac(const EVP_MD* md, base::ByteView key, base::ByteView in) {
  Bytes out(static_cast<std::size_t>(EVP_MD_get_size(md)));
  unsigned len = 0;
  // HMAC() with a null key pointer treats it as empty only when the length is 0.
  static const std::uint8_t kEmpty = 0;
  EXPECT_NE(HMAC(md, key.empty() ? &kEmpty : key.data(), static_cast<int>(key.size()), in.data(), in.size(), out.data(),
                 &len),
            nullptr);
  EXPECT_EQ(len, out.size());
  return out;
}

// MGF1 from its definition (RFC 8017, Appendix B.2.1) over OpenSSL digests.
Bytes reference_mgf1(const EVP_MD* md, base::ByteView seed, std::size_t len) {
  Bytes out;
  for (std::uint32_t counter = 0; out.size() < len; ++counter) {
    Bytes block(seed.begin(), seed.end());
    for (int shift = 24; shift >= 0; shift -= 8) {
      block.push_back(static_cast<std::uint8_t>(counter >> shift));
    }
    const Bytes d = openssl_digest(md, block);
    out.insert(out.end(), d.begin(), d.end());
  }
  out.resize(len);
  return out;
}

TEST(Sha2, KnownAnswers) {
  // FIPS 180-4 examples (csrc.nist.gov "Examples with Intermediate Values"): "abc".
  EXPECT_EQ(base::to_hex(sha256(base::as_bytes("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(base::to_hex(sha512(base::as_bytes("abc"))),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
  // RFC 4231, test case 2.
  const auto key = base::as_bytes("Jefe");
  const auto data = base::as_bytes("what do ya want for nothing?");
  EXPECT_EQ(base::to_hex(hmac_sha256(key, data)), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(base::to_hex(hmac_sha512(key, data)),
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
            "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737");
}

TEST(Sha2, MatchesOpenSslOnEveryLengthUpTo300) {
  std::mt19937_64 rng(1);
  for (std::size_t len = 0; len <= 300; ++len) {
    const Bytes msg = random_bytes(rng, len);
    ASSERT_EQ(to_vec(sha256(msg)), openssl_digest(EVP_sha256(), msg)) << len;
    ASSERT_EQ(to_vec(sha512(msg)), openssl_digest(EVP_sha512(), msg)) << len;
  }
}

TEST(Sha2, IncrementalUpdatesMatchOneShot) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const Bytes msg = random_bytes(rng, rng() % 1200);
    Sha256 h256;
    Sha512 h512;
    std::size_t pos = 0;
    while (pos < msg.size()) {
      const std::size_t take = std::min<std::size_t>(rng() % 300, msg.size() - pos);
      h256.update({msg.data() + pos, take});
      h512.update({msg.data() + pos, take});
      pos += take;
    }
    ASSERT_EQ(to_vec(h256.finalize()), openssl_digest(EVP_sha256(), msg)) << trial;
    ASSERT_EQ(to_vec(h512.finalize()), openssl_digest(EVP_sha512(), msg)) << trial;
  }
}

TEST(Sha2, FinalizeResetsForReuse) {
  Sha256 h;
  h.update(base::as_bytes("first message"));
  (void)h.finalize();
  h.update(base::as_bytes("abc"));
  EXPECT_EQ(to_vec(h.finalize()), to_vec(sha256(base::as_bytes("abc"))));
}

TEST(Sha2, CopiedHasherContinuesIndependently) {
  std::mt19937_64 rng(3);
  const Bytes prefix = random_bytes(rng, 100);
  const Bytes a = random_bytes(rng, 77);
  const Bytes b = random_bytes(rng, 200);
  Sha512 base_hasher;
  base_hasher.update(prefix);
  Sha512 copy = base_hasher;
  base_hasher.update(a);
  copy.update(b);
  Bytes pa = prefix;
  pa.insert(pa.end(), a.begin(), a.end());
  Bytes pb = prefix;
  pb.insert(pb.end(), b.begin(), b.end());
  EXPECT_EQ(to_vec(base_hasher.finalize()), openssl_digest(EVP_sha512(), pa));
  EXPECT_EQ(to_vec(copy.finalize()), openssl_digest(EVP_sha512(), pb));
}

// The SLH-DSA-SHA2 pattern (FIPS 205, Sec. 11.2): compress one block once,
// then resume from that midstate for many different suffixes.
TEST(Sha2, ResumeFromMidstate) {
  std::mt19937_64 rng(4);
  const Bytes blocks = random_bytes(rng, 3 * 128);
  Sha256State s256 = kSha256Initial;
  sha256_compress(s256, blocks.data(), 2);
  Sha512State s512 = kSha512Initial;
  sha512_compress(s512, blocks.data(), 3);
  for (std::size_t len = 0; len <= 200; ++len) {
    const Bytes suffix = random_bytes(rng, len);
    Sha256 h256(s256, 2);
    h256.update(suffix);
    Bytes whole256(blocks.begin(), blocks.begin() + 128);
    whole256.insert(whole256.end(), suffix.begin(), suffix.end());
    ASSERT_EQ(to_vec(h256.finalize()), openssl_digest(EVP_sha256(), whole256)) << len;

    Sha512 h512(s512, 3);
    h512.update(suffix);
    Bytes whole512 = blocks;
    whole512.insert(whole512.end(), suffix.begin(), suffix.end());
    ASSERT_EQ(to_vec(h512.finalize()), openssl_digest(EVP_sha512(), whole512)) << len;
  }
}

TEST(Sha2, HmacMatchesOpenSsl) {
  std::mt19937_64 rng(5);
  // Key lengths below, at and above both block sizes (64 and 128 bytes).
  for (std::size_t key_len = 0; key_len <= 300; key_len += (key_len < 140 ? 1 : 37)) {
    const Bytes key = random_bytes(rng, key_len);
    const Bytes msg = random_bytes(rng, rng() % 400);
    ASSERT_EQ(to_vec(hmac_sha256(key, msg)), openssl_hmac(EVP_sha256(), key, msg)) << key_len;
    ASSERT_EQ(to_vec(hmac_sha512(key, msg)), openssl_hmac(EVP_sha512(), key, msg)) << key_len;

    // The same MAC with the message fed in pieces.
    HmacSha256 mac(key);
    const std::size_t cut = msg.empty() ? 0 : rng() % msg.size();
    mac.update({msg.data(), cut});
    mac.update({msg.data() + cut, msg.size() - cut});
    ASSERT_EQ(to_vec(mac.finalize()), openssl_hmac(EVP_sha256(), key, msg)) << key_len;
  }
}

TEST(Sha2, Mgf1MatchesDefinition) {
  std::mt19937_64 rng(6);
  for (std::size_t out_len = 0; out_len <= 200; out_len += 7) {
    const Bytes seed = random_bytes(rng, rng() % 150);
    Bytes out256(out_len);
    mgf1_sha256(seed, out256);
    ASSERT_EQ(out256, reference_mgf1(EVP_sha256(), seed, out_len)) << out_len;
    Bytes out512(out_len);
    mgf1_sha512(seed, out512);
    ASSERT_EQ(out512, reference_mgf1(EVP_sha512(), seed, out_len)) << out_len;
  }
}

}  // namespace
}  // namespace sion::crypto
