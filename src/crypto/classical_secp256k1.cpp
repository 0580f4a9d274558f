// ECDSA over secp256k1 (sion/crypto/classical.hpp) on libsecp256k1, over
// SHA-256 of the message (sion/crypto/sha2.hpp).

#include <openssl/err.h>
#include <openssl/rand.h>
#include <secp256k1.h>

#include <cstddef>
#include <cstdint>

#include "sion/crypto/classical.hpp"
#include "sion/crypto/sha2.hpp"

namespace sion::crypto::secp256k1 {
namespace {

using base::ByteView;
using base::Errc;
using base::fail;

// One context for the whole process. libsecp256k1 lets threads share a
// context in every call that takes it by const pointer; the one call that
// needs it exclusively, secp256k1_context_randomize, runs here, inside the
// thread-safe initialisation of a function-local static, before any other
// thread can see the context. Randomisation blinds the scalar
// multiplications of key generation and signing against side channels; it
// does not change any result, so if the random generator were ever to fail
// the context would still be correct, only unblinded. Deliberately never
// destroyed: it lives as long as the process, and no exit-time destructor
// can race a thread still verifying.
const secp256k1_context* context() noexcept {
  static const secp256k1_context* const instance = [] {
    secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    base::ByteArray<32> seed{};
    ERR_set_mark();
    if (RAND_priv_bytes(seed.data(), static_cast<int>(seed.size())) == 1) {
      const int randomized = secp256k1_context_randomize(ctx, seed.data());  // 1 for any real context
      static_cast<void>(randomized);
    }
    ERR_pop_to_mark();
    base::secure_wipe(seed.data(), seed.size());
    return ctx;
  }();
  return instance;
}

// SEC 1 v2 Sec. 2.3.3 shapes: 0x02/0x03 || x or 0x04 || x || y. The hybrid
// forms 0x06/0x07, which libsecp256k1 would parse, are refused; the library
// checks that x (and y) are below p and that the point is on the curve.
bool parse_public_key(ByteView encoded, secp256k1_pubkey& out) noexcept {
  const bool compressed = encoded.size() == kPublicKeyBytes && (encoded[0] == 0x02 || encoded[0] == 0x03);
  const bool uncompressed = encoded.size() == kUncompressedPublicKeyBytes && encoded[0] == 0x04;
  if (!compressed && !uncompressed) return false;
  return secp256k1_ec_pubkey_parse(context(), &out, encoded.data(), encoded.size()) == 1;
}

}  // namespace

base::Result<PublicKey> keygen(const SecretKey& secret) {
  const secp256k1_context* ctx = context();
  // 1 <= d <= n - 1 (SEC 1 v2 Sec. 3.2.1).
  if (secp256k1_ec_seckey_verify(ctx, secret.data()) != 1) {
    return fail(Errc::invalid_value, "secp256k1 secret scalar must lie in [1, n - 1]");
  }
  secp256k1_pubkey point;
  if (secp256k1_ec_pubkey_create(ctx, &point, secret.data()) != 1) {
    return fail(Errc::internal, "secp256k1: could not compute the public key");
  }
  PublicKey out{};
  std::size_t len = out.size();
  if (secp256k1_ec_pubkey_serialize(ctx, out.data(), &len, &point, SECP256K1_EC_COMPRESSED) != 1 || len != out.size()) {
    return fail(Errc::internal, "secp256k1: could not encode the public key");
  }
  return out;
}

base::Result<Signature> sign(const SecretKey& secret, ByteView message) {
  const secp256k1_context* ctx = context();
  if (secp256k1_ec_seckey_verify(ctx, secret.data()) != 1) {
    return fail(Errc::invalid_value, "secp256k1 secret scalar must lie in [1, n - 1]");
  }
  const base::ByteArray<32> digest = sha256(message);
  // A null nonce function is secp256k1_nonce_function_default, RFC 6979
  // (Sec. 3.2) with HMAC-SHA256 and no extra data: deterministic. The
  // library clears its own copies of the secret and the nonce and always
  // emits low-S.
  secp256k1_ecdsa_signature sig;
  if (secp256k1_ecdsa_sign(ctx, &sig, digest.data(), secret.data(), nullptr, nullptr) != 1) {
    return fail(Errc::internal, "secp256k1: signing failed");
  }
  Signature out{};
  static_cast<void>(secp256k1_ecdsa_signature_serialize_compact(ctx, out.data(), &sig));  // returns 1
  return out;
}

bool verify(ByteView public_key, ByteView message, ByteView signature, HighS high_s) noexcept {
  if (signature.size() != kSignatureBytes) return false;
  const secp256k1_context* ctx = context();
  secp256k1_ecdsa_signature sig;
  // Fails for r or s >= n; r = 0 or s = 0 parse but never verify.
  if (secp256k1_ecdsa_signature_parse_compact(ctx, &sig, signature.data()) != 1) return false;
  // secp256k1_ecdsa_verify accepts only low-S. To accept high-S as well, map
  // s to n - s first; (r, s) and (r, n - s) verify together or not at all.
  if (high_s == HighS::accept) static_cast<void>(secp256k1_ecdsa_signature_normalize(ctx, &sig, &sig));
  secp256k1_pubkey point;
  if (!parse_public_key(public_key, point)) return false;
  const base::ByteArray<32> digest = sha256(message);
  return secp256k1_ecdsa_verify(ctx, &sig, digest.data(), &point) == 1;  // SEC 1 Sec. 4.1.4
}

}  // namespace sion::crypto::secp256k1
