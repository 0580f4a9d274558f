#include "sion/policy/verdict.hpp"

namespace sion::policy {

std::string_view policy_code_name(PolicyCode code) noexcept {
  switch (code) {
    case PolicyCode::admitted: return "admitted";
    case PolicyCode::wrong_chain: return "wrong_chain";
    case PolicyCode::not_encodable: return "not_encodable";
    case PolicyCode::above_policy_size: return "above_policy_size";
    case PolicyCode::above_pulse_bytes: return "above_pulse_bytes";
    case PolicyCode::above_pulse_auth_bytes: return "above_pulse_auth_bytes";
    case PolicyCode::fee_below_floor: return "fee_below_floor";
    case PolicyCode::dust_output: return "dust_output";
    case PolicyCode::fee_below_required: return "fee_below_required";
    case PolicyCode::already_pooled: return "already_pooled";
    case PolicyCode::wrong_keys: return "wrong_keys";
    case PolicyCode::nonce_too_low: return "nonce_too_low";
    case PolicyCode::fee_unpayable: return "fee_unpayable";
    case PolicyCode::unknown_input: return "unknown_input";
    case PolicyCode::input_not_owned: return "input_not_owned";
    case PolicyCode::nonce_too_far_ahead: return "nonce_too_far_ahead";
    case PolicyCode::too_many_held: return "too_many_held";
    case PolicyCode::sender_full: return "sender_full";
    case PolicyCode::replacement_underpriced: return "replacement_underpriced";
    case PolicyCode::pool_full: return "pool_full";
    case PolicyCode::bad_signature: return "bad_signature";
    case PolicyCode::not_an_agent: return "not_an_agent";
    case PolicyCode::bad_batch_place: return "bad_batch_place";
  }
  return "unknown_policy_code";
}

base::Status PolicyVerdict::to_status() const {
  if (ok()) return {};
  return base::fail(base::Errc::invalid_argument, reason);
}

}  // namespace sion::policy
