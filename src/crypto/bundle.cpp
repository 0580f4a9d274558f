#include "sion/crypto/bundle.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "sion/base/random.hpp"

namespace sion::crypto {
namespace {

constexpr std::string_view kBundleIdTag = "sion/key-bundle/v1";
constexpr std::string_view kBoundMessageTag = "sion/bundle-sig/v1";
constexpr std::string_view kComponentSeedTag = "sion/bundle-key/v1";

constexpr Scheme kDual[] = {Scheme::ml_dsa_44, Scheme::slh_dsa_sha2_128f};
constexpr Scheme kCold[] = {Scheme::slh_dsa_sha2_128s};
constexpr Scheme kStrong[] = {Scheme::ml_dsa_87, Scheme::slh_dsa_sha2_256s};
constexpr Scheme kHybrid[] = {Scheme::ed25519, Scheme::ml_dsa_44};
constexpr Scheme kClassic[] = {Scheme::ed25519, Scheme::ecdsa_p256};

struct ProfileInfo {
  Profile profile;
  std::string_view name;
  std::span<const Scheme> schemes;
};

constexpr ProfileInfo kProfiles[] = {
    {Profile::dual, "dual", kDual},       {Profile::cold, "cold", kCold},          {Profile::strong, "strong", kStrong},
    {Profile::hybrid, "hybrid", kHybrid}, {Profile::classic, "classic", kClassic},
};

}  // namespace

KeySeed component_seed(const KeySeed& master, std::uint8_t index) {
  Shake256 xof;
  xof.absorb(base::as_bytes(kComponentSeedTag));
  xof.absorb({&index, 1});
  xof.absorb(master);
  xof.finalize();
  KeySeed seed;
  xof.squeeze(seed);
  return seed;
}

std::string_view profile_name(Profile profile) noexcept {
  for (const auto& p : kProfiles) {
    if (p.profile == profile) return p.name;
  }
  return "unknown profile";
}

std::optional<Profile> profile_from_name(std::string_view name) noexcept {
  for (const auto& p : kProfiles) {
    if (p.name == name) return p.profile;
  }
  return std::nullopt;
}

std::span<const Scheme> profile_schemes(Profile profile) noexcept {
  for (const auto& p : kProfiles) {
    if (p.profile == profile) return p.schemes;
  }
  return {};
}

bool KeyBundle::has_scheme(Scheme scheme) const noexcept {
  for (const PublicKeyPart& part : parts) {
    if (part.scheme == scheme) return true;
  }
  return false;
}

std::optional<Profile> KeyBundle::profile() const noexcept {
  for (const auto& p : kProfiles) {
    if (p.schemes.size() != parts.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < parts.size(); ++i) same = same && parts[i].scheme == p.schemes[i];
    if (same) return p.profile;
  }
  return std::nullopt;
}

std::size_t SignatureBundle::byte_size() const noexcept {
  std::size_t total = 0;
  for (const auto& part : parts) total += part.size();
  return total;
}

base::Status check_key_bundle(const KeyBundle& bundle) {
  if (bundle.parts.empty()) return base::fail(base::Errc::invalid_value, "key bundle has no keys");
  if (!codec::valid(bundle)) {
    return base::fail(base::Errc::length_over_max,
                      "key bundle has more than " + std::to_string(kMaxBundleKeys) + " keys or an oversized key");
  }
  for (std::size_t i = 0; i < bundle.parts.size(); ++i) {
    const auto& part = bundle.parts[i];
    const std::size_t expected = scheme_sizes(part.scheme).public_key;
    if (expected == 0) {
      return base::fail(base::Errc::invalid_value, "key " + std::to_string(i) + " names an unknown scheme");
    }
    if (part.key.size() != expected) {
      return base::fail(base::Errc::invalid_value,
                        "key " + std::to_string(i) + " (" + std::string(scheme_name(part.scheme)) + ") has " +
                            std::to_string(part.key.size()) + " bytes, expected " + std::to_string(expected));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (bundle.parts[j].scheme == part.scheme) {
        return base::fail(base::Errc::invalid_value,
                          "scheme " + std::string(scheme_name(part.scheme)) + " appears twice in the key bundle");
      }
    }
  }
  return {};
}

Hash256 bundle_id(const KeyBundle& bundle) {
  Sha3_256 h;
  h.absorb(base::as_bytes(kBundleIdTag));
  h.absorb(codec::encode(bundle));
  h.finalize();
  Hash256 id;
  h.squeeze(id);
  return id;
}

void bundle_ids(std::span<const KeyBundle* const> bundles, Hash256* out) {
  // Tag || encoding of every bundle, then SHA3-256 in lanes.
  std::vector<base::Bytes> inputs(bundles.size());
  for (std::size_t i = 0; i < bundles.size(); ++i) {
    const std::size_t size = kBundleIdTag.size() + codec::encoded_size(*bundles[i]);
    inputs[i].reserve(size);
    inputs[i].assign(kBundleIdTag.begin(), kBundleIdTag.end());
    codec::Writer writer(inputs[i]);
    codec::encode_to(writer, *bundles[i]);
  }
  const std::vector<base::ByteView> views(inputs.begin(), inputs.end());
  sha3_256_each(views, out);
}

base::Result<base::Bytes> bound_message(const Hash256& id, base::ByteView message, base::ByteView context) {
  if (context.size() > kMaxContextBytes) {
    return base::fail(base::Errc::length_over_max,
                      "context has " + std::to_string(context.size()) + " bytes; the limit is 255");
  }
  base::Bytes out;
  out.reserve(kBoundMessageTag.size() + id.size() + 1 + context.size() + message.size());
  out.insert(out.end(), kBoundMessageTag.begin(), kBoundMessageTag.end());
  out.insert(out.end(), id.begin(), id.end());
  out.push_back(static_cast<std::uint8_t>(context.size()));
  out.insert(out.end(), context.begin(), context.end());
  out.insert(out.end(), message.begin(), message.end());
  return out;
}

SigningBundle::SigningBundle(std::vector<SigningKey> keys, KeyBundle public_bundle) noexcept
    : keys_(std::move(keys)), public_(std::move(public_bundle)), id_(bundle_id(public_)) {}

base::Result<SigningBundle> SigningBundle::from_seed(std::span<const Scheme> schemes, const KeySeed& master) {
  if (schemes.empty() || schemes.size() > kMaxBundleKeys) {
    return base::fail(base::Errc::invalid_argument, "a bundle has 1 to " + std::to_string(kMaxBundleKeys) +
                                                        " keys, not " + std::to_string(schemes.size()));
  }
  std::vector<SigningKey> keys;
  KeyBundle public_bundle;
  keys.reserve(schemes.size());
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    KeySeed seed = component_seed(master, static_cast<std::uint8_t>(i));
    auto key = SigningKey::from_seed(schemes[i], seed);
    base::secure_wipe(seed.data(), seed.size());
    if (!key) return base::fail(std::move(key).error());
    PublicKeyPart part;
    part.scheme = schemes[i];
    part.key.assign(key->public_key().begin(), key->public_key().end());
    public_bundle.parts.push_back(std::move(part));
    keys.push_back(std::move(key).value());
  }
  SION_TRY_STATUS(check_key_bundle(public_bundle));
  return SigningBundle(std::move(keys), std::move(public_bundle));
}

