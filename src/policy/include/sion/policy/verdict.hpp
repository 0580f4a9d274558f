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
  // The pool's own checks (tx_pool.hpp; docs/mempool.md).
  fee_below_required = 8,        // fee under the chain's required fee (per byte and per verify unit)
  already_pooled = 9,            // a transaction with this id is in the pool
  wrong_keys = 10,               // keys malformed, not the account's, or (no account) not hashing to the sender
  nonce_too_low = 11,            // nonce below the account's
  fee_unpayable = 12,            // no fee coin, not the sender's, or holding less than the fee
  unknown_input = 13,            // an input is not an existing coin
  input_not_owned = 14,          // an input coin belongs to another account
  nonce_too_far_ahead = 15,      // nonce past the account's by more than the pool holds
  too_many_held = 16,            // the sender already has as many held (future-nonce) transactions as allowed
  sender_full = 17,              // the sender already has as many pooled transactions as allowed
  replacement_underpriced = 18,  // same sender and nonce as a pooled one, without the required feerate bump
  pool_full = 19,                // the pool is full and pays more per byte than the newcomer wherever it could evict
  bad_signature = 20,            // the signature bundle does not verify (the node checks it, not the pool)
  not_an_agent = 21,             // an agent's transaction whose sender holds no charter that may act
  bad_batch_place = 22,          // a batch member whose place does not prove it in an open batch of its controller
};
inline constexpr std::array<PolicyCode, 23> kAllPolicyCodes = {PolicyCode::admitted,
                                                               PolicyCode::wrong_chain,
                                                               PolicyCode::not_encodable,
                                                               PolicyCode::above_policy_size,
                                                               PolicyCode::above_pulse_bytes,
                                                               PolicyCode::above_pulse_auth_bytes,
                                                               PolicyCode::fee_below_floor,
                                                               PolicyCode::dust_output,
                                                               PolicyCode::fee_below_required,
                                                               PolicyCode::already_pooled,
                                                               PolicyCode::wrong_keys,
                                                               PolicyCode::nonce_too_low,
                                                               PolicyCode::fee_unpayable,
                                                               PolicyCode::unknown_input,
                                                               PolicyCode::input_not_owned,
                                                               PolicyCode::nonce_too_far_ahead,
                                                               PolicyCode::too_many_held,
                                                               PolicyCode::sender_full,
                                                               PolicyCode::replacement_underpriced,
                                                               PolicyCode::pool_full,
                                                               PolicyCode::bad_signature,
                                                               PolicyCode::not_an_agent,
                                                               PolicyCode::bad_batch_place};
constexpr std::array<PolicyCode, 23> codec_enum_values(PolicyCode) { return kAllPolicyCodes; }
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
