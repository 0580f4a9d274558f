#include "sion/policy/kind_rules.hpp"

#include <string>

namespace sion::policy {

PolicyVerdict check_kind(const ledger::Transfer& transfer, const MempoolPolicy& policy) {
  const auto& outputs = transfer.outputs;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].amount < policy.dust_threshold) {
      return refuse(PolicyCode::dust_output, "output " + std::to_string(i) + " pays " +
                                                 std::to_string(outputs[i].amount) + ", below the dust threshold " +
                                                 std::to_string(policy.dust_threshold));
    }
  }
  return {};
}

std::span<const ledger::Id> spent_coins(const ledger::Transfer& transfer) { return transfer.inputs; }

}  // namespace sion::policy
