#pragma once
// How the core signs and checks signatures: two interfaces, so that the node
// plugs in validator key bundles (legs chosen by the chain's leg policy,
// bundle_signing.hpp) and the simulator plugs in cheap stand-ins. The core
// never looks inside a signature.

#include "sion/base/result.hpp"
#include "sion/consensus/messages.hpp"

namespace sion::consensus {

class Signer {
 public:
  virtual ~Signer() = default;
  // Signs `message` (a signed_message() hash) as this validator.
  virtual base::Result<Signature> sign(SignedKind kind, const Hash& message) = 0;
};

class Verifier {
 public:
  virtual ~Verifier() = default;
  // True if `signature` is validator `signer`'s signature of `message`
  // carrying exactly the legs the chain requires for `kind`.
  virtual bool verify(ValidatorIndex signer, SignedKind kind, const Hash& message, const Signature& signature) = 0;
};

}  // namespace sion::consensus
