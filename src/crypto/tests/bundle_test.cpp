// The uniform scheme interface, composite bundles and the verify cache.

#include <gtest/gtest.h>

#include <thread>
#include <type_traits>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/signature.hpp"
#include "sion/crypto/verify_cache.hpp"
#include "sion/crypto/verify_units.hpp"

namespace sion::crypto {
namespace {

using base::Bytes;

KeySeed seed_of(std::uint8_t fill) {
  KeySeed seed;
  seed.fill(fill);
  return seed;
}

TEST(Schemes, NamesAndSizesRoundTrip) {
  for (Scheme scheme : kAllSchemes) {
    EXPECT_EQ(scheme_from_name(scheme_name(scheme)), scheme);
    const auto sizes = scheme_sizes(scheme);
    EXPECT_GT(sizes.public_key, 0u);
    EXPECT_LE(sizes.public_key, kMaxPublicKeyBytes);
    EXPECT_GT(sizes.signature, 0u);
    EXPECT_LE(sizes.signature, kMaxSignatureBytes);
  }
  EXPECT_EQ(scheme_sizes(Scheme::slh_dsa_sha2_128f).signature, 17088u);
  EXPECT_EQ(scheme_sizes(Scheme::ml_dsa_44).signature, 2420u);
  EXPECT_FALSE(scheme_from_name("RSA").has_value());
  EXPECT_TRUE(is_post_quantum(Scheme::slh_dsa_sha2_128s));
  EXPECT_FALSE(is_post_quantum(Scheme::ed25519));
}

TEST(Schemes, EverySchemeSignsAndVerifiesThroughOneInterface) {
  const Bytes message{1, 2, 3, 4};
  for (Scheme scheme : kAllSchemes) {
    SCOPED_TRACE(std::string(scheme_name(scheme)));
    auto key = SigningKey::from_seed(scheme, seed_of(7));
    ASSERT_TRUE(key.ok()) << key.error().to_string();
    EXPECT_EQ(key->public_key().size(), scheme_sizes(scheme).public_key);
    // The same seed gives the same key.
    auto again = SigningKey::from_seed(scheme, seed_of(7));
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(std::equal(key->public_key().begin(), key->public_key().end(), again->public_key().begin()));

    auto sig = key->sign(message, Hedging::deterministic);
    ASSERT_TRUE(sig.ok()) << sig.error().to_string();
    EXPECT_EQ(sig->size(), scheme_sizes(scheme).signature);
    EXPECT_TRUE(verify(scheme, key->public_key(), message, *sig));

    Bytes tampered = *sig;
    tampered[tampered.size() / 2] ^= 0x01;
    EXPECT_FALSE(verify(scheme, key->public_key(), message, tampered));
    EXPECT_FALSE(verify(scheme, key->public_key(), Bytes{1, 2, 3, 5}, *sig));
    EXPECT_FALSE(verify(scheme, key->public_key(), message, Bytes(sig->begin(), sig->end() - 1)));
    EXPECT_FALSE(verify(scheme, Bytes(key->public_key().size() + 1, 0), message, *sig));
    EXPECT_FALSE(verify(scheme, {}, message, {}));
  }
}

TEST(Schemes, HedgedSigningVerifies) {
  for (Scheme scheme : {Scheme::ml_dsa_44, Scheme::slh_dsa_sha2_128f}) {
    auto key = SigningKey::generate(scheme);
    ASSERT_TRUE(key.ok());
    auto a = key->sign(Bytes{9}, Hedging::hedged);
    auto b = key->sign(Bytes{9}, Hedging::hedged);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(*a, *b) << "hedged signatures should differ";
    EXPECT_TRUE(verify(scheme, key->public_key(), Bytes{9}, *a));
    EXPECT_TRUE(verify(scheme, key->public_key(), Bytes{9}, *b));
  }
}

TEST(Bundles, ProfilesHaveTheirSchemes) {
  EXPECT_EQ(profile_schemes(Profile::dual).size(), 2u);
  EXPECT_EQ(profile_schemes(Profile::dual)[0], Scheme::ml_dsa_44);
  EXPECT_EQ(profile_schemes(Profile::dual)[1], Scheme::slh_dsa_sha2_128f);
  EXPECT_EQ(profile_schemes(Profile::cold)[0], Scheme::slh_dsa_sha2_128s);
  for (Profile p : kAllProfiles) EXPECT_EQ(profile_from_name(profile_name(p)), p);
}

TEST(Bundles, VerifyUnitsAreTheSumOfTheParts) {
  auto dual = SigningBundle::from_seed(Profile::dual, seed_of(3));
  ASSERT_TRUE(dual.ok());
  EXPECT_EQ(verify_units(dual->public_bundle()),
            verify_units(Scheme::ml_dsa_44) + verify_units(Scheme::slh_dsa_sha2_128f));
  EXPECT_EQ(verify_units(Scheme::ml_dsa_44), 100u);  // the unit's definition
  for (Scheme scheme : kAllSchemes) EXPECT_GE(verify_units(scheme), 100u) << scheme_name(scheme);
}

// Ids hashed many at a time equal bundle_id of each: bundles of every
// profile (encodings of different lengths) interleaved, past a lane width.
TEST(Bundles, IdsInLanesEqualIdsOneByOne) {
  std::vector<KeyBundle> bundles;
  for (std::uint8_t i = 0; i < 19; ++i) {
    const Profile profile = kAllProfiles[i % std::size(kAllProfiles)];
    if (profile == Profile::cold || profile == Profile::strong) continue;  // slow key generation
    auto signer = SigningBundle::from_seed(profile, seed_of(i));
    ASSERT_TRUE(signer.ok());
    bundles.push_back(signer->public_bundle());
  }
  std::vector<const KeyBundle*> pointers;
  for (const KeyBundle& bundle : bundles) pointers.push_back(&bundle);
  std::vector<Hash256> ids(bundles.size());
  bundle_ids(pointers, ids.data());
  for (std::size_t i = 0; i < bundles.size(); ++i) EXPECT_EQ(ids[i], bundle_id(bundles[i])) << i;
  bundle_ids({}, nullptr);  // none: nothing to write
}

TEST(Bundles, EveryProfileSignsAndVerifies) {
  const Bytes message{'p', 'a', 'y'};
  const Bytes context{'s', 'i', 'o', 'n', '/', 't', 'x'};
  for (Profile profile : kAllProfiles) {
    SCOPED_TRACE(std::string(profile_name(profile)));
    auto bundle = SigningBundle::from_seed(profile, seed_of(1));
    ASSERT_TRUE(bundle.ok()) << bundle.error().to_string();
    EXPECT_EQ(bundle->public_bundle().profile(), profile);
    auto sigs = bundle->sign(message, context, Hedging::deterministic);
    ASSERT_TRUE(sigs.ok());
    EXPECT_TRUE(verify_bundle(bundle->public_bundle(), message, context, *sigs));
    EXPECT_FALSE(verify_bundle(bundle->public_bundle(), message, Bytes{}, *sigs));
    EXPECT_FALSE(verify_bundle(bundle->public_bundle(), Bytes{'p', 'a', 'z'}, context, *sigs));
  }
}

class DualBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    auto a = SigningBundle::from_seed(Profile::dual, seed_of(1));
    ASSERT_TRUE(a.ok());
    bundle_.emplace(std::move(a).value());
    auto sigs = bundle_->sign(message_, {}, Hedging::deterministic);
    ASSERT_TRUE(sigs.ok());
    sigs_ = *sigs;
  }
  std::optional<SigningBundle> bundle_;
  Bytes message_{1, 2, 3};
  SignatureBundle sigs_;
};

