#pragma once
// Keccak-f[1600] and the SHA-3 family (FIPS 202). The one Keccak in Sion:
// SHA3-256 for hashing state, SHAKE128/256 for ML-DSA and SLH-DSA-SHAKE.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "sion/base/bytes.hpp"

namespace sion::crypto {

using KeccakState = std::array<std::uint64_t, 25>;

// Keccak-p[1600, 24] (FIPS 202, Sec. 3.3 and 3.4), lanes indexed x + 5y.
void keccak_f1600(KeccakState& state) noexcept;

// A Keccak sponge (FIPS 202, Sec. 4) with rate kRate bytes and the domain
// suffix of Sec. 6 already combined with the first pad10*1 bit: 0x06 for
// SHA3-*, 0x1f for SHAKE*.
template <std::size_t kRate, std::uint8_t kSuffix>
class KeccakSponge {
  static_assert(kRate % 8 == 0 && kRate < 200);

 public:
  static constexpr std::size_t kRateBytes = kRate;

  KeccakSponge() noexcept = default;
  ~KeccakSponge() { base::secure_wipe(state_.data(), sizeof(state_)); }
  KeccakSponge(const KeccakSponge&) = default;
  KeccakSponge& operator=(const KeccakSponge&) = default;

  void reset() noexcept { *this = KeccakSponge{}; }

  void absorb(base::ByteView data) noexcept;

  // Pads and switches to squeezing; further absorb() calls are a bug.
  void finalize() noexcept;

  // Output bytes in order; may be called repeatedly (XOF).
  void squeeze(base::MutableByteView out) noexcept;

  // Whole blocks straight from the state, for rejection samplers that
  // consume rate-sized chunks (FIPS 204 Alg. 30 and 31).
  void squeeze_blocks(std::uint8_t* out, std::size_t blocks) noexcept;

 private:
  KeccakState state_{};
  std::size_t offset_ = 0;  // bytes absorbed into / squeezed from the current block
  bool squeezing_ = false;
};

using Sha3_256 = KeccakSponge<136, 0x06>;
using Sha3_512 = KeccakSponge<72, 0x06>;
using Shake128 = KeccakSponge<168, 0x1f>;
using Shake256 = KeccakSponge<136, 0x1f>;

// ---- Several independent states at once -----------------------------------
//
// kWays Keccak-f[1600] states interleaved lane by lane: lanes[i][j] is lane i
// of state j, so lane i of every state is one vector of kWays 64-bit words.
// ML-DSA expands its matrix and vectors from many seeds of equal length;
// measured on a Zen 5 class core, four permutations with AVX2 cost about 1.5
// scalar ones, and eight with AVX-512 about one.
template <std::size_t kWays>
struct alignas(64) KeccakStates {
  std::uint64_t lanes[25][kWays];
};

// keccak_f1600 on each of the 4 or 8 states. The implementation is chosen on
// every call from sion::base::cpu_features(): AVX-512 (vpternlogq, vprolq),
// AVX2, or the portable permutation in a loop. All give the same result.
void keccak_f1600_x4(KeccakStates<4>& states) noexcept;
void keccak_f1600_x8(KeccakStates<8>& states) noexcept;

// kWays sponges of the same rate and suffix run in lockstep, for inputs that
// all have the same length, absorbed in one call. The permutation is
// keccak_f1600_x4 or keccak_f1600_x8 (kWays 4 or 8).
template <std::size_t kRate, std::uint8_t kSuffix, std::size_t kWays>
class KeccakSpongeN {
  static_assert(kRate % 8 == 0 && kRate < 200);
  static_assert(kWays == 4 || kWays == 8);

 public:
  static constexpr std::size_t kRateBytes = kRate;
  static constexpr std::size_t kLanes = kWays;

  KeccakSpongeN() noexcept = default;
  ~KeccakSpongeN() { base::secure_wipe(&states_, sizeof(states_)); }
  KeccakSpongeN(const KeccakSpongeN&) = delete;
  KeccakSpongeN& operator=(const KeccakSpongeN&) = delete;

  // Absorbs inputs[j][0, len) into sponge j and pads: afterwards the sponges
  // only squeeze. Call once, on a fresh object.
  void absorb_once(const std::uint8_t* const (&inputs)[kWays], std::size_t len) noexcept;

  // Writes the next `blocks` whole blocks of sponge j to outputs[j]
  // (blocks * kRate bytes each); a null outputs[j] discards sponge j's.
  void squeeze_blocks(std::uint8_t* const (&outputs)[kWays], std::size_t blocks) noexcept;

 private:
  void permute() noexcept;

  KeccakStates<kWays> states_{};
};

using Shake128x4 = KeccakSpongeN<168, 0x1f, 4>;
using Shake256x4 = KeccakSpongeN<136, 0x1f, 4>;
using Shake128x8 = KeccakSpongeN<168, 0x1f, 8>;
using Shake256x8 = KeccakSpongeN<136, 0x1f, 8>;

extern template class KeccakSpongeN<168, 0x1f, 4>;
extern template class KeccakSpongeN<136, 0x1f, 4>;
extern template class KeccakSpongeN<168, 0x1f, 8>;
extern template class KeccakSpongeN<136, 0x1f, 8>;

using Hash256 = base::ByteArray<32>;

// One-shot SHA3-256 on a local state that is not wiped afterwards: for
// public data (state, tree nodes, ids); hash secrets with Sha3_256, which
// wipes. Permutes with BMI2 where the CPU has it.
Hash256 sha3_256(base::ByteView data) noexcept;

// SHA3-256 of `count` independent inputs of equal length `len`:
// out[i] = sha3_256(inputs[i][0, len)). Tree levels hash many nodes at once;
// this runs them in 8 (AVX-512) or 4 (AVX2) Keccak lanes where the CPU has
// them, and one by one otherwise. Results do not depend on the path taken.
void sha3_256_many(const std::uint8_t* const* inputs, std::size_t len, Hash256* out, std::size_t count) noexcept;
// SHA3-256 of each input, of any lengths: out[i] = sha3_256(inputs[i]).
// Inputs of equal length are hashed together through sha3_256_many.
void sha3_256_each(std::span<const base::ByteView> inputs, Hash256* out);
base::ByteArray<64> sha3_512(base::ByteView data) noexcept;
void shake128(base::ByteView data, base::MutableByteView out) noexcept;
void shake256(base::ByteView data, base::MutableByteView out) noexcept;

extern template class KeccakSponge<136, 0x06>;
extern template class KeccakSponge<72, 0x06>;
extern template class KeccakSponge<168, 0x1f>;
extern template class KeccakSponge<136, 0x1f>;

}  // namespace sion::crypto
