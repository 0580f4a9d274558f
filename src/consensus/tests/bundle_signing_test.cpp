#include "sion/consensus/bundle_signing.hpp"

#include <gtest/gtest.h>

namespace sion::consensus {
namespace {

crypto::KeySeed seed(std::uint8_t b) {
  crypto::KeySeed s;
  s.fill(b);
  return s;
}

struct Pair {
  std::unique_ptr<BundleSigner> signer;
  std::unique_ptr<BundleVerifier> verifier;
};

Pair make(LegPolicy policy) {
  auto signer = BundleSigner::create(crypto::Profile::dual, seed(7), policy);
  EXPECT_TRUE(signer.ok());
  auto verifier = BundleVerifier::create({(*signer)->public_bundle()}, policy, std::make_shared<crypto::VerifyCache>());
  EXPECT_TRUE(verifier.ok());
  return {std::move(*signer), std::move(*verifier)};
}

TEST(BundleSigning, DefaultPolicySignsVotesWithMlDsaAndPulseVotesWithBoth) {
  Pair p = make(LegPolicy::defaults());
  Hash message;
  message.fill(3);
  auto vote = p.signer->sign(SignedKind::vote, message);
  ASSERT_TRUE(vote.ok());
  ASSERT_EQ(vote->parts.size(), 2u);
  EXPECT_EQ(vote->parts[0].size(), 2420u);  // ML-DSA-44
  EXPECT_TRUE(vote->parts[1].empty());
  EXPECT_TRUE(p.verifier->verify(0, SignedKind::vote, message, *vote));
  auto pulse = p.signer->sign(SignedKind::pulse_vote, message);
  ASSERT_TRUE(pulse.ok());
  EXPECT_EQ(pulse->parts[1].size(), 17088u);  // SLH-DSA-SHA2-128f
  EXPECT_TRUE(p.verifier->verify(0, SignedKind::pulse_vote, message, *pulse));
}

// The verifier decides the legs from the policy, never from the signature.
TEST(BundleSigning, RefusesMissingExtraOrMisplacedLegs) {
  Pair p = make(LegPolicy::defaults());
  Hash message;
  message.fill(4);
  auto pulse = p.signer->sign(SignedKind::pulse_vote, message);
  ASSERT_TRUE(pulse.ok());
  Signature downgraded = *pulse;
  downgraded.parts[1].clear();  // only the ML-DSA leg: not enough for a Pulse vote
  EXPECT_FALSE(p.verifier->verify(0, SignedKind::pulse_vote, message, downgraded));
  auto vote = p.signer->sign(SignedKind::vote, message);
  Signature extra = *pulse;  // both legs where only ML-DSA is asked for
  EXPECT_FALSE(p.verifier->verify(0, SignedKind::vote, message, extra));
  Hash other = message;
  other[0] ^= 1;
  EXPECT_FALSE(p.verifier->verify(0, SignedKind::vote, other, *vote));
  EXPECT_FALSE(p.verifier->verify(1, SignedKind::vote, message, *vote));  // no such validator
  Signature short_sig = *vote;
  short_sig.parts.pop_back();
  EXPECT_FALSE(p.verifier->verify(0, SignedKind::vote, message, short_sig));
}

TEST(BundleSigning, PolicyIsCheckedAgainstTheBundle) {
  LegPolicy policy = LegPolicy::defaults();
  ASSERT_TRUE(policy.set(SignedKind::vote, {crypto::Scheme::ml_dsa_87}).ok());
  EXPECT_FALSE(BundleSigner::create(crypto::Profile::dual, seed(1), policy).ok());
  EXPECT_FALSE(policy.set(SignedKind::vote, {}).ok());
  EXPECT_FALSE(policy.set(SignedKind::vote, {crypto::Scheme::ml_dsa_44, crypto::Scheme::ml_dsa_44}).ok());
}

}  // namespace
}  // namespace sion::consensus
