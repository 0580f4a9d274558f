#include "sion/crypto/sha2.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "sha2_simd.hpp"
#include "sion/base/cpu.hpp"
#include "sion/base/endian.hpp"
#include "sion/crypto/detail/sha2_x86.hpp"

namespace sion::crypto {
namespace detail {

// SHA-256 constants K (FIPS 180-4, Sec. 4.2.2): the first 32 bits of the
// fractional parts of the cube roots of the first 64 primes.
const std::uint32_t kSha256K[64] = {
    0x428a2f98U, 0x71374491U, 0xb5c0fbcfU, 0xe9b5dba5U, 0x3956c25bU, 0x59f111f1U, 0x923f82a4U, 0xab1c5ed5U,
    0xd807aa98U, 0x12835b01U, 0x243185beU, 0x550c7dc3U, 0x72be5d74U, 0x80deb1feU, 0x9bdc06a7U, 0xc19bf174U,
    0xe49b69c1U, 0xefbe4786U, 0x0fc19dc6U, 0x240ca1ccU, 0x2de92c6fU, 0x4a7484aaU, 0x5cb0a9dcU, 0x76f988daU,
    0x983e5152U, 0xa831c66dU, 0xb00327c8U, 0xbf597fc7U, 0xc6e00bf3U, 0xd5a79147U, 0x06ca6351U, 0x14292967U,
    0x27b70a85U, 0x2e1b2138U, 0x4d2c6dfcU, 0x53380d13U, 0x650a7354U, 0x766a0abbU, 0x81c2c92eU, 0x92722c85U,
    0xa2bfe8a1U, 0xa81a664bU, 0xc24b8b70U, 0xc76c51a3U, 0xd192e819U, 0xd6990624U, 0xf40e3585U, 0x106aa070U,
    0x19a4c116U, 0x1e376c08U, 0x2748774cU, 0x34b0bcb5U, 0x391c0cb3U, 0x4ed8aa4aU, 0x5b9cca4fU, 0x682e6ff3U,
    0x748f82eeU, 0x78a5636fU, 0x84c87814U, 0x8cc70208U, 0x90befffaU, 0xa4506cebU, 0xbef9a3f7U, 0xc67178f2U,
};

// SHA-512 constants K (FIPS 180-4, Sec. 4.2.3): the first 64 bits of the
// fractional parts of the cube roots of the first 80 primes.
const std::uint64_t kSha512K[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL,
    0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL, 0x12835b0145706fbeULL,
    0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL, 0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
    0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
    0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL, 0x983e5152ee66dfabULL,
    0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
    0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL,
    0x53380d139d95b3dfULL, 0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
    0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
    0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL, 0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL,
    0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL,
    0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL, 0xca273eceea26619cULL,
    0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL,
    0x113f9804bef90daeULL, 0x1b710b35131c471bULL, 0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
    0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};

}  // namespace detail

namespace {

using detail::kSha256K;
using detail::kSha512K;

// Big-endian words (FIPS 180-4, Sec. 3.1) of 4 or 8 bytes.
using base::load_be;
using base::store_be;

// FIPS 180-4, Sec. 6.2.2 / 6.4.2: sha2_simd.hpp's rounds on single words
// (one lane, no vector types involved).
template <class P>
void compress_portable(std::array<typename P::Word, 8>& state, const std::uint8_t* data, std::size_t blocks,
                       const typename P::Word* k) noexcept {
  using Word = typename P::Word;
  for (; blocks > 0; --blocks, data += 16 * sizeof(Word)) {
    Word w[16];
    for (std::size_t t = 0; t < 16; ++t) w[t] = load_be<Word>(data + sizeof(Word) * t);
    detail::simd::sha2_rounds<P>(state.data(), w, k);
  }
}

void sha256_compress_portable(Sha256State& state, const std::uint8_t* data, std::size_t blocks) noexcept {
  compress_portable<detail::simd::Sha256Params>(state, data, blocks, kSha256K);
}

void sha512_compress_portable(Sha512State& state, const std::uint8_t* data, std::size_t blocks) noexcept {
  compress_portable<detail::simd::Sha512Params>(state, data, blocks, kSha512K);
}

bool use_sha_ni(const base::CpuFeatures& cpu) noexcept { return cpu.sha_ni && cpu.sse42; }
bool use_avx512(const base::CpuFeatures& cpu) noexcept { return cpu.avx512f && cpu.avx512bw; }

// `count` <= kLanes states through a kLanes-wide kernel: transposed in,
// unused lanes fed a copy of lane 0, transposed out.
template <std::size_t kLanes, class Word, class Kernel>
void compress_group(std::array<Word, 8>* states, const std::uint8_t* const* data, std::size_t count, std::size_t blocks,
                    Kernel kernel) noexcept {
  alignas(64) Word t[8 * kLanes];
  const std::uint8_t* lane_data[kLanes];
  for (std::size_t l = 0; l < kLanes; ++l) {
    const std::size_t from = l < count ? l : 0;
    lane_data[l] = data[from];
    for (std::size_t w = 0; w < 8; ++w) t[w * kLanes + l] = states[from][w];
  }
  kernel(t, lane_data, blocks);
  for (std::size_t l = 0; l < count; ++l) {
    for (std::size_t w = 0; w < 8; ++w) states[l][w] = t[w * kLanes + l];
  }
}

// States i.. through the AVX2 kernel in groups of up to kLanes, padded,
// while two or more are left; returns the index of the first one left.
template <std::size_t kLanes, class Word, class Kernel>
std::size_t compress_avx2_groups(std::array<Word, 8>* states, const std::uint8_t* const* data, std::size_t i,
                                 std::size_t count, std::size_t blocks, Kernel kernel) noexcept {
  while (count - i >= 2) {
    const std::size_t m = std::min<std::size_t>(kLanes, count - i);
    compress_group<kLanes>(states + i, data + i, m, blocks, kernel);
    i += m;
  }
  return i;
}

}  // namespace

void sha256_compress(Sha256State& state, const std::uint8_t* data, std::size_t blocks) noexcept {
  if (use_sha_ni(base::cpu_features())) {
    detail::sha256_compress_shani(state, data, blocks);
  } else {
    sha256_compress_portable(state, data, blocks);
  }
}

void sha512_compress(Sha512State& state, const std::uint8_t* data, std::size_t blocks) noexcept {
  sha512_compress_portable(state, data, blocks);
}

// Per block and lane on the CPUs measured (AMD Zen 5): AVX-512 16 lanes
// ~16 ns, two SHA-NI streams ~30 ns, AVX2 8 lanes ~43 ns, portable ~240 ns.
// So: AVX-512 for groups of 16, padded down to 8 messages (a padded group
// costs as much as 8 messages through SHA-NI); SHA-NI pairs for the rest;
// AVX2 only without SHA-NI, padded groups of 8 down to 2 messages.
void sha256_compress_many(Sha256State* states, const std::uint8_t* const* data, std::size_t count,
                          std::size_t blocks) noexcept {
  const base::CpuFeatures& cpu = base::cpu_features();
  const bool sha_ni = use_sha_ni(cpu);
  std::size_t i = 0;
  if (use_avx512(cpu)) {
    while (i < count) {
      const std::size_t m = std::min<std::size_t>(16, count - i);
      if (m < 8 && sha_ni) break;
      compress_group<16>(states + i, data + i, m, blocks, detail::sha256_compress_x16_avx512);
      i += m;
    }
  }
  if (sha_ni) {
    for (; count - i >= 2; i += 2) {
      detail::sha256_compress_shani_x2(states[i], states[i + 1], data[i], data[i + 1], blocks);
    }
    if (i < count) detail::sha256_compress_shani(states[i], data[i], blocks);
    return;
  }
  if (cpu.avx2) {
    i = compress_avx2_groups<8>(states, data, i, count, blocks, detail::sha256_compress_x8_avx2);
  }
  for (; i < count; ++i) sha256_compress_portable(states[i], data[i], blocks);
}

// SHA-512, per block and lane: AVX-512 8 lanes ~38 ns, AVX2 4 lanes ~110
// ns, portable ~320 ns: a lone message is faster alone than in padded AVX2
// lanes, two or more are not.
void sha512_compress_many(Sha512State* states, const std::uint8_t* const* data, std::size_t count,
                          std::size_t blocks) noexcept {
  const base::CpuFeatures& cpu = base::cpu_features();
  std::size_t i = 0;
  if (use_avx512(cpu)) {
    for (; i < count; i += 8) {
      compress_group<8>(states + i, data + i, std::min<std::size_t>(8, count - i), blocks,
                        detail::sha512_compress_x8_avx512);
    }
    return;
  }
  if (cpu.avx2) {
    i = compress_avx2_groups<4>(states, data, i, count, blocks, detail::sha512_compress_x4_avx2);
  }
  for (; i < count; ++i) sha512_compress_portable(states[i], data[i], blocks);
}

template <class Traits>
void Sha2<Traits>::update(base::ByteView data) noexcept {
  const std::uint8_t* in = data.data();
  std::size_t len = data.size();
  if (len == 0) return;
  std::size_t used = static_cast<std::size_t>(total_bytes_ % kBlockBytes);
  total_bytes_ += len;
  if (used > 0) {
    const std::size_t take = std::min(len, kBlockBytes - used);
    std::memcpy(buffer_.data() + used, in, take);
    used += take;
    in += take;
    len -= take;
    if (used < kBlockBytes) return;
    Traits::compress(state_, buffer_.data(), 1);
  }
  const std::size_t blocks = len / kBlockBytes;
  if (blocks > 0) {
    Traits::compress(state_, in, blocks);
    in += blocks * kBlockBytes;
    len -= blocks * kBlockBytes;
  }
  if (len > 0) std::memcpy(buffer_.data(), in, len);
}

template <class Traits>
typename Sha2<Traits>::Digest Sha2<Traits>::finalize() noexcept {
  // Padding (FIPS 180-4, Sec. 5.1.1 and 5.1.2): a 1 bit, zeros, then the
  // message length in bits as a kLengthBytes-byte big-endian integer.
  std::size_t used = static_cast<std::size_t>(total_bytes_ % kBlockBytes);
  buffer_[used++] = 0x80;
  if (used > kBlockBytes - Traits::kLengthBytes) {
    std::fill(buffer_.begin() + static_cast<std::ptrdiff_t>(used), buffer_.end(), 0);
    Traits::compress(state_, buffer_.data(), 1);
    used = 0;
  }
  std::fill(buffer_.begin() + static_cast<std::ptrdiff_t>(used), buffer_.end() - 8, 0);
  if constexpr (Traits::kLengthBytes == 16) {
    store_be<std::uint64_t>(buffer_.data() + kBlockBytes - 16, total_bytes_ >> 61);
  }
  store_be<std::uint64_t>(buffer_.data() + kBlockBytes - 8, total_bytes_ << 3);
  Traits::compress(state_, buffer_.data(), 1);

  Digest out;
  for (std::size_t i = 0; i < 8; ++i) store_be(out.data() + i * sizeof(Word), state_[i]);
  wipe();
  state_ = Traits::kInitial;
  return out;
}

template <class Traits>
void Sha2<Traits>::wipe() noexcept {
  base::secure_wipe(state_.data(), sizeof(state_));
  base::secure_wipe(buffer_.data(), buffer_.size());
  total_bytes_ = 0;
}

template class Sha2<Sha256Traits>;
template class Sha2<Sha512Traits>;

base::ByteArray<32> sha256(base::ByteView data) noexcept {
  Sha256 h;
  h.update(data);
  return h.finalize();
}

base::ByteArray<64> sha512(base::ByteView data) noexcept {
  Sha512 h;
  h.update(data);
  return h.finalize();
}

// FIPS 198-1, Sec. 4, steps 1-3 (K0) and the ipad / opad keying of steps 4-5
// and 7-8; update() is step 6 and finalize() steps 8-9.
template <class Hash>
Hmac<Hash>::Hmac(base::ByteView key) noexcept {
  constexpr std::size_t kB = Hash::kBlockBytes;
  std::array<std::uint8_t, kB> k0{};
  if (key.size() > kB) {
    Hash h;
    h.update(key);
    typename Hash::Digest d = h.finalize();
    std::memcpy(k0.data(), d.data(), d.size());
    base::secure_wipe(d.data(), d.size());
  } else if (!key.empty()) {
    std::memcpy(k0.data(), key.data(), key.size());
  }
  std::array<std::uint8_t, kB> pad;
  for (std::size_t i = 0; i < kB; ++i) pad[i] = static_cast<std::uint8_t>(k0[i] ^ 0x36);
  inner_.update(pad);
  for (std::size_t i = 0; i < kB; ++i) pad[i] = static_cast<std::uint8_t>(k0[i] ^ 0x5c);
  outer_.update(pad);
  base::secure_wipe(k0.data(), k0.size());
  base::secure_wipe(pad.data(), pad.size());
}

template <class Hash>
typename Hmac<Hash>::Digest Hmac<Hash>::finalize() noexcept {
  Digest inner = inner_.finalize();
  outer_.update(inner);
  base::secure_wipe(inner.data(), inner.size());
  return outer_.finalize();
}

template class Hmac<Sha256>;
template class Hmac<Sha512>;

base::ByteArray<32> hmac_sha256(base::ByteView key, base::ByteView data) noexcept {
  HmacSha256 mac(key);
  mac.update(data);
  return mac.finalize();
}

base::ByteArray<64> hmac_sha512(base::ByteView key, base::ByteView data) noexcept {
  HmacSha512 mac(key);
  mac.update(data);
  return mac.finalize();
}

namespace {

// RFC 8017, Appendix B.2.1, steps 3-4.
template <class Hash>
void mgf1(base::ByteView seed, base::MutableByteView out) noexcept {
  std::uint8_t* dst = out.data();
  std::size_t left = out.size();
  for (std::uint32_t counter = 0; left > 0; ++counter) {
    std::uint8_t c[4];
    store_be(c, counter);
    Hash h;
    h.update(seed);
    h.update(c);
    const typename Hash::Digest d = h.finalize();
    const std::size_t take = std::min(left, d.size());
    std::memcpy(dst, d.data(), take);
    dst += take;
    left -= take;
  }
}

}  // namespace

void mgf1_sha256(base::ByteView seed, base::MutableByteView out) noexcept { mgf1<Sha256>(seed, out); }

void mgf1_sha512(base::ByteView seed, base::MutableByteView out) noexcept { mgf1<Sha512>(seed, out); }

}  // namespace sion::crypto