TEST_F(DualBundle, EveryComponentIsRequired) {
  const KeyBundle& keys = bundle_->public_bundle();
  ASSERT_TRUE(verify_bundle(keys, message_, {}, sigs_));
  for (std::size_t i = 0; i < 2; ++i) {
    SignatureBundle broken = sigs_;
    broken.parts[i][10] ^= 0x40;
    EXPECT_FALSE(verify_bundle(keys, message_, {}, broken)) << "component " << i;
  }
  SignatureBundle missing = sigs_;
  missing.parts.pop_back();
  EXPECT_FALSE(verify_bundle(keys, message_, {}, missing));
  SignatureBundle extra = sigs_;
  extra.parts.push_back(sigs_.parts[0]);
  EXPECT_FALSE(verify_bundle(keys, message_, {}, extra));
  SignatureBundle swapped;
  swapped.parts = {sigs_.parts[1], sigs_.parts[0]};
  EXPECT_FALSE(verify_bundle(keys, message_, {}, swapped));
}

TEST_F(DualBundle, ComponentsCannotBeLiftedOrStripped) {
  const KeyBundle& keys = bundle_->public_bundle();
  // Stripping: the ML-DSA key alone with its component signature.
  KeyBundle ml_only;
  ml_only.parts.push_back(keys.parts[0]);
  SignatureBundle ml_sig;
  ml_sig.parts.push_back(sigs_.parts[0]);
  EXPECT_FALSE(verify_bundle(ml_only, message_, {}, ml_sig));
  // Lifting: the same ML-DSA key paired with another SLH-DSA key, whose
  // holder signs honestly; the lifted ML-DSA component must not verify.
  auto other = SigningBundle::from_seed(Profile::dual, seed_of(2));
  ASSERT_TRUE(other.ok());
  KeyBundle mixed;
  mixed.parts = {keys.parts[0], other->public_bundle().parts[1]};
  auto other_sigs = other->sign(message_, {}, Hedging::deterministic);
  ASSERT_TRUE(other_sigs.ok());
  SignatureBundle lifted;
  lifted.parts = {sigs_.parts[0], other_sigs->parts[1]};
  EXPECT_FALSE(verify_bundle(mixed, message_, {}, lifted));
  // And the plain component signature over the raw message is not valid
  // either: components sign the bound message only.
  EXPECT_FALSE(verify(Scheme::ml_dsa_44, keys.parts[0].key, message_, sigs_.parts[0]));
}

