// Hello and Auth encodings, the transcript hash (known answers of
// docs/net.md, "Known answers") and the Hello rules; the identity helpers.

#include <gtest/gtest.h>

#include "net_fixture.hpp"
#include "sion/base/testing/doc_values.hpp"
#include "sion/net/handshake.hpp"
#include "sion/net/identity.hpp"

namespace sion::net {
namespace {

ChainId kat_chain() {
  ChainId id{};
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::uint8_t>(i);
  return id;
}

Hello kat_hello(std::uint32_t sender, std::uint8_t nonce_byte) {
  Hello hello;
  hello.chain_id = kat_chain();
  hello.sender = sender;
  hello.nonce.fill(nonce_byte);
  return hello;
}

// docs/net.md, "Known answers": these hex strings appear there verbatim.
constexpr std::string_view kInitiatorHelloHex =
    "534e45540100000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f01000000"
    "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
constexpr std::string_view kResponderHelloHex =
    "534e45540100000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f02000000"
    "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";
constexpr std::string_view kInitiatorTranscriptHex = "852526ede41c81ffae804b39a816005fe93d6df25f626b7470b136050780dc03";
constexpr std::string_view kResponderTranscriptHex = "b630b7c0b5bd222b17d0015ff0e5643596789e3a7780fc2dd2cad108b09980df";

TEST(Handshake, HelloKnownAnswer) {
  const base::Bytes initiator = encode_hello(kat_hello(1, 0xa1));
  const base::Bytes responder = encode_hello(kat_hello(2, 0xb2));
  EXPECT_EQ(initiator.size(), kHelloBytes);
  EXPECT_EQ(base::to_hex(initiator), kInitiatorHelloHex);
  EXPECT_EQ(base::to_hex(responder), kResponderHelloHex);
  EXPECT_EQ(decode_hello(initiator).value(), kat_hello(1, 0xa1));
}

TEST(Handshake, TranscriptKnownAnswer) {
  const base::Bytes initiator = encode_hello(kat_hello(1, 0xa1));
  const base::Bytes responder = encode_hello(kat_hello(2, 0xb2));
  EXPECT_EQ(base::to_hex(transcript_hash(kat_chain(), initiator, responder, Role::initiator)), kInitiatorTranscriptHex);
  EXPECT_EQ(base::to_hex(transcript_hash(kat_chain(), initiator, responder, Role::responder)), kResponderTranscriptHex);
}

TEST(Handshake, DocumentHasTheKnownAnswers) {
  const base::testing::DocValues doc(std::string(SION_SOURCE_DIR) + "/docs/net.md");
  ASSERT_TRUE(doc.problems().empty()) << doc.problems().front();
  EXPECT_EQ(doc.hex("chain id"), base::to_hex(kat_chain()));
  EXPECT_EQ(doc.hex("initiator hello"), kInitiatorHelloHex);
  EXPECT_EQ(doc.hex("responder hello"), kResponderHelloHex);
  EXPECT_EQ(doc.hex("initiator transcript"), kInitiatorTranscriptHex);
  EXPECT_EQ(doc.hex("responder transcript"), kResponderTranscriptHex);
}

TEST(Handshake, DecodeRefusesWithReasons) {
  base::Bytes hello = encode_hello(kat_hello(1, 0xa1));
  EXPECT_EQ(decode_hello(base::ByteView(hello).first(73)).error().code, base::Errc::truncated);
  base::Bytes longer = hello;
  longer.push_back(0);
  EXPECT_EQ(decode_hello(longer).error().code, base::Errc::trailing_bytes);
  base::Bytes bad_magic = hello;
  bad_magic[0] = 'X';
  EXPECT_NE(decode_hello(bad_magic).error().reason.find("magic"), std::string::npos);
  base::Bytes bad_version = hello;
  bad_version[4] = 2;
  EXPECT_NE(decode_hello(bad_version).error().reason.find("version 2"), std::string::npos);

  Auth auth;
  auth.signature.fill(7);
  const base::Bytes encoded = encode_auth(auth);
  EXPECT_EQ(encoded.size(), kAuthSignatureBytes);
  EXPECT_EQ(decode_auth(encoded).value(), auth);
  EXPECT_FALSE(decode_auth(base::ByteView(encoded).first(100)).ok());
}

TEST(Handshake, HelloRules) {
  HelloRules rules;
  rules.chain_id = kat_chain();
  rules.self = 2;
  rules.validators = 4;
  rules.own_role = Role::responder;
  const auto kind = [&](const Hello& hello) {
    auto refusal = check_hello(hello, rules);
    if (refusal) {
      EXPECT_FALSE(refusal->reason.empty());
    }
    return refusal ? std::optional(refusal->kind) : std::nullopt;
  };
  EXPECT_EQ(kind(kat_hello(0, 1)), std::nullopt);
  EXPECT_EQ(kind(kat_hello(1, 1)), std::nullopt);
  EXPECT_EQ(kind(kat_hello(2, 1)), HandshakeFailure::self_index);
  EXPECT_EQ(kind(kat_hello(3, 1)), HandshakeFailure::wrong_direction);
  EXPECT_EQ(kind(kat_hello(4, 1)), HandshakeFailure::unknown_peer);
  Hello other = kat_hello(0, 1);
  other.chain_id[5] ^= 1;
  EXPECT_EQ(kind(other), HandshakeFailure::wrong_chain);

  rules.own_role = Role::initiator;
  rules.dialed = 3;
  EXPECT_EQ(kind(kat_hello(3, 1)), std::nullopt);
  EXPECT_EQ(kind(kat_hello(1, 1)), HandshakeFailure::wrong_peer);
}

TEST(Handshake, AuthSignsTheTranscriptOfItsRole) {
  const auto& a = testing::validator(0);
  const base::Bytes key = mldsa_public_key(a.keys).value();
  const base::Bytes initiator = encode_hello(kat_hello(0, 0xa1));
  const base::Bytes responder = encode_hello(kat_hello(1, 0xb2));
  const auto own = transcript_hash(kat_chain(), initiator, responder, Role::initiator);
  const auto signature = a.mldsa->sign(own).value();
  EXPECT_EQ(signature.size(), kAuthSignatureBytes);
  EXPECT_TRUE(crypto::verify(crypto::Scheme::ml_dsa_44, key, own, signature));
  // Not under the other role's transcript, nor another chain's.
  EXPECT_FALSE(crypto::verify(crypto::Scheme::ml_dsa_44, key,
                              transcript_hash(kat_chain(), initiator, responder, Role::responder), signature));
  EXPECT_FALSE(crypto::verify(crypto::Scheme::ml_dsa_44, key,
                              transcript_hash(testing::test_chain(), initiator, responder, Role::initiator),
                              signature));
}

TEST(Identity, BundleComponentKeyMatchesTheBundle) {
  crypto::KeySeed seed{};
  seed.fill(0x33);
  for (const auto profile : {crypto::Profile::dual, crypto::Profile::hybrid}) {
    const auto bundle = crypto::SigningBundle::from_seed(profile, seed).value();
    const auto key = bundle_component_key(profile, seed, crypto::Scheme::ml_dsa_44).value();
    const base::Bytes expected = mldsa_public_key(bundle.public_bundle()).value();
    EXPECT_EQ(base::Bytes(key.public_key().begin(), key.public_key().end()), expected);
  }
  EXPECT_FALSE(bundle_component_key(crypto::Profile::cold, seed, crypto::Scheme::ml_dsa_44).ok());
}

TEST(Identity, SignerAndPublicKeyRefuseOtherSchemes) {
  crypto::KeySeed seed{};
  seed.fill(0x34);
  auto ed =
      std::make_shared<const crypto::SigningKey>(crypto::SigningKey::from_seed(crypto::Scheme::ed25519, seed).value());
  EXPECT_FALSE(mldsa_signer(ed).ok());
  EXPECT_FALSE(mldsa_signer(nullptr).ok());
  const auto cold = crypto::SigningBundle::from_seed(crypto::Profile::cold, seed).value();
  const auto missing = mldsa_public_key(cold.public_bundle());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().reason.find("no ML-DSA-44"), std::string::npos);
}

TEST(Stats, FailureNames) {
  EXPECT_EQ(handshake_failure_name(HandshakeFailure::bad_signature), "bad_signature");
  EXPECT_EQ(handshake_failure_name(HandshakeFailure::local_error), "local_error");
  TransportStats stats;
  stats.handshake_failures[static_cast<std::size_t>(HandshakeFailure::timeout)] = 2;
  stats.handshake_failures[0] = 1;
  EXPECT_EQ(stats.handshake_failure(HandshakeFailure::timeout), 2U);
  EXPECT_EQ(stats.handshake_failures_total(), 3U);
}

}  // namespace
}  // namespace sion::net
