#include "sion/wallet/log_head.hpp"

#include <gtest/gtest.h>

#include "sion/codec/codec.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::wallet {
namespace {

crypto::KeySeed counting_seed() {
  crypto::KeySeed seed{};
  for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(i);
  return seed;
}

// docs/ledger.md, "Signed log heads", known answer: the head of size 7 with
// root 11 11 .. 11, signed deterministically by the dual key bundle whose
// key seed is the bytes 00 01 .. 1f (docs/crypto.md, "Key derivation").
TEST(LogHead, KnownAnswer) {
  const auto signer = crypto::SigningBundle::from_seed(crypto::Profile::dual, counting_seed()).value();
  commit::TreeHead head;
  head.size = 7;
  head.root.fill(0x11);
  const base::Bytes message = log_head_message(head);
  EXPECT_EQ(base::to_hex(message),
            "0700000000000000"
            "1111111111111111111111111111111111111111111111111111111111111111");
  const auto signature = sign_log_head(signer, head, crypto::Hedging::deterministic);
  ASSERT_TRUE(signature) << signature.error().to_string();
  const base::Bytes encoded = codec::encode(*signature);
  EXPECT_EQ(encoded.size(), 19514u);
  EXPECT_EQ(base::to_hex(crypto::sha3_256(encoded)),
            "8f4158b5b8fe9ec39e84da94786a23e2378ede6f91260d625030367a100d09ed");
  EXPECT_EQ(base::to_hex(exec::account_id(signer.public_bundle())),
            "b2085f0c799f4c83b61fd252acea365a9fe1f3d457002f7145e24c79766614be");  // docs/ledger.md's account

  EXPECT_TRUE(verify_log_head(signer.public_bundle(), head, *signature));
  // Another head, another key, another context: refused.
  commit::TreeHead other = head;
  other.size = 8;
  EXPECT_FALSE(verify_log_head(signer.public_bundle(), other, *signature));
  other = head;
  other.root[31] ^= 1;
  EXPECT_FALSE(verify_log_head(signer.public_bundle(), other, *signature));
  crypto::KeySeed seed = counting_seed();
  seed[0] ^= 1;
  const auto stranger = crypto::SigningBundle::from_seed(crypto::Profile::dual, seed).value();
  EXPECT_FALSE(verify_log_head(stranger.public_bundle(), head, *signature));
  const auto as_tx = signer.sign(message, base::as_bytes(exec::kTxSignatureContext), crypto::Hedging::deterministic);
  EXPECT_FALSE(verify_log_head(signer.public_bundle(), head, *as_tx));

  const std::vector<exec::GenesisValidator> validators{{stranger.public_bundle()}, {signer.public_bundle()}};
  EXPECT_EQ(find_validator(validators, exec::account_id(signer.public_bundle())), &validators[1].keys);
  EXPECT_EQ(find_validator(validators, commit::Hash{}), nullptr);
}

}  // namespace
}  // namespace sion::wallet
