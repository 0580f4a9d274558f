#pragma once
// Validator signatures with key bundles under the chain's leg policy
// (docs/consensus.md, "Signatures"). The policy names, for each signed kind,
// which schemes of a validator's bundle must sign; a signature carries one
// part per part of the bundle, empty for a leg the policy does not require.
// A verifier checks exactly the required legs and refuses a signature with
// any other part filled: the signature bytes never decide which legs are
// enough.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/consensus/signing.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/verify_cache.hpp"

namespace sion::consensus {

// The context string every leg signs under (crypto::bound_message).
inline constexpr std::string_view kSignatureContext = "sion/consensus/v1";

class LegPolicy {
 public:
  // The default: ML-DSA-44 on everything, ML-DSA-44 and SLH-DSA-SHA2-128f on
  // a Pulse vote (the certificate that commits a Pulse and its state root).
  static LegPolicy defaults();

  const std::vector<crypto::Scheme>& legs(SignedKind kind) const noexcept { return legs_[index(kind)]; }
  // Sets the legs of one kind: at least one, none twice.
  base::Status set(SignedKind kind, std::vector<crypto::Scheme> schemes);
  // Every leg of every kind is a part of `bundle`.
  base::Status check_bundle(const crypto::KeyBundle& bundle) const;
  // Which of the bundle's parts sign `kind`.
  std::vector<bool> mask(const crypto::KeyBundle& bundle, SignedKind kind) const;

 private:
  static std::size_t index(SignedKind kind) noexcept { return static_cast<std::size_t>(kind) - 1; }
  std::array<std::vector<crypto::Scheme>, std::size(kAllSignedKinds)> legs_;
};

class BundleSigner final : public Signer {
 public:
  // `master` is the validator's bundle master seed (crypto::SigningBundle::from_seed).
  static base::Result<std::unique_ptr<BundleSigner>> create(crypto::Profile profile, const crypto::KeySeed& master,
                                                            LegPolicy policy);
  base::Result<Signature> sign(SignedKind kind, const Hash& message) override;
  const crypto::KeyBundle& public_bundle() const noexcept { return bundle_; }

 private:
  BundleSigner() = default;
  std::vector<crypto::SigningKey> keys_;
  crypto::KeyBundle bundle_;
  crypto::Hash256 bundle_id_{};
  LegPolicy policy_;
};

class BundleVerifier final : public Verifier {
 public:
  // Fails if a validator's bundle lacks a leg the policy requires.
  static base::Result<std::unique_ptr<BundleVerifier>> create(std::vector<crypto::KeyBundle> validators,
                                                              LegPolicy policy,
                                                              std::shared_ptr<crypto::VerifyCache> cache);
  bool verify(ValidatorIndex signer, SignedKind kind, const Hash& message, const Signature& signature) override;

 private:
  BundleVerifier() = default;
  struct Validator {
    crypto::KeyBundle keys;
    crypto::Hash256 id{};
  };
  std::vector<Validator> validators_;
  LegPolicy policy_;
  std::shared_ptr<crypto::VerifyCache> cache_;
};

}  // namespace sion::consensus
