#include "sion/exec/mempool.hpp"

#include <string>
#include <utility>

#include "sion/base/checked.hpp"

namespace sion::exec {

namespace {

base::Status refuse(std::string reason) { return base::fail(base::Errc::invalid_argument, std::move(reason)); }

}  // namespace

base::Status check_mempool_policy(const Transaction& tx, const ChainParams& params, const MempoolPolicy& policy) {
  const TxPayload& payload = tx.payload;
  if (payload.chain_id != params.chain_id) {
    return refuse("chain id " + std::to_string(payload.chain_id) + ", but this chain is " +
                  std::to_string(params.chain_id));
  }
  // codec::encode's precondition; decoded transactions always pass.
  if (!codec::valid(tx)) return refuse("a length or count exceeds its field's maximum");
  const std::uint64_t size = codec::encoded_size(tx);
  if (size > policy.max_tx_bytes) {
    return refuse("transaction of " + std::to_string(size) + " bytes, above the policy maximum of " +
                  std::to_string(policy.max_tx_bytes));
  }
  // A transaction that alone passes a Pulse limit could never be included.
  if (size > params.limits.max_bytes) {
    return refuse("transaction of " + std::to_string(size) + " bytes, above the Pulse limit of " +
                  std::to_string(params.limits.max_bytes));
  }
  if (const auto auth = auth_bytes(tx); auth > params.limits.max_auth_bytes) {
    return refuse("authorization of " + std::to_string(auth) + " bytes, above the Pulse limit of " +
                  std::to_string(params.limits.max_auth_bytes));
  }
  const auto floor = base::checked_mul(policy.min_fee_per_byte, size);
  if (!floor || payload.fee < *floor) {
    return refuse("fee " + std::to_string(payload.fee) + " is below the floor of " +
                  std::to_string(policy.min_fee_per_byte) + " per byte for " + std::to_string(size) +
                  " bytes" + (floor ? " (" + std::to_string(*floor) + ")" : std::string(" (past 2^64 - 1)")));
  }
  const auto& outputs = std::get<Transfer>(payload.body).outputs;  // moves to the policy layer
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].amount < policy.dust_threshold) {
      return refuse("output " + std::to_string(i) + " pays " + std::to_string(outputs[i].amount) +
                    ", below the dust threshold " + std::to_string(policy.dust_threshold));
    }
  }
  return {};
}

}  // namespace sion::exec
