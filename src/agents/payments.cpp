// FundAgent and AgentPay (docs/agents.md, "Kinds"): the kinds that move
// value to an agent or to a payee.
#include "sion/agents/kinds.hpp"
#include "sion/agents/payer.hpp"
#include "sion/base/checked.hpp"

namespace sion::agents {

using detail::fail;
using ledger::Receipt;
using ledger::TxStatus;

namespace {

// An agent that can receive value: one holding a charter, not a cohort node.
base::Result<std::optional<AgentState>> read_recipient(const ledger::Overlay& state, const Id& id) {
  SION_TRY(auto agent, read_agent(state, id));
  if (agent && agent->charter.cohort) return std::optional<AgentState>{};
  return agent;
}

// Whether `recipient`'s balance can take `amount` more. An agent paying
// itself takes out what it puts back, so it never overflows (its funds
// check decides).
bool fits_credit(const AgentState& recipient, Amount amount, const ledger::Authorized& tx) {
  return recipient.id == tx.sender || base::checked_add(recipient.allotment.balance, amount).has_value();
}

// Credits `amount` to the agent `id` (read again: the payer's own write may
// have touched it); the caller checked the sum fits.
base::Status credit(ledger::Overlay& state, const Id& id, Amount amount) {
  SION_TRY(auto recipient, read_agent(state, id));
  if (!recipient) return base::fail(base::Errc::internal, "credit: the recipient vanished");
  recipient->allotment.balance += amount;
  write_allotment(state, *recipient);
  return {};
}

}  // namespace

base::Result<Receipt> apply_body(ledger::Overlay& state, const FundAgent& body, const ledger::Authorized& tx,
                                 std::span<const Id> new_ids) {
  SION_TRY(auto loaded, detail::load_payer(state, tx, body.coins, Action::fund));
  if (loaded.status != TxStatus::success) return fail(state, tx, loaded.status, new_ids);
  if (body.amount == 0) return fail(state, tx, TxStatus::zero_amount, new_ids);
  SION_TRY(const auto recipient, read_recipient(state, body.agent));
  if (!recipient) return fail(state, tx, TxStatus::not_an_agent, new_ids);
  if (!fits_credit(*recipient, body.amount, tx)) return fail(state, tx, TxStatus::amount_overflow, new_ids);
  SION_TRY(const auto funds, detail::check_funds(state, loaded.payer, body.coins, body.amount, tx));
  if (funds.status != TxStatus::success) return fail(state, tx, funds.status, new_ids);

  const std::uint32_t created = detail::take_funds(state, loaded.payer, body.coins, body.amount, funds, tx, new_ids[0]);
  SION_TRY_STATUS(credit(state, body.agent, body.amount));
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, created};
}

base::Result<Receipt> apply_body(ledger::Overlay& state, const AgentPay& body, const ledger::Authorized& tx,
                                 std::span<const Id> new_ids) {
  SION_TRY(auto loaded, detail::load_payer(state, tx, {}, Action::pay));
  // An account cannot send AgentPay: it names no fee coin, so authorize()
  // rejected it before this.
  if (!loaded.payer.agent) return base::fail(base::Errc::internal, "AgentPay reached by an account");
  if (loaded.status != TxStatus::success) return fail(state, tx, loaded.status, new_ids);
  const EffectiveCaveats& caveats = loaded.payer.caveats;
  if (body.amount == 0) return fail(state, tx, TxStatus::zero_amount, new_ids);
  if (!caveats.allows_payee(body.payee)) return fail(state, tx, TxStatus::payee_not_allowed, new_ids);
  if (body.amount > caveats.per_payment()) return fail(state, tx, TxStatus::above_per_payment, new_ids);
  SION_TRY(const auto funds, detail::check_funds(state, loaded.payer, {}, body.amount, tx));
  if (funds.status != TxStatus::success) return fail(state, tx, funds.status, new_ids);
  SION_TRY(const auto recipient, read_recipient(state, body.payee));
  if (recipient && !fits_credit(*recipient, body.amount, tx)) {
    return fail(state, tx, TxStatus::amount_overflow, new_ids);
  }

  detail::take_funds(state, loaded.payer, {}, body.amount, funds, tx, new_ids[0]);
  if (recipient) {
    SION_TRY_STATUS(credit(state, body.payee, body.amount));
    return Receipt{tx.tx_id, TxStatus::success, tx.fee, 0};
  }
  state.put(new_ids[0], ledger::to_object(ledger::Coin{body.payee, body.amount}, 1));
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, 1};
}

}  // namespace sion::agents
