#include "sion/exec/transaction.hpp"

namespace sion::exec {

Id tx_id(const TxPayload& payload) { return commit::tagged_hash(commit::Domain::transaction, codec::encode(payload)); }

base::Result<Amount> required_fee(const Transaction& tx, const FeeSchedule& fees) {
  const PulseUsage usage = tx_usage(tx);
  return ledger::required_fee(usage.bytes, usage.verify_units, fees);
}

std::uint64_t auth_bytes(const Transaction& tx) { return ledger::auth_bytes(tx.keys, tx.auth); }

PulseUsage tx_usage(const Transaction& tx) {
  PulseUsage usage = ledger::tx_usage(codec::encoded_size(tx), tx.keys, tx.auth);
  usage.verify_units += std::visit([](const auto& body) { return body_work_units(body); }, tx.payload.body);
  return usage;
}

}  // namespace sion::exec
