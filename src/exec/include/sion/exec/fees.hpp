#pragma once
// Fees, Pulse budgets and the mempool's local policy (docs/ledger.md,
// "Fees and budgets" and "Mempool policy"). All arithmetic is on integers
// and checked: a product or sum past 2^64 - 1 is an error, never a wrap.

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/ledger.hpp"

namespace sion::exec {

// a + b and a * b, or nullopt past 2^64 - 1.
constexpr std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}
constexpr std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// fees.per_byte * tx_bytes + fees.per_verify_unit * verify_units;
// invalid_value if that passes 2^64 - 1.
base::Result<Amount> required_fee(std::uint64_t tx_bytes, std::uint64_t verify_units, const FeeSchedule& fees);
// The fee `tx` must pay: its encoded size and the verify units of tx.keys.
base::Result<Amount> required_fee(const Transaction& tx, const FeeSchedule& fees);

// Bytes of authorization: the encodings of the key bundle and the
// signature bundle (docs/ledger.md, "Fees and budgets").
std::uint64_t auth_bytes(const Transaction& tx);

// What a Pulse, or one transaction, takes from the budgets of PulseLimits.
struct PulseUsage {
  std::uint64_t transactions = 0;
  std::uint64_t bytes = 0;       // transaction encodings
  std::uint64_t auth_bytes = 0;  // key bundles and signature bundles
  std::uint64_t verify_units = 0;
  static constexpr std::string_view codec_name = "PulseUsage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("transactions", &PulseUsage::transactions),
                      codec::field("bytes", &PulseUsage::bytes),
                      codec::field("auth_bytes", &PulseUsage::auth_bytes),
                      codec::field("verify_units", &PulseUsage::verify_units)};
  }
  bool operator==(const PulseUsage&) const = default;

  // Whether *this plus `more` stays within every limit (a sum that would
  // pass 2^64 - 1 does not fit).
  bool fits(const PulseUsage& more, const PulseLimits& limits) const noexcept;
  // Adds `more`; callers check fits() first, so no sum overflows.
  void add(const PulseUsage& more) noexcept;
};

// One transaction's usage (its keys' verify units: tx.keys).
PulseUsage tx_usage(const Transaction& tx);

// A node's local admission rules, stricter than consensus and free to
// differ between nodes (docs/ledger.md, "Mempool policy").
struct MempoolPolicy {
  Amount min_fee_per_byte = 1;       // fee >= min_fee_per_byte * tx_bytes
  Amount dust_threshold = 546;       // every output amount >= this
  std::uint64_t max_tx_bytes = 256u << 10;
};

// The stateless admission checks: chain id, size (against the policy and
// the Pulse limits), feerate floor and dust. invalid_argument with a reason
// naming the value and the limit it breaks.
base::Status check_mempool_policy(const Transaction& tx, const ChainParams& params, const MempoolPolicy& policy);

}  // namespace sion::exec
