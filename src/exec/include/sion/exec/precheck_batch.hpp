#pragma once
// The ids and usage of a whole Pulse's transactions on one thread, hashed
// in Keccak lanes across transactions (docs/ledger.md, "Pulse execution";
// docs/performance.md, "What bounds state machine only").

#include <span>
#include <vector>

#include "sion/exec/apply.hpp"

namespace sion::exec {

// precheck_ids(tx) for every transaction, in order, equal to it field for
// field; no signature verdicts. The transaction ids, key-bundle ids and coin
// ids of all transactions are hashed together, so inputs of equal length
// (transactions of one shape, bundles of one profile) share Keccak lanes.
std::vector<TxPrecheck> precheck_ids_batch(std::span<const Transaction> transactions);

}  // namespace sion::exec
