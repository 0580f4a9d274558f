#pragma once
// A node's local admission rules for its mempool (docs/ledger.md, "Mempool
// policy"): stricter than consensus and free to differ between nodes, so
// they sit above execution, apart from the consensus rules.

#include <cstdint>

#include "sion/exec/transaction.hpp"
#include "sion/policy/verdict.hpp"

namespace sion::policy {

struct MempoolPolicy {
  ledger::Amount min_fee_per_byte = 1;  // fee >= min_fee_per_byte * tx_bytes
  ledger::Amount dust_threshold = 546;  // every transfer output amount >= this
  std::uint64_t max_tx_bytes = 256u << 10;
};

// The stateless admission checks, in this order: chain id, codec maxima,
// size (against the policy and the Pulse limits), feerate floor, then the
// rules of the body's kind (kind_rules.hpp). The first that fails decides.
PolicyVerdict check_mempool_policy(const exec::Transaction& tx, const ledger::ChainParams& params,
                                   const MempoolPolicy& policy);

}  // namespace sion::policy