TEST_F(DualBundle, EncodingsRoundTripAndMalformedBundlesAreRejected) {
  const KeyBundle& keys = bundle_->public_bundle();
  auto keys_back = codec::decode<KeyBundle>(codec::encode(keys));
  ASSERT_TRUE(keys_back.ok());
  EXPECT_EQ(*keys_back, keys);
  EXPECT_EQ(bundle_id(*keys_back), bundle_->id());
  auto sigs_back = codec::decode<SignatureBundle>(codec::encode(sigs_));
  ASSERT_TRUE(sigs_back.ok());
  EXPECT_EQ(*sigs_back, sigs_);
  EXPECT_EQ(sigs_.byte_size(), 2420u + 17088u);

  Bytes bad_scheme = codec::encode(keys);
  bad_scheme[1] = 99;  // first part's scheme
  auto decoded = codec::decode<KeyBundle>(bad_scheme);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().reason.find("KeyBundle.parts[0].scheme"), std::string::npos) << decoded.error().reason;

  KeyBundle empty;
  EXPECT_FALSE(check_key_bundle(empty).ok());
  EXPECT_FALSE(verify_bundle(empty, message_, {}, SignatureBundle{}));
  KeyBundle short_key = keys;
  short_key.parts[0].key.pop_back();
  auto status = check_key_bundle(short_key);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().reason.find("ML-DSA-44"), std::string::npos);
  EXPECT_FALSE(verify_bundle(short_key, message_, {}, sigs_));
  KeyBundle twice = keys;
  twice.parts[1] = twice.parts[0];
  EXPECT_FALSE(check_key_bundle(twice).ok());
  EXPECT_FALSE(bound_message(bundle_->id(), message_, Bytes(256, 0)).ok());
}

TEST_F(DualBundle, VerifyCacheRemembersSuccessOnly) {
  VerifyCache cache(64);
  const KeyBundle& keys = bundle_->public_bundle();
  const Hash256 digest = VerifyCache::signature_digest(sigs_);
  EXPECT_TRUE(verify_bundle_cached(cache, KeyBundleRef(keys), message_, {}, sigs_, digest));
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_TRUE(verify_bundle_cached(cache, KeyBundleRef(keys), message_, {}, sigs_, digest));
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.size(), 1u);

  SignatureBundle broken = sigs_;
  broken.parts[1][5] ^= 1;
  const Hash256 broken_digest = VerifyCache::signature_digest(broken);
  EXPECT_FALSE(verify_bundle_cached(cache, KeyBundleRef(keys), message_, {}, broken, broken_digest));
  EXPECT_FALSE(verify_bundle_cached(cache, KeyBundleRef(keys), message_, {}, broken, broken_digest));
  EXPECT_EQ(cache.size(), 1u) << "failures are not cached";
  // The same signatures over another message or context are other entries.
  EXPECT_FALSE(verify_bundle_cached(cache, KeyBundleRef(keys), Bytes{1, 2, 4}, {}, sigs_, digest));
  EXPECT_FALSE(verify_bundle_cached(cache, KeyBundleRef(keys), message_, Bytes{1}, sigs_, digest));
}

