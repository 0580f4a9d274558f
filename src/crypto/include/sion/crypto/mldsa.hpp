#pragma once
// ML-DSA, the Module-Lattice-Based Digital Signature Algorithm (FIPS 204):
// ML-DSA-44, -65 and -87, with the pure interface (Alg. 2 and 3), the
// pre-hash interface HashML-DSA (Alg. 4 and 5), the internal functions on a
// formatted message M' (Alg. 7 and 8) and the same from an externally
// computed mu.
//
// Keys and signatures are the standard's byte encodings (Sec. 7.2). Secret
// keys live in SecretKey, which checks them on the way in and wipes itself.
// Nothing here throws on bad input: malformed keys, signatures and contexts
// give a Result error (signing) or false (verification). Key generation and
// signing take no branch and no memory index that depends on secret data,
// other than the accept/reject decisions of rejection sampling that the
// standard permits to be visible.

#include <cstddef>
#include <cstdint>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::crypto::mldsa {

// The three parameter sets of FIPS 204, Table 1.
enum class Level : std::uint8_t { k44, k65, k87 };

// Encoded sizes in bytes (FIPS 204, Table 2).
struct Sizes {
  std::size_t public_key;
  std::size_t secret_key;
  std::size_t signature;
};

constexpr Sizes sizes(Level level) noexcept {
  switch (level) {
    case Level::k44: return {1312, 2560, 2420};
    case Level::k65: return {1952, 4032, 3309};
    case Level::k87: return {2592, 4896, 4627};
  }
  return {0, 0, 0};
}

// "ML-DSA-44" etc.
const char* level_name(Level level) noexcept;

inline constexpr std::size_t kSeedBytes = 32;         // xi, the key-generation seed
inline constexpr std::size_t kRndBytes = 32;          // rnd, the signing randomness
inline constexpr std::size_t kMuBytes = 64;           // mu, the message representative
inline constexpr std::size_t kMaxContextBytes = 255;  // ctx

using Seed = base::ByteArray<kSeedBytes>;
using Rnd = base::ByteArray<kRndBytes>;
using Mu = base::ByteArray<kMuBytes>;

struct KeyPair;

// An encoded ML-DSA secret key (skEncode, Alg. 24) of a known level, checked
// on construction: its length matches the level and every coefficient of s1
// and s2 lies in [-eta, eta]. Move-only; the bytes are wiped when the object
// is destroyed or assigned over.
class SecretKey {
 public:
  static base::Result<SecretKey> from_bytes(Level level, base::ByteView encoded);

  SecretKey(SecretKey&& other) noexcept;
  SecretKey& operator=(SecretKey&& other) noexcept;
  SecretKey(const SecretKey&) = delete;
  SecretKey& operator=(const SecretKey&) = delete;
  ~SecretKey();

  Level level() const noexcept { return level_; }
  // The encoding, for storage. Secret.
  base::ByteView bytes() const noexcept { return bytes_; }

 private:
  friend KeyPair keygen(Level level, const Seed& xi);
  SecretKey(Level level, base::Bytes bytes) noexcept;
  void wipe() noexcept;

  Level level_;
  base::Bytes bytes_;
};

struct KeyPair {
  base::Bytes public_key;  // pkEncode (Alg. 22)
  SecretKey secret_key;
};

// ML-DSA.KeyGen_internal (Alg. 6): the key pair determined by the seed xi.
// The caller draws xi from an approved random bit generator (Alg. 1).
// `level` must be one of the enumerators (anything else aborts).
KeyPair keygen(Level level, const Seed& xi);

// ML-DSA.Sign (Alg. 2), hedged with the caller's fresh 32 random bytes rnd.
// Fails if the context is longer than 255 bytes.
base::Result<base::Bytes> sign(const SecretKey& sk, base::ByteView message, base::ByteView context, const Rnd& rnd);

// ML-DSA.Sign (Alg. 2), deterministic variant: rnd = 0^32, for signers
// without a source of fresh randomness.
base::Result<base::Bytes> sign_deterministic(const SecretKey& sk, base::ByteView message, base::ByteView context);

// ML-DSA.Verify (Alg. 3). False for a context longer than 255 bytes, a
// public key or signature of the wrong length for `level`, a malformed
// signature or one that does not verify.
bool verify(Level level, base::ByteView public_key, base::ByteView message, base::ByteView context,
            base::ByteView signature);

// The pre-hash functions HashML-DSA accepts (FIPS 204, Sec. 5.4). SHAKE128
// and SHAKE256 give 256 and 512 bits.
enum class PreHash : std::uint8_t {
  sha2_224,
  sha2_256,
  sha2_384,
  sha2_512,
  sha2_512_224,
  sha2_512_256,
  sha3_224,
  sha3_256,
  sha3_384,
  sha3_512,
  shake128,
  shake256,
};

// HashML-DSA.Sign (Alg. 4) with rnd as in sign(); pass Rnd{} for the
// deterministic variant. Fails for a context longer than 255 bytes.
base::Result<base::Bytes> hash_sign(const SecretKey& sk, base::ByteView message, base::ByteView context, PreHash hash,
                                    const Rnd& rnd);

// HashML-DSA.Verify (Alg. 5); false in the same cases as verify().
bool hash_verify(Level level, base::ByteView public_key, base::ByteView message, base::ByteView context, PreHash hash,
                 base::ByteView signature);

// Every signing function also fails, with Errc::invalid_value, if the
// rejection loop exhausts its 2^16 / l attempts (FIPS 204 Appendix C allows
// such a limit). For a key made by keygen() that has probability far below
// 2^-256; a key pieced together from inconsistent parts might reach it.

// ML-DSA.Sign_internal (Alg. 7) on an already formatted message M'. For
// protocols and test harnesses that build M' themselves; applications use
// sign() or hash_sign(), which add the domain separation of Alg. 2 and 4.
base::Result<base::Bytes> sign_internal(const SecretKey& sk, base::ByteView message_prime, const Rnd& rnd);

// ML-DSA.Verify_internal (Alg. 8) on M'.
bool verify_internal(Level level, base::ByteView public_key, base::ByteView message_prime, base::ByteView signature);

// mu = H(H(pk, 64) || M', 64) (Alg. 7 and 8) for the pure message
// M' = 0 || |ctx| || ctx || M of Alg. 2 and 3: lets the message be hashed
// away from the signer. Fails for a context longer than 255 bytes or a
// public key of the wrong length.
base::Result<Mu> external_mu(Level level, base::ByteView public_key, base::ByteView message, base::ByteView context);

// Alg. 7 and 8 with mu given instead of computed from M' (from
// external_mu() or the caller's own H(tr || M')).
base::Result<base::Bytes> sign_mu(const SecretKey& sk, const Mu& mu, const Rnd& rnd);
bool verify_mu(Level level, base::ByteView public_key, const Mu& mu, base::ByteView signature);

}  // namespace sion::crypto::mldsa
