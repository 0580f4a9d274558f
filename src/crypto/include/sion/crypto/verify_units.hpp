#pragma once
// Verify units (docs/crypto.md, "Verify units"): what checking one signature of a
// scheme costs, relative to ML-DSA-44 verify = 100. Pulse budgets limit the
// sum of a Pulse's verify units, so an expensive scheme pays for its cost in
// block space and fees instead of stretching block time.
//
// The constants are consensus rules and never change once in use (a new
// table would come with a new protocol version). They are the worst ratio
// measured by `sion bench --only signatures` ("verify units, ..." rows) over
// this project's build paths (portable and SIMD), rounded up with a margin
// of at least 25% so that a scheme whose implementation improves unevenly
// on other hardware stays priced at or above its cost. docs/crypto.md gives
// the measurements behind them.

#include <cstdint>

#include "sion/crypto/bundle.hpp"
#include "sion/crypto/signature.hpp"

namespace sion::crypto {

constexpr std::uint32_t verify_units(Scheme scheme) noexcept {
  switch (scheme) {
    case Scheme::ml_dsa_44: return 100;
    case Scheme::ml_dsa_65: return 200;
    case Scheme::ml_dsa_87: return 350;
    case Scheme::slh_dsa_sha2_128s: return 900;
    case Scheme::slh_dsa_sha2_128f: return 2900;
    case Scheme::slh_dsa_sha2_192f: return 4000;
    case Scheme::slh_dsa_sha2_256s: return 2200;
    case Scheme::slh_dsa_shake_128f: return 4740;
    case Scheme::ed25519: return 750;
    case Scheme::ecdsa_p256: return 710;
    case Scheme::ecdsa_secp256k1: return 380;
  }
  return 0xffffffffu;  // unreachable for valid schemes; prices garbage out
}

// A bundle costs the sum of its components.
constexpr std::uint64_t verify_units(const KeyBundle& bundle) noexcept {
  std::uint64_t total = 0;
  for (const auto& part : bundle.parts) total += verify_units(part.scheme);
  return total;
}

}  // namespace sion::crypto
