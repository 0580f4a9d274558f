#pragma once
// One interface over every signature scheme Sion accepts, so that key
// bundles, accounts and validators name a scheme and never care how it is
// implemented. Scheme numbers are part of the wire format (docs/crypto.md):
// append new ones, never renumber.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/crypto/mldsa.hpp"
#include "sion/crypto/slhdsa.hpp"

namespace sion::crypto {

enum class Scheme : std::uint8_t {
  ml_dsa_44 = 0,
  ml_dsa_65 = 1,
  ml_dsa_87 = 2,
  slh_dsa_sha2_128s = 3,
  slh_dsa_sha2_128f = 4,
  slh_dsa_sha2_192f = 5,
  slh_dsa_sha2_256s = 6,
  slh_dsa_shake_128f = 7,
  ed25519 = 8,
  ecdsa_p256 = 9,
  ecdsa_secp256k1 = 10,
};

inline constexpr Scheme kAllSchemes[] = {
    Scheme::ml_dsa_44,         Scheme::ml_dsa_65,         Scheme::ml_dsa_87,         Scheme::slh_dsa_sha2_128s,
    Scheme::slh_dsa_sha2_128f, Scheme::slh_dsa_sha2_192f, Scheme::slh_dsa_sha2_256s, Scheme::slh_dsa_shake_128f,
    Scheme::ed25519,           Scheme::ecdsa_p256,        Scheme::ecdsa_secp256k1,
};

// For the codec: every scheme number (sion/codec/codec.hpp, enums).
constexpr std::span<const Scheme> codec_enum_values(Scheme) { return kAllSchemes; }

// "ML-DSA-44", "SLH-DSA-SHA2-128f", "Ed25519", "ECDSA-P256", "ECDSA-secp256k1".
std::string_view scheme_name(Scheme scheme) noexcept;
std::optional<Scheme> scheme_from_name(std::string_view name) noexcept;

bool is_post_quantum(Scheme scheme) noexcept;

struct SchemeSizes {
  std::size_t public_key;
  std::size_t signature;  // exact for all schemes: none has variable-length signatures here
};
SchemeSizes scheme_sizes(Scheme scheme) noexcept;

// Largest public key and signature over all schemes (ML-DSA-87's key,
// SLH-DSA-SHA2-192f's signature): the codec maxima of bundle fields.
inline constexpr std::size_t kMaxPublicKeyBytes = 2592;
inline constexpr std::size_t kMaxSignatureBytes = 35664;

// Bytes of seed from which a signing key is derived, for every scheme.
inline constexpr std::size_t kKeySeedBytes = 32;
using KeySeed = base::ByteArray<kKeySeedBytes>;

// Whether signing mixes in fresh randomness (FIPS 204 and 205 "hedged";
// ECDSA-P256 through OpenSSL is always randomized, Ed25519 and secp256k1
// (RFC 6979) are always deterministic).
enum class Hedging : std::uint8_t { hedged, deterministic };

// A secret key of one scheme with its public key. Move-only; secret material
// is wiped on destruction.
class SigningKey {
 public:
  // Derives the scheme's key material from a 32-byte seed with SHAKE256 under
  // a per-scheme domain tag (docs/crypto.md, "Key derivation"). ECDSA
  // scalars are drawn again, with a counter, in the negligible case that a
  // candidate is zero or not below the group order.
  static base::Result<SigningKey> from_seed(Scheme scheme, const KeySeed& seed);

  // A fresh key from the operating system's randomness.
  static base::Result<SigningKey> generate(Scheme scheme);

  SigningKey(SigningKey&&) noexcept;
  SigningKey& operator=(SigningKey&&) noexcept;
  ~SigningKey();

  Scheme scheme() const noexcept { return scheme_; }
  base::ByteView public_key() const noexcept { return public_key_; }

  // Signs `message` as the scheme's pure interface does, with an empty
  // context for ML-DSA and SLH-DSA (callers bind their context into the
  // message; see bundle.hpp).
  base::Result<base::Bytes> sign(base::ByteView message, Hedging hedging = Hedging::hedged) const;

 private:
  // The 32-byte array is the secret of Ed25519, P-256 or secp256k1.
  using Secret = std::variant<std::monostate, mldsa::SecretKey, slhdsa::SecretKey, base::ByteArray<32>>;
  SigningKey(Scheme scheme, Secret secret, base::Bytes public_key) noexcept;

  Scheme scheme_;
  Secret secret_;
  base::Bytes public_key_;
};

// Verifies with the scheme's pure interface and an empty context. False for
// keys or signatures of the wrong size and anything malformed; never throws.
// ECDSA signatures must be low-S.
bool verify(Scheme scheme, base::ByteView public_key, base::ByteView message, base::ByteView signature) noexcept;

}  // namespace sion::crypto
