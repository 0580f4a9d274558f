#include "sion/consensus/bundle_signing.hpp"

#include <algorithm>

namespace sion::consensus {

LegPolicy LegPolicy::defaults() {
  LegPolicy policy;
  for (const SignedKind kind : kAllSignedKinds) policy.legs_[index(kind)] = {crypto::Scheme::ml_dsa_44};
  policy.legs_[index(SignedKind::pulse_vote)] = {crypto::Scheme::ml_dsa_44, crypto::Scheme::slh_dsa_sha2_128f};
  return policy;
}

base::Status LegPolicy::set(SignedKind kind, std::vector<crypto::Scheme> schemes) {
  if (schemes.empty()) {
    return base::fail(base::Errc::invalid_value,
                      std::string("leg policy: ") + std::string(signed_kind_name(kind)) + " names no scheme");
  }
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    if (std::count(schemes.begin(), schemes.end(), schemes[i]) > 1) {
      return base::fail(base::Errc::invalid_value, std::string("leg policy: ") + std::string(signed_kind_name(kind)) +
                                                       " names " + std::string(crypto::scheme_name(schemes[i])) +
                                                       " twice");
    }
  }
  legs_[index(kind)] = std::move(schemes);
  return {};
}

base::Status LegPolicy::check_bundle(const crypto::KeyBundle& bundle) const {
  for (const SignedKind kind : kAllSignedKinds) {
    for (const crypto::Scheme scheme : legs(kind)) {
      if (!bundle.has_scheme(scheme)) {
        return base::fail(base::Errc::invalid_value, std::string("leg policy: ") + std::string(signed_kind_name(kind)) +
                                                         " requires " + std::string(crypto::scheme_name(scheme)) +
                                                         ", which the validator's key bundle lacks");
      }
    }
  }
  return {};
}

std::vector<bool> LegPolicy::mask(const crypto::KeyBundle& bundle, SignedKind kind) const {
  std::vector<bool> out(bundle.parts.size(), false);
  const auto& required = legs(kind);
  for (std::size_t i = 0; i < bundle.parts.size(); ++i) {
    out[i] = std::find(required.begin(), required.end(), bundle.parts[i].scheme) != required.end();
  }
  return out;
}

base::Result<std::unique_ptr<BundleSigner>> BundleSigner::create(crypto::Profile profile, const crypto::KeySeed& master,
                                                                 LegPolicy policy) {
  std::unique_ptr<BundleSigner> signer(new BundleSigner());
  for (std::size_t i = 0; i < crypto::profile_schemes(profile).size(); ++i) {
    const crypto::Scheme scheme = crypto::profile_schemes(profile)[i];
    SION_TRY(auto key,
             crypto::SigningKey::from_seed(scheme, crypto::component_seed(master, static_cast<std::uint8_t>(i))));
    crypto::PublicKeyPart part;
    part.scheme = scheme;
    part.key.assign(key.public_key().begin(), key.public_key().end());
    signer->bundle_.parts.push_back(std::move(part));
    signer->keys_.push_back(std::move(key));
  }
  SION_TRY_STATUS(policy.check_bundle(signer->bundle_));
  signer->bundle_id_ = crypto::bundle_id(signer->bundle_);
  signer->policy_ = std::move(policy);
  return signer;
}

base::Result<Signature> BundleSigner::sign(SignedKind kind, const Hash& message) {
  SION_TRY(const base::Bytes bound, crypto::bound_message(bundle_id_, message, base::as_bytes(kSignatureContext)));
  const std::vector<bool> mask = policy_.mask(bundle_, kind);
  Signature signature;
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (!mask[i]) {
      signature.parts.emplace_back();
      continue;
    }
    SION_TRY(base::Bytes leg, keys_[i].sign(bound));
    signature.parts.emplace_back(std::move(leg));
  }
  return signature;
}

base::Result<std::unique_ptr<BundleVerifier>> BundleVerifier::create(std::vector<crypto::KeyBundle> validators,
                                                                     LegPolicy policy,
                                                                     std::shared_ptr<crypto::VerifyCache> cache) {
  std::unique_ptr<BundleVerifier> verifier(new BundleVerifier());
  for (std::size_t i = 0; i < validators.size(); ++i) {
    SION_TRY_STATUS_CONTEXT("validator " + std::to_string(i), crypto::check_key_bundle(validators[i]));
    SION_TRY_STATUS_CONTEXT("validator " + std::to_string(i), policy.check_bundle(validators[i]));
    Validator v;
    v.id = crypto::bundle_id(validators[i]);
    v.keys = std::move(validators[i]);
    verifier->validators_.push_back(std::move(v));
  }
  verifier->policy_ = std::move(policy);
  verifier->cache_ = std::move(cache);
  return verifier;
}

bool BundleVerifier::verify(ValidatorIndex signer, SignedKind kind, const Hash& message, const Signature& signature) {
  if (signer >= validators_.size()) return false;
  const Validator& v = validators_[signer];
  if (signature.parts.size() != v.keys.parts.size()) return false;
  const std::vector<bool> mask = policy_.mask(v.keys, kind);
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (mask[i] == signature.parts[i].empty()) return false;  // a required leg missing, or an extra one
  }
  const base::ByteView context = base::as_bytes(kSignatureContext);
  crypto::VerifyCache::Key key{};
  if (cache_) {
    key = cache_->key(v.id, crypto::VerifyCache::signature_digest(signature), message, context);
    if (cache_->contains(key)) return true;
  }
  auto bound = crypto::bound_message(v.id, message, context);
  if (!bound) return false;
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (!mask[i]) continue;
    if (!crypto::verify(v.keys.parts[i].scheme, v.keys.parts[i].key, *bound, signature.parts[i])) return false;
  }
  if (cache_) cache_->insert(key);
  return true;
}

}  // namespace sion::consensus
