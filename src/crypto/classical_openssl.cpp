// Ed25519 and ECDSA-P256 (sion/crypto/classical.hpp) on OpenSSL 3.0's EVP
// interface. Every OpenSSL object lives in a unique_ptr with its free
// function; every public function brackets its OpenSSL calls with an error
// mark so that whatever OpenSSL queues is dropped before returning.

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "sion/crypto/classical.hpp"

namespace sion::crypto {
namespace {

using base::ByteView;
using base::Errc;
using base::fail;

template <auto kFree>
struct Free {
  template <class T>
  void operator()(T* object) const noexcept {
    kFree(object);
  }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Free<&EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Free<&EVP_PKEY_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Free<&EVP_MD_CTX_free>>;
using SecretBnPtr = std::unique_ptr<BIGNUM, Free<&BN_clear_free>>;
using PointPtr = std::unique_ptr<EC_POINT, Free<&EC_POINT_free>>;

// Sets an error-queue mark on entry and pops back to it on exit, so errors
// OpenSSL records on our behalf never reach another caller on this thread
// while errors queued before the call are left alone.
class OpensslErrorScope {
 public:
  OpensslErrorScope() noexcept { ERR_set_mark(); }
  ~OpensslErrorScope() { ERR_pop_to_mark(); }
  OpensslErrorScope(const OpensslErrorScope&) = delete;
  OpensslErrorScope& operator=(const OpensslErrorScope&) = delete;
};

// OpenSSL takes (pointer, length); an empty span may carry a null pointer.
const unsigned char* data_or_empty(ByteView bytes) noexcept {
  static const unsigned char kNothing = 0;
  return bytes.empty() ? &kNothing : bytes.data();
}

// ---------------------------------------------------------------------------
// Fixed-width big-endian scalars.

constexpr std::size_t kScalarBytes = 32;
using Scalar = base::ByteArray<kScalarBytes>;

// True if a < b. Runs the same instructions whatever the values (the borrow
// out of a - b, from the last byte up), so it may compare secrets.
bool less_than(const Scalar& a, const Scalar& b) noexcept {
  unsigned borrow = 0;
  for (std::size_t i = kScalarBytes; i-- > 0;) {
    const unsigned diff = unsigned{a[i]} - unsigned{b[i]} - borrow;
    borrow = (diff >> 8) & 1U;
  }
  return borrow != 0;
}

bool is_zero(const Scalar& a) noexcept {
  unsigned acc = 0;
  for (const std::uint8_t byte : a) acc |= byte;
  return acc == 0;
}

// a - b mod 2^256; callers ensure a >= b.
Scalar subtract(const Scalar& a, const Scalar& b) noexcept {
  Scalar out{};
  unsigned borrow = 0;
  for (std::size_t i = kScalarBytes; i-- > 0;) {
    const unsigned diff = unsigned{a[i]} - unsigned{b[i]} - borrow;
    out[i] = static_cast<std::uint8_t>(diff);
    borrow = (diff >> 8) & 1U;
  }
  return out;
}

Scalar scalar_from(ByteView bytes) noexcept {
  Scalar out{};
  std::copy(bytes.begin(), bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(kScalarBytes - bytes.size()));
  return out;
}

// ---------------------------------------------------------------------------
// Strict DER for Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }
// (SEC 1 v2, Appendix C.5; X.690 Sec. 8.3 and 10.1). Every length here is
// below 128, so only the short length form is DER.

// Reads one non-negative INTEGER of at most 32 value bytes from the front
// of `in` and advances past it.
bool read_der_integer(ByteView& in, Scalar& out) noexcept {
  if (in.size() < 2 || in[0] != 0x02) return false;
  const std::size_t len = in[1];
  if ((len & 0x80U) != 0 || len == 0 || len > in.size() - 2) return false;
  ByteView content = in.subspan(2, len);
  if ((content[0] & 0x80U) != 0) return false;  // negative
  if (content.size() > 1 && content[0] == 0 && (content[1] & 0x80U) == 0) {
    return false;  // a leading zero that is not needed (X.690 Sec. 8.3.2)
  }
  if (content[0] == 0) content = content.subspan(1);
  if (content.size() > kScalarBytes) return false;  // >= 2^256, never a valid r or s
  out = scalar_from(content);
  in = in.subspan(2 + len);
  return true;
}

bool parse_der_signature(ByteView der, Scalar& r, Scalar& s) noexcept {
  if (der.size() < 2 || der[0] != 0x30) return false;
  const std::size_t len = der[1];
  if ((len & 0x80U) != 0 || len != der.size() - 2) return false;
  ByteView body = der.subspan(2);
  return read_der_integer(body, r) && read_der_integer(body, s) && body.empty();
}

// Writes the minimal INTEGER for a 32-byte unsigned value; returns its size.
std::size_t write_der_integer(const Scalar& value, std::uint8_t* out) noexcept {
  std::size_t first = 0;
  while (first + 1 < kScalarBytes && value[first] == 0) ++first;
  const bool pad = (value[first] & 0x80U) != 0;
  const std::size_t len = kScalarBytes - first + (pad ? 1 : 0);
  out[0] = 0x02;
  out[1] = static_cast<std::uint8_t>(len);
  std::size_t at = 2;
  if (pad) out[at++] = 0;
  std::memcpy(out + at, value.data() + first, kScalarBytes - first);
  return 2 + len;
}

constexpr std::size_t kMaxDerBytes = p256::kMaxDerSignatureBytes;

std::size_t write_der_signature(const Scalar& r, const Scalar& s,
                                std::array<std::uint8_t, kMaxDerBytes>& out) noexcept {
  std::size_t len = 2;
  len += write_der_integer(r, out.data() + len);
  len += write_der_integer(s, out.data() + len);
  out[0] = 0x30;
  out[1] = static_cast<std::uint8_t>(len - 2);
  return len;
}

// ---------------------------------------------------------------------------
// EVP plumbing.

PkeyPtr pkey_from_params(const char* type, OSSL_PARAM* params, int selection) noexcept {
  const PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  if (ctx == nullptr || EVP_PKEY_fromdata_init(ctx.get()) != 1) return nullptr;
  EVP_PKEY* raw = nullptr;
  const int rc = EVP_PKEY_fromdata(ctx.get(), &raw, selection, params);
  PkeyPtr key(raw);
  if (rc != 1) return nullptr;
  return key;
}

// One-shot EVP_DigestVerify; `md` is null for Ed25519, which hashes itself.
bool digest_verify(EVP_PKEY* key, const char* md, ByteView message, const std::uint8_t* sig,
                   std::size_t sig_len) noexcept {
  const MdCtxPtr ctx(EVP_MD_CTX_new());
  if (ctx == nullptr || EVP_DigestVerifyInit_ex(ctx.get(), nullptr, md, nullptr, nullptr, key, nullptr) != 1) {
    return false;
  }
  return EVP_DigestVerify(ctx.get(), sig, sig_len, data_or_empty(message), message.size()) == 1;
}

// One-shot EVP_DigestSign into `sig`; returns the signature length, 0 on failure.
std::size_t digest_sign(EVP_PKEY* key, const char* md, ByteView message, std::uint8_t* sig,
                        std::size_t capacity) noexcept {
  const MdCtxPtr ctx(EVP_MD_CTX_new());
  if (ctx == nullptr || EVP_DigestSignInit_ex(ctx.get(), nullptr, md, nullptr, nullptr, key, nullptr) != 1) {
    return 0;
  }
  std::size_t len = capacity;
  if (EVP_DigestSign(ctx.get(), sig, &len, data_or_empty(message), message.size()) != 1) return 0;
  return len;
}

// ---------------------------------------------------------------------------
// P-256 domain facts (FIPS 186-5 / SP 800-186 Sec. 3.2.1.3).

// The group order n and (n - 1) / 2, the largest low S.
constexpr Scalar kP256Order = {
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
};
constexpr Scalar kP256HalfOrder = {
    0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b, 0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8,
};

// 1 <= v <= n - 1: a valid secret (FIPS 186-5 Appendix A.2) and a valid r or
// s (Sec. 6.4.2 step 1). Branch-free in the value.
bool in_scalar_range(const Scalar& v) noexcept {
  const unsigned nonzero = is_zero(v) ? 0U : 1U;
  const unsigned below_n = less_than(v, kP256Order) ? 1U : 0U;
  return (nonzero & below_n) != 0;
}

bool is_high_s(const Scalar& s) noexcept { return less_than(kP256HalfOrder, s); }

// The group, built once; EC_POINT_mul only reads it, so threads may share
// it. Deliberately never freed: it lives as long as the process, and no
// exit-time destructor can then race a thread still verifying.
const EC_GROUP* p256_group() noexcept {
  static const EC_GROUP* const group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  return group;
}

// SEC 1 v2 Sec. 2.3.3: 0x02/0x03 || x (compressed) or 0x04 || x || y. The
// hybrid forms 0x06/0x07 (which OpenSSL would take) and the single-byte
// point at infinity are refused here; OpenSSL checks that the coordinates
// are below p and that the point is on the curve (Sec. 2.3.4).
bool has_public_key_shape(ByteView key) noexcept {
  if (key.size() == p256::kPublicKeyBytes) return key[0] == 0x02 || key[0] == 0x03;
  if (key.size() == p256::kUncompressedPublicKeyBytes) return key[0] == 0x04;
  return false;
}

// An EVP_PKEY holding only the P-256 domain parameters, built once.
// Importing a key by group name builds a fresh EC_GROUP every time, which
// costs about half as much as the verification itself; duplicating this
// template copies the finished group instead. EVP_PKEY_dup only reads its
// source, so threads may share the template. Never freed, like p256_group().
EVP_PKEY* p256_template() noexcept {
  static EVP_PKEY* const key = [] {
    char group[] = "prime256v1";  // OpenSSL's name for P-256
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
        OSSL_PARAM_construct_end(),
    };
    return pkey_from_params("EC", params, EVP_PKEY_KEY_PARAMETERS).release();
  }();
  return key;
}

// The public key Q from its SEC 1 encoding (Sec. 2.3.4), checked for shape
// by has_public_key_shape() and by OpenSSL for lying on the curve.
PkeyPtr p256_public_key(ByteView encoded) noexcept {
  EVP_PKEY* params = p256_template();
  if (params == nullptr) return nullptr;
  PkeyPtr key(EVP_PKEY_dup(params));
  if (key == nullptr || EVP_PKEY_set1_encoded_public_key(key.get(), encoded.data(), encoded.size()) != 1) {
    return nullptr;
  }
  return key;
}

// A key pair holding only d: ECDSA signing does not need Q.
PkeyPtr p256_private_key(const Scalar& secret) noexcept {
  // OSSL_PARAM integers are in native byte order (OSSL_PARAM_construct_BN).
  Scalar native = secret;
  if constexpr (std::endian::native == std::endian::little) {
    std::reverse(native.begin(), native.end());
  }
  char group[] = "prime256v1";  // OpenSSL's name for P-256
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
      OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_PRIV_KEY, native.data(), native.size()),
      OSSL_PARAM_construct_end(),
  };
  PkeyPtr key = pkey_from_params("EC", params, EVP_PKEY_KEYPAIR);
  base::secure_wipe(native.data(), native.size());
  return key;
}

