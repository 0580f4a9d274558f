#pragma once
// Fees and Pulse budgets (docs/ledger.md, "Fees and budgets"), from a
// transaction's sizes and keys alone, so they hold for every kind. All
// arithmetic is on integers and checked: a product or sum past 2^64 - 1 is
// an error, never a wrap.

#include <cstdint>
#include <string_view>
#include <tuple>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/ledger/params.hpp"

namespace sion::ledger {

// fees.per_byte * tx_bytes + fees.per_verify_unit * verify_units;
// invalid_value if that passes 2^64 - 1.
base::Result<Amount> required_fee(std::uint64_t tx_bytes, std::uint64_t verify_units, const FeeSchedule& fees);

// Bytes of authorization: the encodings of the key bundle and the
// signature bundle.
std::uint64_t auth_bytes(const crypto::KeyBundle& keys, const crypto::SignatureBundle& auth);

// What a Pulse, or one transaction, takes from the budgets of PulseLimits.
struct PulseUsage {
  std::uint64_t transactions = 0;
  std::uint64_t bytes = 0;       // transaction encodings
  std::uint64_t auth_bytes = 0;  // key bundles and signature bundles
  std::uint64_t verify_units = 0;
  static constexpr std::string_view codec_name = "PulseUsage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("transactions", &PulseUsage::transactions),
                      codec::field("bytes", &PulseUsage::bytes), codec::field("auth_bytes", &PulseUsage::auth_bytes),
                      codec::field("verify_units", &PulseUsage::verify_units)};
  }
  bool operator==(const PulseUsage&) const = default;

  // Whether *this plus `more` stays within every limit (a sum that would
  // pass 2^64 - 1 does not fit).
  bool fits(const PulseUsage& more, const PulseLimits& limits) const noexcept;
  // Adds `more`; callers check fits() first, so no sum overflows.
  void add(const PulseUsage& more) noexcept;
};

// A transaction whose key bundle has no parts is a member of a batch its
// controller signed once (docs/agents.md, "Authorization of an agent's
// transaction"): it costs these verify units (its inclusion path and its
// batch's read) instead of a signature's.
inline constexpr std::uint64_t kBatchMemberVerifyUnits = 50;
inline bool is_batch_member(const crypto::KeyBundle& keys) noexcept { return keys.parts.empty(); }

// One transaction's usage: one transaction, its encoded size, its
// authorization bytes and the verify units of `keys` (of a batch member:
// kBatchMemberVerifyUnits).
PulseUsage tx_usage(std::uint64_t tx_bytes, const crypto::KeyBundle& keys, const crypto::SignatureBundle& auth);

}  // namespace sion::ledger
