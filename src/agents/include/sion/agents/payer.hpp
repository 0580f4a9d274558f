#pragma once
// Who sends a kind that moves value, an account or an agent, and the funds
// it moves (docs/agents.md, "Paying with coins" and "Kinds"). Every such
// kind runs the same three stages: the sender's standing, the kind's own
// rules, the funds. The kinds of agents use it, and so does a kind of a
// layer above that an agent may send (docs/streams.md, OpenStream).

#include <cstdint>
#include <optional>
#include <span>

#include "sion/agents/kinds.hpp"
#include "sion/agents/standing.hpp"

namespace sion::agents::detail {

struct Payer {
  std::optional<AgentState> agent;  // nullopt: an account
  EffectiveCaveats caveats;         // an agent's, at the transaction's height
};

struct Loaded {
  ledger::TxStatus status = ledger::TxStatus::success;
  Payer payer;
};

// The sender as payer. An agent: coins listed → coins_from_agent; then its
// standing; then `action`, if the kind needs one → action_not_allowed.
base::Result<Loaded> load_payer(const ledger::Overlay& state, const ledger::Authorized& tx, const Coins& coins,
                                std::optional<Action> action);

struct FundsCheck {
  ledger::TxStatus status = ledger::TxStatus::success;
  Amount change = 0;  // an account's, on success
};

// Whether the payer can move `amount`: an account's coins (checked as a
// transfer's inputs) must hold amount + fee; an agent's period cap and then
// its balance must allow it.
base::Result<FundsCheck> check_funds(const ledger::Overlay& state, const Payer& payer, const Coins& coins,
                                     Amount amount, const ledger::Authorized& tx);

// Moves what check_funds allowed: spends an account's coins (the change to
// change_id) or debits an agent's allotment, counting the move in its
// period. Returns the coins created (0 or 1).
std::uint32_t take_funds(ledger::Overlay& state, Payer& payer, const Coins& coins, Amount amount,
                         const FundsCheck& check, const ledger::Authorized& tx, const Id& change_id);

// A failed body: an account's fee coin pays the fee (its rest to new_ids[0]);
// an agent paid at authorization and nothing else changes.
inline ledger::Receipt fail(ledger::Overlay& state, const ledger::Authorized& tx, ledger::TxStatus status,
                            std::span<const Id> new_ids) {
  return ledger::fail_transaction(state, tx, status, new_ids[0]);
}

}  // namespace sion::agents::detail