// FIPS 186-5 Sec. 6.4.2 on (r, s) already split out of their encoding.
bool p256_verify_rs(ByteView public_key, ByteView message, const Scalar& r, const Scalar& s, HighS high_s) noexcept {
  if (!in_scalar_range(r) || !in_scalar_range(s)) return false;  // step 1
  if (high_s == HighS::reject && is_high_s(s)) return false;
  if (!has_public_key_shape(public_key)) return false;
  const OpensslErrorScope errors;
  const PkeyPtr key = p256_public_key(public_key);
  if (key == nullptr) return false;
  // OpenSSL's EVP interface verifies DER; re-encoding our checked (r, s)
  // gives exactly one encoding per signature.
  std::array<std::uint8_t, kMaxDerBytes> der{};
  const std::size_t der_len = write_der_signature(r, s, der);
  return digest_verify(key.get(), "SHA256", message, der.data(), der_len);
}

}  // namespace

// ---------------------------------------------------------------------------
namespace ed25519 {

namespace {
PkeyPtr private_key(const SecretKey& secret) noexcept {
  // RFC 8032 Sec. 5.1.5: OpenSSL hashes the seed, prunes the scalar and
  // derives A; the key object keeps the seed in secure memory and clears it
  // when freed.
  return PkeyPtr(EVP_PKEY_new_raw_private_key_ex(nullptr, "ED25519", nullptr, secret.data(), secret.size()));
}
}  // namespace

base::Result<PublicKey> keygen(const SecretKey& secret) {
  const OpensslErrorScope errors;
  const PkeyPtr key = private_key(secret);
  if (key == nullptr) return fail(Errc::internal, "Ed25519: OpenSSL could not load the seed");
  PublicKey out{};
  std::size_t len = out.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), out.data(), &len) != 1 || len != out.size()) {
    return fail(Errc::internal, "Ed25519: OpenSSL could not derive the public key");
  }
  return out;
}

