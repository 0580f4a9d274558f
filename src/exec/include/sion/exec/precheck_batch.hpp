#pragma once
// The pre-checks of a whole Pulse's transactions that read no state: ids
// and usage hashed in Keccak lanes across transactions, which of them the
// costly checks may be spent on, and settlements' walks in lanes
// (docs/ledger.md, "Pulse execution"; docs/performance.md, "What bounds
// state machine only").

#include <cstdint>
#include <span>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/exec/apply.hpp"

namespace sion::exec {

// precheck_ids(tx) for every transaction, in order, equal to it field for
// field; no signature verdicts. The transaction ids, key-bundle ids and coin
// ids of all transactions are hashed together, so inputs of equal length
// (transactions of one shape, bundles of one profile) share Keccak lanes.
std::vector<TxPrecheck> precheck_ids_batch(std::span<const Transaction> transactions);

// 1 for each transaction that can reach step 4 (this chain's, keys well
// formed) while the usage of all picked so far, from `bound` on, fits
// params.limits; 0 for the others and all after the first that does not
// fit. What the costly pre-checks (signatures, walks) may be spent on.
std::vector<std::uint8_t> pick_within_limits(std::span<const Transaction> transactions, const ChainParams& params,
                                             PulseUsage bound);

// out[i].body_digest = the end of transaction i's settlement walk
// (streams::walk_steps from its element) for every picked settlement, the
// walks side by side in Keccak lanes (docs/streams.md, "Walks in lanes"),
// slices of them on `executor`'s threads (nullptr: this thread).
void precheck_walks(std::span<const Transaction> transactions, std::span<const std::uint8_t> picked,
                    std::span<TxPrecheck> out, base::Executor* executor);

}  // namespace sion::exec
