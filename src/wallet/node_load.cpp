#include "sion/wallet/node_load.hpp"

#include <algorithm>
#include <utility>

#include "sion/wallet/http_transport.hpp"
#include "sion/wallet/node_api.hpp"

namespace sion::wallet {

base::Result<LoadPlan> plan_node_load(const std::string& url, std::vector<LoadAccount>& accounts, std::uint64_t total,
                                      PlanOptions options) {
  if (accounts.empty()) return base::fail(base::Errc::invalid_argument, "no accounts to send load from");
  SION_TRY(HttpCall call, http_call_for(url));
  NodeApi api(std::move(call));
  SION_TRY_STATUS(refresh_accounts(api, accounts));
  SION_TRY(const NodeStatus status, api.status());
  options.per_account = std::max<std::uint64_t>(1, (total + accounts.size() - 1) / accounts.size());
  return plan_transfers(accounts, status.params, options);
}

base::Result<LoadReport> run_node_load(const std::string& url, const LoadPlan& plan, const NodeLoadOptions& options,
                                       const LoadProgressCallback& progress) {
  std::vector<HttpCall> submitters;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options.submitters); ++i) {
    SION_TRY(HttpCall submitter, http_call_for(url));
    submitters.push_back(std::move(submitter));
  }
  SteadyClock clock;
  ObservedQueue queue;
  SION_TRY(const auto follower, EventFollower::start(url, queue, clock));
  return run_load(plan, submitters, queue, clock, options.load, progress);
}

}  // namespace sion::wallet