base::Result<Signature> sign(const SecretKey& secret, ByteView message) {
  const OpensslErrorScope errors;
  const PkeyPtr key = private_key(secret);
  if (key == nullptr) return fail(Errc::internal, "Ed25519: OpenSSL could not load the seed");
  Signature out{};
  // Pure Ed25519 (Sec. 5.1.6): no digest name, no context string.
  if (digest_sign(key.get(), nullptr, message, out.data(), out.size()) != out.size()) {
    return fail(Errc::internal, "Ed25519: OpenSSL signing failed");
  }
  return out;
}

bool verify(ByteView public_key, ByteView message, ByteView signature) noexcept {
  if (public_key.size() != kPublicKeyBytes || signature.size() != kSignatureBytes) return false;
  const OpensslErrorScope errors;
  // Sec. 5.1.7. OpenSSL decodes A when verifying (a non-point fails there),
  // rejects S >= L and compares R by its encoding.
  const PkeyPtr key(EVP_PKEY_new_raw_public_key_ex(nullptr, "ED25519", nullptr, public_key.data(), public_key.size()));
  if (key == nullptr) return false;
  return digest_verify(key.get(), nullptr, message, signature.data(), signature.size());
}

}  // namespace ed25519

// ---------------------------------------------------------------------------
namespace p256 {

base::Result<PublicKey> keygen(const SecretKey& secret) {
  if (!in_scalar_range(secret)) {
    return fail(Errc::invalid_value, "P-256 secret scalar must lie in [1, n - 1]");
  }
  const OpensslErrorScope errors;
  const EC_GROUP* group = p256_group();
  if (group == nullptr) return fail(Errc::internal, "P-256: OpenSSL has no P-256 group");
  // d in secure memory, flagged for constant-time arithmetic, cleared on free.
  const SecretBnPtr d(BN_secure_new());
  if (d == nullptr) return fail(Errc::internal, "P-256: out of memory");
  BN_set_flags(d.get(), BN_FLG_CONSTTIME);
  const PointPtr q(EC_POINT_new(group));
  PublicKey out{};
  if (q == nullptr || BN_bin2bn(secret.data(), static_cast<int>(secret.size()), d.get()) == nullptr ||
      EC_POINT_mul(group, q.get(), d.get(), nullptr, nullptr, nullptr) != 1 ||  // Q = d * G
      EC_POINT_point2oct(group, q.get(), POINT_CONVERSION_COMPRESSED, out.data(), out.size(),
                         nullptr) != out.size()) {  // SEC 1 Sec. 2.3.3
    return fail(Errc::internal, "P-256: OpenSSL could not compute the public key");
  }
  return out;
}

base::Result<Signature> sign(const SecretKey& secret, ByteView message) {
  if (!in_scalar_range(secret)) {
    return fail(Errc::invalid_value, "P-256 secret scalar must lie in [1, n - 1]");
  }
  const OpensslErrorScope errors;
  const PkeyPtr key = p256_private_key(secret);
  if (key == nullptr) return fail(Errc::internal, "P-256: OpenSSL could not load the secret");
  std::array<std::uint8_t, kMaxDerBytes> der{};
  const std::size_t der_len = digest_sign(key.get(), "SHA256", message, der.data(), der.size());
  Scalar r{};
  Scalar s{};
  if (der_len == 0 || !parse_der_signature(ByteView(der.data(), der_len), r, s)) {
    return fail(Errc::internal, "P-256: OpenSSL signing failed");
  }
  // (r, n - s) verifies whenever (r, s) does; emit the low one so that our
  // signatures pass the strict verifier.
  if (is_high_s(s)) s = subtract(kP256Order, s);
  Signature out{};
  std::copy(r.begin(), r.end(), out.begin());
  std::copy(s.begin(), s.end(), out.begin() + kScalarBytes);
  return out;
}

bool verify(ByteView public_key, ByteView message, ByteView signature, HighS high_s) noexcept {
  if (signature.size() != kSignatureBytes) return false;
  return p256_verify_rs(public_key, message, scalar_from(signature.first(kScalarBytes)),
                        scalar_from(signature.last(kScalarBytes)), high_s);
}

bool verify_der(ByteView public_key, ByteView message, ByteView der_signature, HighS high_s) noexcept {
  Scalar r{};
  Scalar s{};
  if (der_signature.size() > kMaxDerSignatureBytes || !parse_der_signature(der_signature, r, s)) {
    return false;
  }
  return p256_verify_rs(public_key, message, r, s, high_s);
}

}  // namespace p256

}  // namespace sion::crypto
