#pragma once
// Composite key and signature bundles (docs/crypto.md, "Bundles").
//
// A key bundle is an ordered list of (scheme, public key). A signature bundle
// has one signature per key, in the same order, and verifies only if every
// one does. Every component signs the same bound message
//
//   M' = "sion/bundle-sig/v1" || bundle id || len(ctx) || ctx || message
//
// where the bundle id is the tagged SHA3-256 of the whole key bundle's
// encoding. So a component signature is tied to this exact bundle: it cannot
// be lifted into another bundle, nor stripped to leave a weaker bundle that
// still verifies (in the spirit of the IETF composite ML-DSA draft, whose
// message representative likewise binds the combination).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/crypto/signature.hpp"

namespace sion::crypto {

inline constexpr std::size_t kMaxBundleKeys = 4;
inline constexpr std::size_t kMaxContextBytes = 255;

// Named combinations (docs/crypto.md, "Profiles"). Numbers are wire values.
enum class Profile : std::uint8_t {
  dual = 0,     // ML-DSA-44 + SLH-DSA-SHA2-128f: accounts and validators by default
  cold = 1,     // SLH-DSA-SHA2-128s: keys that sign rarely
  strong = 2,   // ML-DSA-87 + SLH-DSA-SHA2-256s
  hybrid = 3,   // Ed25519 + ML-DSA-44
  classic = 4,  // Ed25519 + ECDSA-P256, two classical schemes (legacy only)
};
inline constexpr Profile kAllProfiles[] = {Profile::dual, Profile::cold, Profile::strong, Profile::hybrid,
                                           Profile::classic};
constexpr std::span<const Profile> codec_enum_values(Profile) { return kAllProfiles; }

std::string_view profile_name(Profile profile) noexcept;
std::optional<Profile> profile_from_name(std::string_view name) noexcept;
std::span<const Scheme> profile_schemes(Profile profile) noexcept;

struct PublicKeyPart {
  Scheme scheme = Scheme::ml_dsa_44;
  codec::VarBytes<kMaxPublicKeyBytes> key;
  static constexpr std::string_view codec_name = "PublicKeyPart";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("scheme", &PublicKeyPart::scheme), codec::field("key", &PublicKeyPart::key)};
  }
  bool operator==(const PublicKeyPart&) const = default;
};

struct KeyBundle {
  codec::List<PublicKeyPart, kMaxBundleKeys> parts;
  static constexpr std::string_view codec_name = "KeyBundle";
  static constexpr auto codec_fields() { return std::tuple{codec::field("parts", &KeyBundle::parts)}; }
  bool operator==(const KeyBundle&) const = default;

  // The profile whose schemes these are, in order, if any.
  std::optional<Profile> profile() const noexcept;
  // Whether one of the parts is a key of `scheme`.
  bool has_scheme(Scheme scheme) const noexcept;
};

struct SignatureBundle {
  codec::List<codec::VarBytes<kMaxSignatureBytes>, kMaxBundleKeys> parts;
  static constexpr std::string_view codec_name = "SignatureBundle";
  static constexpr auto codec_fields() { return std::tuple{codec::field("parts", &SignatureBundle::parts)}; }
  bool operator==(const SignatureBundle&) const = default;

  std::size_t byte_size() const noexcept;  // sum of the signatures' lengths
};

// Checks what the codec cannot: at least one part, every key of its scheme's
// exact size, no scheme twice. Decoded bundles must pass this before use.
base::Status check_key_bundle(const KeyBundle& bundle);

// SHA3-256("sion/key-bundle/v1" || encode(bundle)).
Hash256 bundle_id(const KeyBundle& bundle);
// bundle_id(*bundles[i]) into out[i]; bundles whose encodings are of equal
// length (one profile) are hashed together in Keccak lanes.
void bundle_ids(std::span<const KeyBundle* const> bundles, Hash256* out);

// A key bundle together with its own id: what verification takes, so that
// no caller can pair keys with an id that is not theirs (the bound message
// and the verification cache are keyed by the id). Only the bundle's own
// hash, or the SigningBundle that computed it, makes one. Refers to the
// bundle: it must not outlive it.
class KeyBundleRef {
 public:
  explicit KeyBundleRef(const KeyBundle& keys) : keys_(&keys), id_(bundle_id(keys)) {}
  explicit KeyBundleRef(KeyBundle&&) = delete;  // would dangle

  const KeyBundle& keys() const noexcept { return *keys_; }
  const Hash256& id() const noexcept { return id_; }

 private:
  friend class SigningBundle;
  KeyBundleRef(const KeyBundle& keys, const Hash256& id) noexcept : keys_(&keys), id_(id) {}

  const KeyBundle* keys_;
  Hash256 id_;
};

// The bound message M' every component signs (see above). Fails for a
// context longer than 255 bytes.
base::Result<base::Bytes> bound_message(const Hash256& bundle_id, base::ByteView message, base::ByteView context);

// The seed of component `index` of a bundle derived from `master`:
// SHAKE256("sion/bundle-key/v1" || index || master)[0..32) (docs/crypto.md,
// "Key derivation"). SigningBundle::from_seed uses it for every part; a
// holder of the master seed uses it to rebuild one part's SigningKey alone
// (a validator's ML-DSA-44 link key).
KeySeed component_seed(const KeySeed& master, std::uint8_t index);

// The secret side of a bundle: one SigningKey per part.
class SigningBundle {
 public:
  // Derives every component from one 32-byte master seed:
  // component i uses SHAKE256("sion/bundle-key/v1" || i || master)[0..32).
  static base::Result<SigningBundle> from_seed(Profile profile, const KeySeed& master);
  static base::Result<SigningBundle> from_seed(std::span<const Scheme> schemes, const KeySeed& master);
  static base::Result<SigningBundle> generate(Profile profile);

  const KeyBundle& public_bundle() const noexcept { return public_; }
  const Hash256& id() const noexcept { return id_; }
  // The public bundle with the id computed at construction.
  KeyBundleRef public_ref() const noexcept { return {public_, id_}; }

  base::Result<SignatureBundle> sign(base::ByteView message, base::ByteView context,
                                     Hedging hedging = Hedging::hedged) const;

 private:
  SigningBundle(std::vector<SigningKey> keys, KeyBundle public_bundle) noexcept;

  std::vector<SigningKey> keys_;
  KeyBundle public_;
  Hash256 id_;
};

// True only if the bundles are well formed, have the same number of parts,
// and every component verifies over the bound message. Never throws.
bool verify_bundle(const KeyBundle& keys, base::ByteView message, base::ByteView context,
                   const SignatureBundle& signatures) noexcept;

// The same with the bundle id already computed, carried by the keys.
bool verify_bundle(const KeyBundleRef& keys, base::ByteView message, base::ByteView context,
                   const SignatureBundle& signatures) noexcept;

}  // namespace sion::crypto
