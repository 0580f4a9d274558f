#include "sion/policy/mempool.hpp"

#include <string>
#include <variant>

#include "sion/base/checked.hpp"
#include "sion/policy/kind_rules.hpp"

namespace sion::policy {

PolicyVerdict check_mempool_policy(const exec::Transaction& tx, const ledger::ChainParams& params,
                                   const MempoolPolicy& policy) {
  const exec::TxPayload& payload = tx.payload;
  if (payload.chain_id != params.chain_id) {
    return refuse(PolicyCode::wrong_chain, "chain id " + std::to_string(payload.chain_id) + ", but this chain is " +
                                               std::to_string(params.chain_id));
  }
  // codec::encode's precondition; decoded transactions always pass.
  if (!codec::valid(tx)) return refuse(PolicyCode::not_encodable, "a length or count exceeds its field's maximum");
  const std::uint64_t size = codec::encoded_size(tx);
  if (size > policy.max_tx_bytes) {
    return refuse(PolicyCode::above_policy_size, "transaction of " + std::to_string(size) +
                                                     " bytes, above the policy maximum of " +
                                                     std::to_string(policy.max_tx_bytes));
  }
  // A transaction that alone passes a Pulse limit could never be included.
  if (size > params.limits.max_bytes) {
    return refuse(PolicyCode::above_pulse_bytes, "transaction of " + std::to_string(size) +
                                                     " bytes, above the Pulse limit of " +
                                                     std::to_string(params.limits.max_bytes));
  }
  if (const auto auth = exec::auth_bytes(tx); auth > params.limits.max_auth_bytes) {
    return refuse(PolicyCode::above_pulse_auth_bytes, "authorization of " + std::to_string(auth) +
                                                          " bytes, above the Pulse limit of " +
                                                          std::to_string(params.limits.max_auth_bytes));
  }
  const auto floor = base::checked_mul(policy.min_fee_per_byte, size);
  if (!floor || payload.fee < *floor) {
    return refuse(PolicyCode::fee_below_floor,
                  "fee " + std::to_string(payload.fee) + " is below the floor of " +
                      std::to_string(policy.min_fee_per_byte) + " per byte for " + std::to_string(size) + " bytes" +
                      (floor ? " (" + std::to_string(*floor) + ")" : std::string(" (past 2^64 - 1)")));
  }
  return std::visit([&policy](const auto& body) { return check_kind(body, policy); }, payload.body);
}

}  // namespace sion::policy
