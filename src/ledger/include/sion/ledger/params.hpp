#pragma once
// The chain parameters that price and bound every transaction, whatever
// its kind (docs/ledger.md, "Chain parameters"). Consensus format.

#include <cstdint>
#include <string_view>
#include <tuple>

#include "sion/codec/codec.hpp"
#include "sion/ledger/objects.hpp"

namespace sion::ledger {

// Price of a transaction: per byte of its encoding and per verify unit of
// its key bundle (crypto/verify_units.hpp).
struct FeeSchedule {
  Amount per_byte = 1;
  Amount per_verify_unit = 1;
  static constexpr std::string_view codec_name = "FeeSchedule";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("per_byte", &FeeSchedule::per_byte),
                      codec::field("per_verify_unit", &FeeSchedule::per_verify_unit)};
  }
  bool operator==(const FeeSchedule&) const = default;
};

// What one Pulse may hold. In a post-quantum chain authorization dominates
// a transaction's size and cost, so it is bounded on its own
// (docs/ledger.md, "Fees and budgets").
struct PulseLimits {
  std::uint64_t max_verify_units = 4'000'000;  // about 1,300 dual transfers
  std::uint64_t max_auth_bytes = 24u << 20;    // key bundles and signature bundles
  std::uint64_t max_bytes = 32u << 20;         // whole transaction encodings
  std::uint32_t max_transactions = 20'000;
  static constexpr std::string_view codec_name = "PulseLimits";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("max_verify_units", &PulseLimits::max_verify_units),
                      codec::field("max_auth_bytes", &PulseLimits::max_auth_bytes),
                      codec::field("max_bytes", &PulseLimits::max_bytes),
                      codec::field("max_transactions", &PulseLimits::max_transactions)};
  }
  bool operator==(const PulseLimits&) const = default;
};

struct ChainParams {
  std::uint64_t chain_id = 0;
  FeeSchedule fees;
  PulseLimits limits;
  static constexpr std::string_view codec_name = "ChainParams";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("chain_id", &ChainParams::chain_id), codec::field("fees", &ChainParams::fees),
                      codec::field("limits", &ChainParams::limits)};
  }
  bool operator==(const ChainParams&) const = default;
};

}  // namespace sion::ledger
