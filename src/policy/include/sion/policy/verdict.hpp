#pragma once
// A mempool policy decision and its stable machine-readable code
// (docs/ledger.md, "Mempool policy"). A node sends both to the client that
// submitted the transaction: the code for programs, the reason for people.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "sion/base/result.hpp"

namespace sion::policy {

// Why a transaction was refused. Wire values: never renumber; new codes
// take new numbers.
enum class PolicyCode : std::uint8_t {
  admitted = 0,
  wrong_chain = 1,             // chain_id is not this chain's
  not_encodable = 2,           // a length or count exceeds its field's codec maximum
  above_policy_size = 3,       // encoding larger than the policy's max_tx_bytes
  above_pulse_bytes = 4,       // encoding larger than a whole Pulse may hold
  above_pulse_auth_bytes = 5,  // authorization larger than a whole Pulse may hold
  fee_below_floor = 6,         // fee under min_fee_per_byte per byte (or that floor overflows)
  dust_output = 7,             // a transfer output below the dust threshold
};
constexpr std::array<PolicyCode, 8> codec_enum_values(PolicyCode) {
  return {PolicyCode::admitted,          PolicyCode::wrong_chain,       PolicyCode::not_encodable,
          PolicyCode::above_policy_size, PolicyCode::above_pulse_bytes, PolicyCode::above_pulse_auth_bytes,
          PolicyCode::fee_below_floor,   PolicyCode::dust_output};
}
// "fee_below_floor" etc.: the code's name, as APIs print it.
std::string_view policy_code_name(PolicyCode code) noexcept;

// Admitted (code admitted, no reason) or refused with a code and a reason
// naming the value and the limit it breaks.
struct [[nodiscard]] PolicyVerdict {
  PolicyCode code = PolicyCode::admitted;
  std::string reason;

  bool ok() const noexcept { return code == PolicyCode::admitted; }
  explicit operator bool() const noexcept { return ok(); }
  // For callers that speak base::Status: invalid_argument with the reason.
  base::Status to_status() const;
};

inline PolicyVerdict refuse(PolicyCode code, std::string reason) { return {code, std::move(reason)}; }

}  // namespace sion::policy
