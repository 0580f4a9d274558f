#include "sion/exec/transaction.hpp"

#include "sion/crypto/verify_units.hpp"

namespace sion::exec {

Id tx_id(const TxPayload& payload) { return commit::tagged_hash(commit::Domain::transaction, codec::encode(payload)); }

base::Result<Amount> required_fee(const Transaction& tx, const FeeSchedule& fees) {
  return ledger::required_fee(codec::encoded_size(tx), crypto::verify_units(tx.keys), fees);
}

std::uint64_t auth_bytes(const Transaction& tx) { return ledger::auth_bytes(tx.keys, tx.auth); }

PulseUsage tx_usage(const Transaction& tx) { return ledger::tx_usage(codec::encoded_size(tx), tx.keys, tx.auth); }

}  // namespace sion::exec
