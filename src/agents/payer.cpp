#include "sion/agents/payer.hpp"

#include "sion/base/checked.hpp"
#include "sion/ledger/coins.hpp"

namespace sion::agents::detail {

using ledger::TxStatus;

base::Result<Loaded> load_payer(const ledger::Overlay& state, const ledger::Authorized& tx, const Coins& coins,
                                std::optional<Action> action) {
  Loaded loaded;
  SION_TRY(loaded.payer.agent, read_agent(state, tx.sender));
  if (!loaded.payer.agent) return loaded;
  if (!coins.empty()) {
    loaded.status = TxStatus::coins_from_agent;
    return loaded;
  }
  SION_TRY(auto standing, read_standing(state, *loaded.payer.agent, tx.height));
  loaded.status = standing.status;
  loaded.payer.caveats = std::move(standing.caveats);
  if (loaded.status == TxStatus::success && action && !loaded.payer.caveats.allows_action(*action)) {
    loaded.status = TxStatus::action_not_allowed;
  }
  return loaded;
}

base::Result<FundsCheck> check_funds(const ledger::Overlay& state, const Payer& payer, const Coins& coins,
                                     Amount amount, const ledger::Authorized& tx) {
  if (payer.agent) {
    const Allotment& allotment = payer.agent->allotment;
    const auto moved =
        base::checked_add(allotment.moved_at(tx.height, payer.agent->charter.caveats.period_length), amount);
    if (amount > 0 && (!moved || *moved > payer.caveats.period_cap())) return FundsCheck{TxStatus::above_period_cap};
    if (allotment.balance < amount) return FundsCheck{TxStatus::insufficient_allotment};
    return FundsCheck{};
  }
  SION_TRY(const auto spent, ledger::check_coins(state, coins, tx.sender));
  if (spent.status != TxStatus::success) return FundsCheck{spent.status};
  const auto needed = base::checked_add(amount, tx.fee);
  if (!spent.total || !needed) return FundsCheck{TxStatus::amount_overflow};
  if (*spent.total < *needed) return FundsCheck{TxStatus::insufficient_funds};
  return FundsCheck{TxStatus::success, *spent.total - *needed};
}

std::uint32_t take_funds(ledger::Overlay& state, Payer& payer, const Coins& coins, Amount amount,
                         const FundsCheck& check, const ledger::Authorized& tx, const Id& change_id) {
  if (!payer.agent) return ledger::spend_coins(state, coins, tx.sender, check.change, change_id);
  if (amount == 0) return 0;
  AgentState& agent = *payer.agent;
  const std::uint64_t period_length = agent.charter.caveats.period_length;
  agent.allotment.moved = agent.allotment.moved_at(tx.height, period_length) + amount;  // check_funds bounded it
  agent.allotment.period = tx.height / period_length;
  agent.allotment.balance -= amount;
  write_allotment(state, agent);
  return 0;
}

}  // namespace sion::agents::detail
