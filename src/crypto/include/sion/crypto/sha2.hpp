#pragma once
// SHA-256 and SHA-512 (FIPS 180-4), HMAC over them (FIPS 198-1) and MGF1
// (RFC 8017, Appendix B.2.1). SLH-DSA-SHA2 (FIPS 205, Sec. 11.2) uses all of
// them, and hashes one fixed block (PK.seed, zero-padded) first in every
// tweakable-hash call, so besides the incremental classes this header exposes
// the raw compression functions and lets a hasher resume from a saved
// chaining value (a midstate).

#include <array>
#include <cstddef>
#include <cstdint>

#include "sion/base/bytes.hpp"

namespace sion::crypto {

using Sha256State = std::array<std::uint32_t, 8>;
using Sha512State = std::array<std::uint64_t, 8>;

// Initial hash values H(0) (FIPS 180-4, Sec. 5.3.3 and 5.3.5).
inline constexpr Sha256State kSha256Initial = {
    0x6a09e667U, 0xbb67ae85U, 0x3c6ef372U, 0xa54ff53aU, 0x510e527fU, 0x9b05688cU, 0x1f83d9abU, 0x5be0cd19U,
};
inline constexpr Sha512State kSha512Initial = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

// The block transforms: FIPS 180-4 Sec. 6.2.2 (SHA-256, 64-byte blocks) and
// Sec. 6.4.2 (SHA-512, 128-byte blocks), applied to `blocks` consecutive
// blocks at `data`. Every SHA-2 computation in Sion goes through these two
// functions, so a CPU-specific version selected at run time inside them
// (sion::base::cpu_features()) reaches every caller: SHA-256 uses the SHA
// extensions when the CPU has them; SHA-512 is portable C++.
void sha256_compress(Sha256State& state, const std::uint8_t* data, std::size_t blocks) noexcept;
void sha512_compress(Sha512State& state, const std::uint8_t* data, std::size_t blocks) noexcept;

// Multi-buffer block transforms: the same as calling
// sha256_compress(states[i], data[i], blocks) (sha512_compress) for every
// i < count, for `count` independent messages of equal length, but several
// at once in SIMD lanes (AVX-512: 16 SHA-256 / 8 SHA-512 lanes, AVX2: 8 / 4)
// or interleaved SHA-NI streams, whichever the CPU has.
void sha256_compress_many(Sha256State* states, const std::uint8_t* const* data, std::size_t count,
                          std::size_t blocks) noexcept;
void sha512_compress_many(Sha512State* states, const std::uint8_t* const* data, std::size_t count,
                          std::size_t blocks) noexcept;

struct Sha256Traits {
  using Word = std::uint32_t;
  static constexpr std::size_t kBlockBytes = 64;
  static constexpr std::size_t kDigestBytes = 32;
  static constexpr std::size_t kLengthBytes = 8;  // padding's bit-length field (Sec. 5.1.1)
  static constexpr const Sha256State& kInitial = kSha256Initial;
  static void compress(Sha256State& s, const std::uint8_t* d, std::size_t b) noexcept { sha256_compress(s, d, b); }
};

struct Sha512Traits {
  using Word = std::uint64_t;
  static constexpr std::size_t kBlockBytes = 128;
  static constexpr std::size_t kDigestBytes = 64;
  static constexpr std::size_t kLengthBytes = 16;  // Sec. 5.1.2
  static constexpr const Sha512State& kInitial = kSha512Initial;
  static void compress(Sha512State& s, const std::uint8_t* d, std::size_t b) noexcept { sha512_compress(s, d, b); }
};

// An incremental SHA-2 hash. Copying a hasher saves its whole state; the
// (state, blocks) constructor restores a bare midstate.
template <class Traits>
class Sha2 {
 public:
  using Word = typename Traits::Word;
  using State = std::array<Word, 8>;
  static constexpr std::size_t kBlockBytes = Traits::kBlockBytes;
  static constexpr std::size_t kDigestBytes = Traits::kDigestBytes;
  using Digest = base::ByteArray<kDigestBytes>;

  Sha2() noexcept = default;
  // Resumes from `state`, the chaining value after `blocks` whole blocks of
  // input (for instance, computed once with the compress function).
  Sha2(const State& state, std::uint64_t blocks) noexcept : state_(state), total_bytes_(blocks * kBlockBytes) {}
  ~Sha2() { wipe(); }
  Sha2(const Sha2&) = default;
  Sha2& operator=(const Sha2&) = default;

  void update(base::ByteView data) noexcept;

  // Pads (FIPS 180-4, Sec. 5.1) and returns the digest. The hasher is then
  // back in its initial state, ready for a new message.
  Digest finalize() noexcept;

 private:
  void wipe() noexcept;

  State state_ = Traits::kInitial;
  std::array<std::uint8_t, kBlockBytes> buffer_{};
  std::uint64_t total_bytes_ = 0;  // bytes so far; the last total % kBlockBytes wait in buffer_
};

using Sha256 = Sha2<Sha256Traits>;
using Sha512 = Sha2<Sha512Traits>;

base::ByteArray<32> sha256(base::ByteView data) noexcept;
base::ByteArray<64> sha512(base::ByteView data) noexcept;

// HMAC (FIPS 198-1, Sec. 4) with an incremental message.
template <class Hash>
class Hmac {
 public:
  using Digest = typename Hash::Digest;

  explicit Hmac(base::ByteView key) noexcept;
  void update(base::ByteView data) noexcept { inner_.update(data); }
  // The MAC; the object must not be used afterwards.
  Digest finalize() noexcept;

 private:
  Hash inner_;  // has absorbed K0 xor ipad
  Hash outer_;  // has absorbed K0 xor opad
};

using HmacSha256 = Hmac<Sha256>;
using HmacSha512 = Hmac<Sha512>;

base::ByteArray<32> hmac_sha256(base::ByteView key, base::ByteView data) noexcept;
base::ByteArray<64> hmac_sha512(base::ByteView key, base::ByteView data) noexcept;

// MGF1 (RFC 8017, Appendix B.2.1): fills `out` with the first out.size()
// bytes of Hash(seed || I2OSP(0, 4)) || Hash(seed || I2OSP(1, 4)) || ...
// RFC 8017 caps the output at 2^32 hash lengths; longer requests are a bug.
void mgf1_sha256(base::ByteView seed, base::MutableByteView out) noexcept;
void mgf1_sha512(base::ByteView seed, base::MutableByteView out) noexcept;

extern template class Sha2<Sha256Traits>;
extern template class Sha2<Sha512Traits>;
extern template class Hmac<Sha256>;
extern template class Hmac<Sha512>;

}  // namespace sion::crypto
