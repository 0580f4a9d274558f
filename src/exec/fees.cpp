#include "sion/exec/fees.hpp"

#include <string>

#include "sion/crypto/verify_units.hpp"

namespace sion::exec {

base::Result<Amount> required_fee(std::uint64_t tx_bytes, std::uint64_t verify_units, const FeeSchedule& fees) {
  const auto byte_part = checked_mul(fees.per_byte, tx_bytes);
  const auto unit_part = checked_mul(fees.per_verify_unit, verify_units);
  const auto total = byte_part && unit_part ? checked_add(*byte_part, *unit_part) : std::nullopt;
  if (!total) {
    return base::fail(base::Errc::invalid_value, "required fee for " + std::to_string(tx_bytes) + " bytes and " +
                                                     std::to_string(verify_units) +
                                                     " verify units passes 2^64 - 1");
  }
  return *total;
}

base::Result<Amount> required_fee(const Transaction& tx, const FeeSchedule& fees) {
  return required_fee(codec::encoded_size(tx), crypto::verify_units(tx.keys), fees);
}

std::uint64_t auth_bytes(const Transaction& tx) {
  return codec::encoded_size(tx.keys) + codec::encoded_size(tx.auth);
}

bool PulseUsage::fits(const PulseUsage& more, const PulseLimits& limits) const noexcept {
  const auto within = [](std::uint64_t have, std::uint64_t add, std::uint64_t limit) {
    const auto sum = checked_add(have, add);
    return sum && *sum <= limit;
  };
  return within(transactions, more.transactions, limits.max_transactions) &&
         within(bytes, more.bytes, limits.max_bytes) && within(auth_bytes, more.auth_bytes, limits.max_auth_bytes) &&
         within(verify_units, more.verify_units, limits.max_verify_units);
}

void PulseUsage::add(const PulseUsage& more) noexcept {
  transactions += more.transactions;
  bytes += more.bytes;
  auth_bytes += more.auth_bytes;
  verify_units += more.verify_units;
}

PulseUsage tx_usage(const Transaction& tx) {
  return {1, codec::encoded_size(tx), auth_bytes(tx), crypto::verify_units(tx.keys)};
}

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
  const auto floor = checked_mul(policy.min_fee_per_byte, size);
  if (!floor || payload.fee < *floor) {
    return refuse("fee " + std::to_string(payload.fee) + " is below the floor of " +
                  std::to_string(policy.min_fee_per_byte) + " per byte for " + std::to_string(size) +
                  " bytes" + (floor ? " (" + std::to_string(*floor) + ")" : std::string(" (past 2^64 - 1)")));
  }
  const auto& outputs = std::get<Transfer>(payload.body).outputs;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].amount < policy.dust_threshold) {
      return refuse("output " + std::to_string(i) + " pays " + std::to_string(outputs[i].amount) +
                    ", below the dust threshold " + std::to_string(policy.dust_threshold));
    }
  }
  return {};
}

}  // namespace sion::exec