base::Result<SigningBundle> SigningBundle::from_seed(Profile profile, const KeySeed& master) {
  return from_seed(profile_schemes(profile), master);
}

base::Result<SigningBundle> SigningBundle::generate(Profile profile) {
  auto master = base::random_array<kKeySeedBytes>();
  if (!master) return base::fail(std::move(master).error());
  auto bundle = from_seed(profile, *master);
  base::secure_wipe(master->data(), master->size());
  return bundle;
}

base::Result<SignatureBundle> SigningBundle::sign(base::ByteView message, base::ByteView context,
                                                  Hedging hedging) const {
  SION_TRY(const auto bound, bound_message(id_, message, context));
  SignatureBundle out;
  for (const auto& key : keys_) {
    SION_TRY(auto sig, key.sign(bound, hedging));
    out.parts.emplace_back(std::move(sig));
  }
  return out;
}

bool verify_bundle(const KeyBundleRef& ref, base::ByteView message, base::ByteView context,
                   const SignatureBundle& signatures) noexcept {
  const KeyBundle& keys = ref.keys();
  if (!check_key_bundle(keys).ok() || signatures.parts.size() != keys.parts.size()) return false;
  auto bound = bound_message(ref.id(), message, context);
  if (!bound) return false;
  for (std::size_t i = 0; i < keys.parts.size(); ++i) {
    if (!verify(keys.parts[i].scheme, keys.parts[i].key, *bound, signatures.parts[i])) return false;
  }
  return true;
}

bool verify_bundle(const KeyBundle& keys, base::ByteView message, base::ByteView context,
                   const SignatureBundle& signatures) noexcept {
  return verify_bundle(KeyBundleRef(keys), message, context, signatures);
}

}  // namespace sion::crypto
