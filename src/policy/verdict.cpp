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
  }
  return "unknown_policy_code";
}

base::Status PolicyVerdict::to_status() const {
  if (ok()) return {};
  return base::fail(base::Errc::invalid_argument, reason);
}

}  // namespace sion::policy
