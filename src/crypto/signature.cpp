#include "sion/crypto/signature.hpp"

#include <array>
#include <utility>

#include "sion/base/random.hpp"
#include "sion/crypto/classical.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::crypto {
namespace {

struct SchemeInfo {
  Scheme scheme;
  std::string_view name;
  bool post_quantum;
};

constexpr SchemeInfo kSchemeInfo[] = {
    {Scheme::ml_dsa_44, "ML-DSA-44", true},
    {Scheme::ml_dsa_65, "ML-DSA-65", true},
    {Scheme::ml_dsa_87, "ML-DSA-87", true},
    {Scheme::slh_dsa_sha2_128s, "SLH-DSA-SHA2-128s", true},
    {Scheme::slh_dsa_sha2_128f, "SLH-DSA-SHA2-128f", true},
    {Scheme::slh_dsa_sha2_192f, "SLH-DSA-SHA2-192f", true},
    {Scheme::slh_dsa_sha2_256s, "SLH-DSA-SHA2-256s", true},
    {Scheme::slh_dsa_shake_128f, "SLH-DSA-SHAKE-128f", true},
    {Scheme::ed25519, "Ed25519", false},
    {Scheme::ecdsa_p256, "ECDSA-P256", false},
    {Scheme::ecdsa_secp256k1, "ECDSA-secp256k1", false},
};

const SchemeInfo* info(Scheme scheme) noexcept {
  for (const auto& entry : kSchemeInfo) {
    if (entry.scheme == scheme) return &entry;
  }
  return nullptr;
}

std::optional<mldsa::Level> mldsa_level(Scheme scheme) noexcept {
  switch (scheme) {
    case Scheme::ml_dsa_44: return mldsa::Level::k44;
    case Scheme::ml_dsa_65: return mldsa::Level::k65;
    case Scheme::ml_dsa_87: return mldsa::Level::k87;
    default: return std::nullopt;
  }
}

std::optional<slhdsa::ParameterSet> slhdsa_set(Scheme scheme) noexcept {
  switch (scheme) {
    case Scheme::slh_dsa_sha2_128s: return slhdsa::ParameterSet::sha2_128s;
    case Scheme::slh_dsa_sha2_128f: return slhdsa::ParameterSet::sha2_128f;
    case Scheme::slh_dsa_sha2_192f: return slhdsa::ParameterSet::sha2_192f;
    case Scheme::slh_dsa_sha2_256s: return slhdsa::ParameterSet::sha2_256s;
    case Scheme::slh_dsa_shake_128f: return slhdsa::ParameterSet::shake_128f;
    default: return std::nullopt;
  }
}

// docs/crypto.md, "Key derivation": SHAKE256("sion/key/v1" || scheme ||
// counter (u32, little endian) || seed), as many bytes as the scheme needs.
template <std::size_t N>
base::ByteArray<N> derive_material(Scheme scheme, std::uint32_t counter, const KeySeed& seed) {
  static constexpr std::string_view kTag = "sion/key/v1";
  const std::array<std::uint8_t, 5> header{
      static_cast<std::uint8_t>(scheme), static_cast<std::uint8_t>(counter), static_cast<std::uint8_t>(counter >> 8),
      static_cast<std::uint8_t>(counter >> 16), static_cast<std::uint8_t>(counter >> 24)};
  Shake256 xof;
  xof.absorb(base::as_bytes(kTag));
  xof.absorb(header);
  xof.absorb(seed);
  xof.finalize();
  base::ByteArray<N> out;
  xof.squeeze(out);
  return out;
}

// Copies a fixed-size result into a byte vector.
template <std::size_t N>
base::Bytes to_bytes(const base::ByteArray<N>& array) {
  return base::Bytes(array.begin(), array.end());
}

// A classical scheme's keygen, retried with the next counter while the
// candidate scalar is invalid (probability about 2^-32 for P-256).
template <class KeygenFn>
base::Result<std::pair<base::ByteArray<32>, base::Bytes>> classical_key(Scheme scheme, const KeySeed& seed,
                                                                        KeygenFn keygen) {
  for (std::uint32_t counter = 0; counter < 64; ++counter) {
    auto secret = derive_material<32>(scheme, counter, seed);
    auto public_key = keygen(secret);
    if (public_key) return std::pair{secret, to_bytes(*public_key)};
    base::secure_wipe(secret.data(), secret.size());
    if (public_key.error().code != base::Errc::invalid_value) return base::fail(std::move(public_key).error());
  }
  return base::fail(base::Errc::internal, "no valid scalar in 64 derivations");
}

}  // namespace

std::string_view scheme_name(Scheme scheme) noexcept {
  const SchemeInfo* entry = info(scheme);
  return entry ? entry->name : std::string_view("unknown scheme");
}

std::optional<Scheme> scheme_from_name(std::string_view name) noexcept {
  for (const auto& entry : kSchemeInfo) {
    if (entry.name == name) return entry.scheme;
  }
  return std::nullopt;
}

bool is_post_quantum(Scheme scheme) noexcept {
  const SchemeInfo* entry = info(scheme);
  return entry != nullptr && entry->post_quantum;
}

SchemeSizes scheme_sizes(Scheme scheme) noexcept {
  if (auto level = mldsa_level(scheme)) {
    const auto s = mldsa::sizes(*level);
    return {s.public_key, s.signature};
  }
  if (auto set = slhdsa_set(scheme)) {
    const auto& p = slhdsa::params(*set);
    return {p.pk_bytes, p.sig_bytes};
  }
  switch (scheme) {
    case Scheme::ed25519: return {ed25519::kPublicKeyBytes, ed25519::kSignatureBytes};
    case Scheme::ecdsa_p256: return {p256::kPublicKeyBytes, p256::kSignatureBytes};
    case Scheme::ecdsa_secp256k1: return {secp256k1::kPublicKeyBytes, secp256k1::kSignatureBytes};
    default: return {0, 0};
  }
}

