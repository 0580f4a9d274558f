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
  std::size_t offset_ = 0;   // bytes absorbed into / squeezed from the current block
  bool squeezing_ = false;
};

using Sha3_256 = KeccakSponge<136, 0x06>;
using Sha3_512 = KeccakSponge<72, 0x06>;
using Shake128 = KeccakSponge<168, 0x1f>;
using Shake256 = KeccakSponge<136, 0x1f>;

using Hash256 = base::ByteArray<32>;

Hash256 sha3_256(base::ByteView data) noexcept;
base::ByteArray<64> sha3_512(base::ByteView data) noexcept;
void shake128(base::ByteView data, base::MutableByteView out) noexcept;
void shake256(base::ByteView data, base::MutableByteView out) noexcept;

extern template class KeccakSponge<136, 0x06>;
extern template class KeccakSponge<72, 0x06>;
extern template class KeccakSponge<168, 0x1f>;
extern template class KeccakSponge<136, 0x1f>;

}  // namespace sion::crypto