// Verification used to take (keys, id) apart: an id that was not the keys'
// own made a cached success of one bundle answer for another bundle's
// keys. Keys and their id now come only as a KeyBundleRef, which computes
// the id itself (or takes the one a SigningBundle computed).
template <class Keys, class Id>
concept TakesKeysAndAnId = requires(const Keys& keys, const Id& id, VerifyCache& cache, const SignatureBundle& sigs) {
  verify_bundle(keys, id, base::ByteView{}, base::ByteView{}, sigs);
}
|| requires(const Keys& keys, const Id& id, VerifyCache& cache, const SignatureBundle& sigs) {
  verify_bundle_cached(cache, keys, id, base::ByteView{}, base::ByteView{}, sigs, id);
};

TEST_F(DualBundle, KeysCannotBePairedWithAnotherId) {
  static_assert(!TakesKeysAndAnId<KeyBundle, Hash256>);
  static_assert(!TakesKeysAndAnId<KeyBundleRef, Hash256>);
  static_assert(!std::is_constructible_v<KeyBundleRef, const KeyBundle&, const Hash256&>);
  static_assert(!std::is_constructible_v<KeyBundleRef, KeyBundle&&>);  // would dangle

  const KeyBundle& keys = bundle_->public_bundle();
  EXPECT_EQ(KeyBundleRef(keys).id(), bundle_->id());
  EXPECT_EQ(bundle_->public_ref().id(), bundle_->id());
  EXPECT_EQ(&bundle_->public_ref().keys(), &keys);

  // The attack the old API allowed: bundle A's success is cached under A's
  // id; bundle B's keys presented with A's signatures must not hit it.
  VerifyCache cache(64);
  const Hash256 digest = VerifyCache::signature_digest(sigs_);
  ASSERT_TRUE(verify_bundle_cached(cache, KeyBundleRef(keys), message_, {}, sigs_, digest));
  const auto other = SigningBundle::from_seed(Profile::dual, seed_of(2)).value();
  EXPECT_FALSE(verify_bundle_cached(cache, other.public_ref(), message_, {}, sigs_, digest));
  EXPECT_FALSE(verify_bundle(other.public_ref(), message_, {}, sigs_));
  EXPECT_EQ(cache.hits(), 0u);
}

TEST(VerifyCache, EvictsLeastRecentlyUsedAndIsThreadSafe) {
  VerifyCache cache(16 * 4);  // 4 per shard
  std::vector<VerifyCache::Key> keys;
  for (int i = 0; i < 1000; ++i) {
    Hash256 id{};
    id[0] = static_cast<std::uint8_t>(i);
    id[1] = static_cast<std::uint8_t>(i >> 8);
    keys.push_back(cache.key(id, Hash256{}, {}, {}));
  }
  for (const auto& key : keys) cache.insert(key);
  EXPECT_LE(cache.size(), 64u);
  EXPECT_TRUE(cache.contains(keys.back()));
  EXPECT_FALSE(cache.contains(keys.front()));

  VerifyCache shared(1024);
  auto worker = [&](int offset) {
    for (int round = 0; round < 20; ++round) {
      for (std::size_t i = static_cast<std::size_t>(offset); i < keys.size(); i += 2) {
        shared.insert(keys[i]);
        (void)shared.contains(keys[i]);
      }
    }
  };
  std::thread a(worker, 0);
  std::thread b(worker, 1);
  a.join();
  b.join();
  EXPECT_LE(shared.size(), 1024u);
  EXPECT_EQ(shared.hits() + shared.misses(), 20u * keys.size());
}

}  // namespace
}  // namespace sion::crypto
