#pragma once
// The groups the registry (group.cpp) lists. Each is defined in its own file
// in this folder.

#include <optional>
#include <vector>

#include "sion/bench/group.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::bench::groups {

Group signatures();
Group authorization();
Group state();
Group data();
Group transparency();
Group execution();
Group lineage();
Group streams();
Group devnet();

// The parts of group `state`, one file each: SHA3 rows (state.cpp), the
// sparse Merkle state tree and RocksDB (state_tree.cpp), the sum tree
// (sum_tree.cpp).
base::Status report_state_hashing(Context& context);
base::Status report_state_tree(Context& context);
base::Status report_sum_tree(Context& context);

// The execution row on a large state in RocksDB (execution_store.cpp): the
// senders of `transfers` among filler accounts, `txs` their Pulse, `verdicts`
// its signature verdicts.
struct TransferWorkload;
base::Status report_large_state(Context& context, const TransferWorkload& transfers,
                                const std::vector<exec::Transaction>& txs,
                                const std::vector<std::optional<bool>>& verdicts);
// Storing the executed Pulse of `txs` through the node's ChainStore
// (chain_store.cpp).
base::Status report_chain_store(Context& context, const TransferWorkload& transfers,
                                const std::vector<exec::Transaction>& txs,
                                const std::vector<std::optional<bool>>& verdicts);

}  // namespace sion::bench::groups
