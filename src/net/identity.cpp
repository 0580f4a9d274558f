#include "sion/net/identity.hpp"

#include <exception>
#include <string>
#include <utility>

#include "sion/crypto/bundle.hpp"

namespace sion::net {

base::Result<base::Bytes> call_signer(const Signer& signer, base::ByteView message) {
  try {
    return signer(message);
  } catch (const std::exception& e) {
    return base::fail(base::Errc::internal, std::string("the signer threw: ") + e.what());
  } catch (...) {
    return base::fail(base::Errc::internal, "the signer threw");
  }
}

base::Result<Signer> mldsa_signer(std::shared_ptr<const crypto::SigningKey> key) {
  if (!key) return base::fail(base::Errc::invalid_argument, "no signing key");
  if (key->scheme() != crypto::Scheme::ml_dsa_44) {
    return base::fail(base::Errc::invalid_argument,
                      "a link is signed with an ML-DSA-44 key, not " + std::string(crypto::scheme_name(key->scheme())));
  }
  return Signer([key = std::move(key)](base::ByteView message) { return key->sign(message); });
}

base::Result<base::Bytes> mldsa_public_key(const crypto::KeyBundle& keys) {
  for (const auto& part : keys.parts) {
    if (part.scheme != crypto::Scheme::ml_dsa_44) continue;
    const std::size_t expected = crypto::scheme_sizes(crypto::Scheme::ml_dsa_44).public_key;
    if (part.key.size() != expected) {
      return base::fail(base::Errc::invalid_argument, "the ML-DSA-44 key has " + std::to_string(part.key.size()) +
                                                          " bytes, not " + std::to_string(expected));
    }
    return base::Bytes(part.key.begin(), part.key.end());
  }
  return base::fail(base::Errc::invalid_argument, "the key bundle has no ML-DSA-44 key");
}

base::Result<crypto::SigningKey> bundle_component_key(crypto::Profile profile, const crypto::KeySeed& master,
                                                      crypto::Scheme scheme) {
  const auto schemes = crypto::profile_schemes(profile);
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    if (schemes[i] != scheme) continue;
    crypto::KeySeed seed = crypto::component_seed(master, static_cast<std::uint8_t>(i));
    auto key = crypto::SigningKey::from_seed(scheme, seed);
    base::secure_wipe(seed.data(), seed.size());
    return key;
  }
  return base::fail(base::Errc::invalid_argument, "profile " + std::string(crypto::profile_name(profile)) + " has no " +
                                                      std::string(crypto::scheme_name(scheme)) + " key");
}

}  // namespace sion::net
