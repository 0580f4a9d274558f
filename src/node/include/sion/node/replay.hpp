#pragma once
// Replaying a stored chain from genesis (docs/state.md, "Replaying the
// chain"; `sion replay`): every stored Pulse body is executed again, in
// height order, on a fresh in-memory state made from the genesis, and
// everything the store holds is checked against what that gives. A store
// that passes holds exactly the chain its bodies make: no Pulse half
// written, no header, receipt, index entry or object that execution would
// not have produced.

#include <cstdint>
#include <functional>

#include "sion/base/executor.hpp"
#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/node/chain_store.hpp"

namespace sion::node {

struct ReplayOptions {
  base::Executor* executor = nullptr;  // signature checks and data commitments; nullptr: the calling thread
  // Called after each height is checked, with it and the latest height.
  std::function<void(std::uint64_t height, std::uint64_t latest)> progress = {};
};

struct ReplayReport {
  std::uint64_t pulses = 0;        // heights 1 to the latest, each replayed
  std::uint64_t transactions = 0;  // in their bodies
  std::uint64_t objects = 0;       // in the final state
  commit::Hash state_root{};       // the replayed final state's, equal to the stored state's
};

// Replays `store` (opened read-only, or not written meanwhile) from
// `genesis`, checking:
//   - height 0: the stored parameters and genesis header are the genesis's
//     (invalid_value otherwise: the store holds another chain);
//   - each height h from 1: exec::check_pulse of the stored header and body
//     on the replayed state after h - 1 (its parent link, params hash,
//     transactions root, no rejected transaction, receipts root, post-state
//     root, data commitment), the stored receipts equal to the replayed
//     ones, and every transaction of the body found by the index at (h, its
//     position);
//   - at the end: the replayed state root equal to the stored state's and
//     the latest header's, every stored object equal to the replayed one
//     (no object missing or extra), and each coin listed under its owner.
// A mismatch is corrupt_store, "replay: height H: <field>: ...", naming the
// first height and field that differ; failures to read the store pass
// through as they are.
base::Result<ReplayReport> replay_chain(const ChainStore& store, const exec::Genesis& genesis,
                                        const ReplayOptions& options = {});

}  // namespace sion::node
