#pragma once
// SLH-DSA, the stateless hash-based signature scheme of FIPS 205, for the
// parameter sets Sion uses (FIPS 205, Sec. 11, Table 2).
//
// Keys are typed: a PublicKey or SecretKey knows its parameter set and can
// only be built with the right length, so signing and verification never see
// a mis-sized key. Verification returns false for every malformed input
// (wrong signature length, context over 255 bytes); signing reports bad
// arguments as a Result error. Nothing here throws except std::bad_alloc
// when memory runs out.
//
// There is no random-number generator in this layer: key generation takes
// its three seeds, and hedged signing its n random bytes, from the caller,
// who must draw them from an approved RBG (FIPS 205, Sec. 3.1).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::crypto::slhdsa {

enum class ParameterSet : std::uint8_t {
  sha2_128s,
  sha2_128f,
  sha2_192f,
  sha2_256s,
  shake_128f,
};

enum class HashFamily : std::uint8_t { sha2, shake };

// One row of FIPS 205 Table 2 plus the sizes derived from it.
struct Params {
  ParameterSet set;
  std::string_view name;  // as in FIPS 205 and ACVP, e.g. "SLH-DSA-SHA2-128s"
  HashFamily family;
  unsigned security_category;
  std::size_t n;          // security parameter: bytes per hash value
  std::size_t h;          // total hypertree height
  std::size_t d;          // hypertree layers
  std::size_t hp;         // h' = h / d, height of each XMSS tree
  std::size_t a;          // FORS tree height
  std::size_t k;          // number of FORS trees
  std::size_t lg_w;       // log2 of the Winternitz parameter w
  std::size_t m;          // bytes of H_msg output
  std::size_t len;        // WOTS+ chains: len1 + len2 (FIPS 205, Sec. 5, Alg. 1)
  std::size_t pk_bytes;   // 2n: PK.seed || PK.root
  std::size_t sk_bytes;   // 4n: SK.seed || SK.prf || PK.seed || PK.root
  std::size_t sig_bytes;  // (1 + k(1 + a) + h + d * len) * n
};

namespace detail {

// FIPS 205, Alg. 1 (gen_len2) together with len1 = ceil(8n / lg_w).
constexpr std::size_t wots_len(std::size_t n, std::size_t lg_w) {
  const std::size_t w = std::size_t{1} << lg_w;
  const std::size_t len1 = (8 * n + lg_w - 1) / lg_w;
  const std::size_t max_checksum = len1 * (w - 1);
  std::size_t len2 = 1;
  std::size_t capacity = w;
  while (capacity <= max_checksum) {
    ++len2;
    capacity *= w;
  }
  return len1 + len2;
}

constexpr Params make_params(ParameterSet set, std::string_view name, HashFamily family, unsigned category,
                             std::size_t n, std::size_t h, std::size_t d, std::size_t hp, std::size_t a, std::size_t k,
                             std::size_t lg_w, std::size_t m) {
  const std::size_t len = wots_len(n, lg_w);
  return Params{set, name, family, category, n,   h,     d,     hp,
                a,   k,    lg_w,   m,        len, 2 * n, 4 * n, (1 + k * (1 + a) + h + d * len) * n};
}

}  // namespace detail

// Indexed by ParameterSet. Arguments: set, name, hash family, security
// category, n, h, d, h', a, k, lg_w, m (FIPS 205, Table 2).
inline constexpr std::array<Params, 5> kParameterSets = {
    detail::make_params(ParameterSet::sha2_128s, "SLH-DSA-SHA2-128s", HashFamily::sha2, 1, 16, 63, 7, 9, 12, 14, 4, 30),
    detail::make_params(ParameterSet::sha2_128f, "SLH-DSA-SHA2-128f", HashFamily::sha2, 1, 16, 66, 22, 3, 6, 33, 4, 34),
    detail::make_params(ParameterSet::sha2_192f, "SLH-DSA-SHA2-192f", HashFamily::sha2, 3, 24, 66, 22, 3, 8, 33, 4, 42),
    detail::make_params(ParameterSet::sha2_256s, "SLH-DSA-SHA2-256s", HashFamily::sha2, 5, 32, 64, 8, 8, 14, 22, 4, 47),
    detail::make_params(ParameterSet::shake_128f, "SLH-DSA-SHAKE-128f", HashFamily::shake, 1, 16, 66, 22, 3, 6, 33, 4,
                        34),
};