SigningKey::SigningKey(Scheme scheme, Secret secret, base::Bytes public_key) noexcept
    : scheme_(scheme), secret_(std::move(secret)), public_key_(std::move(public_key)) {}

SigningKey::SigningKey(SigningKey&& other) noexcept = default;
SigningKey& SigningKey::operator=(SigningKey&& other) noexcept {
  if (auto* classical = std::get_if<base::ByteArray<32>>(&secret_)) {
    base::secure_wipe(classical->data(), classical->size());
  }
  scheme_ = other.scheme_;
  secret_ = std::move(other.secret_);
  public_key_ = std::move(other.public_key_);
  return *this;
}

SigningKey::~SigningKey() {
  // ML-DSA and SLH-DSA secret keys wipe themselves.
  if (auto* classical = std::get_if<base::ByteArray<32>>(&secret_)) {
    base::secure_wipe(classical->data(), classical->size());
  }
}

base::Result<SigningKey> SigningKey::from_seed(Scheme scheme, const KeySeed& seed) {
  if (auto level = mldsa_level(scheme)) {
    auto xi = derive_material<mldsa::kSeedBytes>(scheme, 0, seed);
    auto pair = mldsa::keygen(*level, xi);
    base::secure_wipe(xi.data(), xi.size());
    return SigningKey(scheme, std::move(pair.secret_key), std::move(pair.public_key));
  }
  if (auto set = slhdsa_set(scheme)) {
    const std::size_t n = slhdsa::params(*set).n;
    auto material = derive_material<3 * 32>(scheme, 0, seed);  // n <= 32
    const base::ByteView all(material);
    auto pair = slhdsa::keygen(*set, all.subspan(0, n), all.subspan(n, n), all.subspan(2 * n, n));
    base::secure_wipe(material.data(), material.size());
    if (!pair) return base::fail(std::move(pair).error());
    base::Bytes public_key(pair->public_key.bytes().begin(), pair->public_key.bytes().end());
    return SigningKey(scheme, std::move(pair->secret_key), std::move(public_key));
  }
  base::Result<std::pair<base::ByteArray<32>, base::Bytes>> key = base::fail(
      base::Errc::invalid_argument, "unknown signature scheme " + std::to_string(static_cast<unsigned>(scheme)));
  switch (scheme) {
    case Scheme::ed25519: key = classical_key(scheme, seed, ed25519::keygen); break;
    case Scheme::ecdsa_p256: key = classical_key(scheme, seed, p256::keygen); break;
    case Scheme::ecdsa_secp256k1: key = classical_key(scheme, seed, secp256k1::keygen); break;
    default: break;
  }
  if (!key) return base::fail(std::move(key).error());
  SigningKey result(scheme, key->first, std::move(key->second));
  base::secure_wipe(key->first.data(), key->first.size());
  return result;
}

base::Result<SigningKey> SigningKey::generate(Scheme scheme) {
  auto seed = base::random_array<kKeySeedBytes>();
  if (!seed) return base::fail(std::move(seed).error());
  auto key = from_seed(scheme, *seed);
  base::secure_wipe(seed->data(), seed->size());
  return key;
}

base::Result<base::Bytes> SigningKey::sign(base::ByteView message, Hedging hedging) const {
  const bool hedged = hedging == Hedging::hedged;
  if (const auto* sk = std::get_if<mldsa::SecretKey>(&secret_)) {
    if (!hedged) return mldsa::sign_deterministic(*sk, message, {});
    SION_TRY(const auto rnd, base::random_array<mldsa::kRndBytes>());
    return mldsa::sign(*sk, message, {}, rnd);
  }
  if (const auto* sk = std::get_if<slhdsa::SecretKey>(&secret_)) {
    if (!hedged) return slhdsa::sign_deterministic(*sk, message, {});
    base::ByteArray<32> addrnd;
    const std::size_t n = slhdsa::params(sk->parameter_set()).n;
    SION_TRY_STATUS(base::random_bytes({addrnd.data(), n}));
    return slhdsa::sign(*sk, message, {}, {addrnd.data(), n});
  }
  if (const auto* secret = std::get_if<base::ByteArray<32>>(&secret_)) {
    const auto as_bytes = [](auto sig) -> base::Result<base::Bytes> {
      if (!sig) return base::fail(std::move(sig).error());
      return to_bytes(*sig);
    };
    switch (scheme_) {
      case Scheme::ed25519: return as_bytes(ed25519::sign(*secret, message));
      case Scheme::ecdsa_p256: return as_bytes(p256::sign(*secret, message));
      case Scheme::ecdsa_secp256k1: return as_bytes(secp256k1::sign(*secret, message));
      default: break;
    }
  }
  return base::fail(base::Errc::internal, "signing key holds no secret (moved from?)");
}

bool verify(Scheme scheme, base::ByteView public_key, base::ByteView message, base::ByteView signature) noexcept {
  if (auto level = mldsa_level(scheme)) return mldsa::verify(*level, public_key, message, {}, signature);
  if (auto set = slhdsa_set(scheme)) {
    auto pk = slhdsa::PublicKey::from_bytes(*set, public_key);
    return pk.ok() && slhdsa::verify(*pk, message, {}, signature);
  }
  switch (scheme) {
    case Scheme::ed25519: return ed25519::verify(public_key, message, signature);
    case Scheme::ecdsa_p256: return p256::verify(public_key, message, signature);
    case Scheme::ecdsa_secp256k1: return secp256k1::verify(public_key, message, signature);
    default: return false;
  }
}

}  // namespace sion::crypto
