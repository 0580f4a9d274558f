#include "sion/agents/kinds.hpp"

namespace sion::agents {
namespace {

std::optional<Id> first(const Coins& coins) noexcept {
  if (coins.empty()) return std::nullopt;
  return coins[0];
}

}  // namespace

std::optional<Id> fee_coin(const SpawnAgent& body) noexcept { return first(body.coins); }
std::optional<Id> fee_coin(const FundAgent& body) noexcept { return first(body.coins); }
std::optional<Id> fee_coin(const AgentPay&) noexcept { return std::nullopt; }
std::optional<Id> fee_coin(const OpenBatch& body) noexcept { return first(body.coins); }
std::optional<Id> fee_coin(const SpawnCohort& body) noexcept { return first(body.coins); }
std::optional<Id> fee_coin(const MaterializeAgents& body) noexcept { return first(body.coins); }
std::optional<Id> fee_coin(const Restrict& body) noexcept { return first(body.coins); }

}  // namespace sion::agents
