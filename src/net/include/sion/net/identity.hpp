#pragma once
// A validator's link identity is the ML-DSA-44 part of its key bundle
// (docs/net.md, "Identity"). The transport signs through a Signer, so the
// node may keep its secret key wherever it likes; these helpers make one from
// an ML-DSA-44 SigningKey and find the public key in a bundle.

#include <functional>
#include <memory>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/signature.hpp"

namespace sion::net {

// Signs `message` with the local validator's ML-DSA-44 key (FIPS 204 pure
// interface, empty context) and returns the 2420-byte signature. Called on
// the transport's io thread, once per handshake.
using Signer = std::function<base::Result<base::Bytes>(base::ByteView message)>;

// signer(message), with an exception it throws turned into an internal
// error: the transport calls a caller's function on its io thread and must
// not let it unwind through Asio.
base::Result<base::Bytes> call_signer(const Signer& signer, base::ByteView message);

// A Signer over `key`, hedged. invalid_argument unless it is an ML-DSA-44 key.
base::Result<Signer> mldsa_signer(std::shared_ptr<const crypto::SigningKey> key);

// The ML-DSA-44 public key of a bundle: invalid_argument when it has none or
// one of the wrong size.
base::Result<base::Bytes> mldsa_public_key(const crypto::KeyBundle& keys);

// The SigningKey of component `scheme` of the bundle that
// crypto::SigningBundle::from_seed(profile, master) derives, by the same
// rule: component i's seed is SHAKE256("sion/bundle-key/v1" || u8 i ||
// master)[0..32) (sion/crypto/bundle.hpp). For a node whose validator key
// is a bundle seed; a test checks the public keys agree.
base::Result<crypto::SigningKey> bundle_component_key(crypto::Profile profile, const crypto::KeySeed& master,
                                                      crypto::Scheme scheme);

}  // namespace sion::net