constexpr const Params& params(ParameterSet set) noexcept { return kParameterSets[static_cast<std::size_t>(set)]; }

// Looks a parameter set up by its FIPS 205 name ("SLH-DSA-SHA2-128s").
std::optional<ParameterSet> parameter_set_from_name(std::string_view name) noexcept;

class PublicKey {
 public:
  static constexpr std::size_t kMaxBytes = 64;

  // PK.seed || PK.root; fails unless bytes.size() == params(set).pk_bytes.
  static base::Result<PublicKey> from_bytes(ParameterSet set, base::ByteView bytes);

  ParameterSet parameter_set() const noexcept { return set_; }
  base::ByteView bytes() const noexcept { return {bytes_.data(), params(set_).pk_bytes}; }

  friend bool operator==(const PublicKey&, const PublicKey&) = default;

 private:
  friend class SecretKey;
  PublicKey(ParameterSet set, base::ByteView bytes) noexcept;

  ParameterSet set_;
  std::array<std::uint8_t, kMaxBytes> bytes_{};  // zero past pk_bytes
};

class SecretKey {
 public:
  static constexpr std::size_t kMaxBytes = 128;

  // SK.seed || SK.prf || PK.seed || PK.root; fails unless bytes.size() ==
  // params(set).sk_bytes. PK.root is not recomputed here (that would cost a
  // key generation); signing checks it at no extra cost and refuses a key
  // whose PK.root does not match its seeds.
  static base::Result<SecretKey> from_bytes(ParameterSet set, base::ByteView bytes);

  SecretKey(const SecretKey&) = default;
  SecretKey& operator=(const SecretKey&) = default;
  ~SecretKey();

  ParameterSet parameter_set() const noexcept { return set_; }
  // The encoded secret key. Secret: do not log it.
  base::ByteView bytes() const noexcept { return {bytes_.data(), params(set_).sk_bytes}; }
  PublicKey public_key() const noexcept;

 private:
  SecretKey(ParameterSet set, base::ByteView bytes) noexcept;

  ParameterSet set_;
  std::array<std::uint8_t, kMaxBytes> bytes_{};  // zero past sk_bytes
};

struct KeyPair {
  SecretKey secret_key;
  PublicKey public_key;
};

// slh_keygen_internal (FIPS 205, Alg. 18): the key pair for the given n-byte
// seeds. With seeds fresh from an approved RBG this is slh_keygen (Alg. 21).
// Fails unless every seed is exactly n bytes.
base::Result<KeyPair> keygen(ParameterSet set, base::ByteView sk_seed, base::ByteView sk_prf, base::ByteView pk_seed);

// slh_sign (FIPS 205, Alg. 22), pure: signs M' = 0x00 || len(ctx) || ctx || M.
// `addrnd` is opt_rand, n fresh random bytes (hedged signing, the FIPS 205
// default). Fails if ctx is over 255 bytes, addrnd is not n bytes, or the
// key is inconsistent (see SecretKey::from_bytes); the same holds for every
// signing function below.
base::Result<base::Bytes> sign(const SecretKey& sk, base::ByteView message, base::ByteView context,
                               base::ByteView addrnd);

// slh_sign with the deterministic variant: opt_rand = PK.seed (Alg. 19, line 2).
// Fails if ctx is over 255 bytes.
base::Result<base::Bytes> sign_deterministic(const SecretKey& sk, base::ByteView message, base::ByteView context);

// slh_verify (FIPS 205, Alg. 24), pure. False for any malformed input.
bool verify(const PublicKey& pk, base::ByteView message, base::ByteView context, base::ByteView signature) noexcept;

// slh_sign_internal (FIPS 205, Alg. 19) on M as given (no context, no
// domain separator): for conformance tests and protocols that build M'
// themselves.
base::Result<base::Bytes> sign_internal(const SecretKey& sk, base::ByteView message, base::ByteView addrnd);
base::Result<base::Bytes> sign_internal_deterministic(const SecretKey& sk, base::ByteView message);

// slh_verify_internal (FIPS 205, Alg. 20). False for any malformed input.
bool verify_internal(const PublicKey& pk, base::ByteView message, base::ByteView signature) noexcept;

}  // namespace sion::crypto::slhdsa
