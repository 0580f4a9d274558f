#pragma once
// The mempool's local policy (docs/ledger.md, "Mempool policy").

#include <cstdint>

#include "sion/base/result.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::exec {

// A node's local admission rules, stricter than consensus and free to
// differ between nodes (docs/ledger.md, "Mempool policy").
struct MempoolPolicy {
  Amount min_fee_per_byte = 1;       // fee >= min_fee_per_byte * tx_bytes
  Amount dust_threshold = 546;       // every output amount >= this
  std::uint64_t max_tx_bytes = 256u << 10;
};

// The stateless admission checks: chain id, size (against the policy and
// the Pulse limits), feerate floor and dust. invalid_argument with a reason
// naming the value and the limit it breaks.
base::Status check_mempool_policy(const Transaction& tx, const ChainParams& params, const MempoolPolicy& policy);

}  // namespace sion::exec
