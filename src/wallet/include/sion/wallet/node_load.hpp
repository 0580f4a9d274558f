#pragma once
// A load run against a running node over HTTP (`sion load`, the bench's
// devnet group): the transfers signed from the accounts' current nonces and
// coins, then paced submitters, one connection each, and an event-stream
// follower that stamps executions (sion/wallet/load.hpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/wallet/load.hpp"
#include "sion/wallet/load_plan.hpp"

namespace sion::wallet {

// Refreshes `accounts` from the node at `url` (their nonces and largest
// coins) and signs `total` transfers spread over them, at least one each,
// under the chain parameters the node reports.
base::Result<LoadPlan> plan_node_load(const std::string& url, std::vector<LoadAccount>& accounts, std::uint64_t total,
                                      PlanOptions options);

struct NodeLoadOptions {
  std::size_t submitters = 4;  // concurrent connections, at least one
  LoadOptions load;
};

// Sends `plan` to the node at `url` and reports what came of it.
base::Result<LoadReport> run_node_load(const std::string& url, const LoadPlan& plan, const NodeLoadOptions& options,
                                       const LoadProgressCallback& progress = {});

}  // namespace sion::wallet
