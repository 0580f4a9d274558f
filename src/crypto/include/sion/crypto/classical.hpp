#pragma once
// The classical signature schemes, for composite bundles and legacy account
// kinds (docs/architecture.md, "Principles", 1): Ed25519 (RFC 8032, pure), ECDSA over P-256
// with SHA-256 (FIPS 186-5, Sec. 6) and ECDSA over secp256k1 with SHA-256
// (SEC 1 v2, Sec. 4.1; SEC 2, Sec. 2.4.1). Ed25519 and P-256 run on OpenSSL
// 3.0's EVP interface, secp256k1 on libsecp256k1.
//
// One shape for all three schemes, each in its own namespace:
//   keygen(secret)             -> Result<PublicKey>   (the public key of a secret)
//   sign(secret, message)      -> Result<Signature>
//   verify(public_key, message, signature[, HighS]) -> bool
// Secrets are fixed 32-byte arrays owned by the caller, who draws them from
// a secure random source and wipes them; these functions wipe every copy
// they make. Signing fails (Errc::invalid_value) for a secret that is not a
// valid key and (Errc::internal) if the library fails. Verification takes
// untrusted bytes: a wrong length, an encoding that is not a point on the
// curve, an out-of-range scalar or any other garbage gives false, never an
// exception or a crash. Every function leaves the thread's OpenSSL error
// queue as it found it.
//
// ECDSA signatures are the fixed 64-byte r || s form (IEEE P1363; SEC 1
// Sec. 4.1.3 step 7 with each integer as 32 big-endian bytes): Sion's wire
// format. Signers always emit low-S (s <= (n-1)/2); verifiers reject high-S
// by default, because a third party can turn (r, s) into the equally valid
// (r, n - s) and Sion consensus does not accept malleable signatures.

#include <cstddef>
#include <cstdint>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::crypto {

// Whether an ECDSA verifier accepts a signature whose s exceeds (n-1)/2.
// `reject` is the consensus rule; `accept` is plain FIPS 186-5 / SEC 1
// verification (and what conformance suites such as Wycheproof expect).
enum class HighS : std::uint8_t { reject, accept };

// ---------------------------------------------------------------------------
// Ed25519, pure (RFC 8032, Sec. 5.1), no context, no pre-hash.
namespace ed25519 {

inline constexpr std::size_t kSecretKeyBytes = 32;  // the seed; RFC 8032 calls it the private key
inline constexpr std::size_t kPublicKeyBytes = 32;  // ENC(A), Sec. 5.1.2
inline constexpr std::size_t kSignatureBytes = 64;  // ENC(R) || ENC(S), Sec. 5.1.6

using SecretKey = base::ByteArray<kSecretKeyBytes>;
using PublicKey = base::ByteArray<kPublicKeyBytes>;
using Signature = base::ByteArray<kSignatureBytes>;

// Sec. 5.1.5: the public key of a seed. Every 32-byte string is a valid
// seed, so this fails only if OpenSSL does (Errc::internal).
base::Result<PublicKey> keygen(const SecretKey& secret);

// Sec. 5.1.6. Deterministic: the same seed and message give the same signature.
base::Result<Signature> sign(const SecretKey& secret, base::ByteView message);

// Sec. 5.1.7, as OpenSSL implements it: S must be below L, A must decode
// to a point, and [S]B - [k]A must encode to exactly the bytes of R (the
// cofactorless equation, which Sec. 5.1.7 permits). False for a public key
// or signature of the wrong length.
bool verify(base::ByteView public_key, base::ByteView message, base::ByteView signature) noexcept;

}  // namespace ed25519

// ---------------------------------------------------------------------------
// ECDSA key and signature sizes on a 256-bit curve, the same for P-256 and
// secp256k1, which both take them in (p256::kPublicKeyBytes, ...).
namespace ecdsa256 {

inline constexpr std::size_t kSecretKeyBytes = 32;              // d, big-endian
inline constexpr std::size_t kPublicKeyBytes = 33;              // SEC 1 Sec. 2.3.3, compressed
inline constexpr std::size_t kUncompressedPublicKeyBytes = 65;  // 0x04 || x || y
inline constexpr std::size_t kSignatureBytes = 64;              // r || s (compact)

using SecretKey = base::ByteArray<kSecretKeyBytes>;
using PublicKey = base::ByteArray<kPublicKeyBytes>;
using Signature = base::ByteArray<kSignatureBytes>;

}  // namespace ecdsa256

// ---------------------------------------------------------------------------
// ECDSA over P-256 (secp256r1) with SHA-256 (FIPS 186-5, Sec. 6.4).
namespace p256 {

using namespace ecdsa256;                                 // kSecretKeyBytes ... Signature
inline constexpr std::size_t kMaxDerSignatureBytes = 72;  // SEQUENCE of two INTEGERs

// Q = d * G in compressed form. Fails with Errc::invalid_value unless
// 1 <= d <= n - 1 (FIPS 186-5, Appendix A.2).
base::Result<PublicKey> keygen(const SecretKey& secret);

// FIPS 186-5 Sec. 6.4.1 over SHA-256(message), s normalised to low-S.
// Randomized, not RFC 6979: OpenSSL 3.0's EVP interface has no way to ask
// for deterministic nonces (OSSL_SIGNATURE_PARAM_NONCE_TYPE arrived in 3.2).
// Its nonce mixes the secret and the message into fresh randomness, so a
// weak random generator does not by itself expose the key.
base::Result<Signature> sign(const SecretKey& secret, base::ByteView message);

// FIPS 186-5 Sec. 6.4.2 over SHA-256(message), for a 64-byte r || s
// signature. The public key is SEC 1 compressed (33 bytes) or uncompressed
// (65 bytes); the hybrid forms 0x06/0x07 and the point at infinity are refused.
bool verify(base::ByteView public_key, base::ByteView message, base::ByteView signature,
            HighS high_s = HighS::reject) noexcept;

// The same for an ASN.1 DER Ecdsa-Sig-Value (SEC 1, Appendix C.5): strict
// DER, so BER variants (long-form lengths, padded or negative integers,
// trailing bytes) are refused. For interoperability and conformance tests;
// Sion's own messages carry the 64-byte form.
bool verify_der(base::ByteView public_key, base::ByteView message, base::ByteView der_signature,
                HighS high_s = HighS::reject) noexcept;

}  // namespace p256

// ---------------------------------------------------------------------------
// ECDSA over secp256k1 (SEC 2, Sec. 2.4.1) through libsecp256k1, over
// SHA-256(message): the library signs a 32-byte hash, and Sion hashes first
// so this API takes messages like the other two.
namespace secp256k1 {

using namespace ecdsa256;  // kSecretKeyBytes ... Signature

// Compressed d * G. Fails with Errc::invalid_value unless 1 <= d <= n - 1.
base::Result<PublicKey> keygen(const SecretKey& secret);

// SEC 1 Sec. 4.1.3 with the nonce of RFC 6979 (Sec. 3.2, HMAC-SHA256), so
// deterministic; always low-S.
base::Result<Signature> sign(const SecretKey& secret, base::ByteView message);

// SEC 1 Sec. 4.1.4. Public key and rejected encodings as for p256::verify.
// libsecp256k1 itself accepts only low-S; HighS::accept normalises s first.
bool verify(base::ByteView public_key, base::ByteView message, base::ByteView signature,
            HighS high_s = HighS::reject) noexcept;

}  // namespace secp256k1

}  // namespace sion::crypto
