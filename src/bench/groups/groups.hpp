#pragma once
// The groups the registry (group.cpp) lists. Each is defined in its own file
// in this folder.

#include "sion/bench/group.hpp"

namespace sion::bench::groups {

Group signatures();
Group state();
Group data();
Group transparency();
Group execution();

// The parts of group `state`, one file each: SHA3 rows (state.cpp), the
// sparse Merkle state tree and RocksDB (state_tree.cpp), the sum tree
// (sum_tree.cpp).
base::Status report_state_hashing(Context& context);
base::Status report_state_tree(Context& context);
base::Status report_sum_tree(Context& context);

}  // namespace sion::bench::groups
