// OpenBatch and Restrict (docs/agents.md, "Kinds"): a controller's batch of
// member transactions, and an ancestor's restriction of a descendant.
#include <algorithm>
#include <variant>

#include "sion/agents/batch.hpp"
#include "sion/agents/kinds.hpp"
#include "sion/agents/payer.hpp"

namespace sion::agents {

using detail::fail;
using ledger::Receipt;
using ledger::TxStatus;

base::Result<Receipt> apply_body(ledger::Overlay& state, const OpenBatch& body, const ledger::Authorized& tx,
                                 std::span<const Id> new_ids) {
  SION_TRY(auto loaded, detail::load_payer(state, tx, body.coins, Action::control));
  if (loaded.status != TxStatus::success) return fail(state, tx, loaded.status, new_ids);
  // A keyless agent controls nothing: its own actions already come from a batch.
  if (loaded.payer.agent && !std::holds_alternative<Keyed>(loaded.payer.agent->charter.authority)) {
    return fail(state, tx, TxStatus::action_not_allowed, new_ids);
  }
  if (body.count == 0 || body.count > kMaxBatchMembers || body.expiry_height < tx.height) {
    return fail(state, tx, TxStatus::batch_malformed, new_ids);
  }
  SION_TRY(const auto funds, detail::check_funds(state, loaded.payer, body.coins, 0, tx));
  if (funds.status != TxStatus::success) return fail(state, tx, funds.status, new_ids);

  const std::uint32_t created = detail::take_funds(state, loaded.payer, body.coins, 0, funds, tx, new_ids[0]);
  state.put(batch_id(tx.tx_id), to_object(AuthBatch{tx.sender, body.root, body.count, body.expiry_height}, 1));
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, created};
}

namespace {

// The restriction after `action`: each only ever restricts (docs/agents.md,
// "Objects").
Restriction restricted(Restriction restriction, const RestrictAction& action, const Id& root) {
  if (std::holds_alternative<Revoke>(action)) {
    restriction.revoked = true;
  } else if (const auto* suspend = std::get_if<Suspend>(&action)) {
    restriction.suspended_until = std::max(restriction.suspended_until, suspend->until_height);
  } else {
    const Narrowing& narrowing = std::get<Narrow>(action).narrowing;
    restriction.narrowing = restriction.narrowing ? meet(*restriction.narrowing, narrowing, root) : narrowing;
  }
  return restriction;
}

}  // namespace

base::Result<Receipt> apply_body(ledger::Overlay& state, const Restrict& body, const ledger::Authorized& tx,
                                 std::span<const Id> new_ids) {
  SION_TRY(auto loaded, detail::load_payer(state, tx, body.coins, Action::restrict));
  if (loaded.status != TxStatus::success) return fail(state, tx, loaded.status, new_ids);
  SION_TRY(const auto target, read_agent(state, body.target));
  if (!target) return fail(state, tx, TxStatus::not_an_agent, new_ids);
  const Lineage& lineage = target->charter.lineage;
  const bool ancestor =
      loaded.payer.agent ? is_proper_ancestor(loaded.payer.agent->charter.lineage, lineage) : tx.sender == lineage.root;
  if (!ancestor) return fail(state, tx, TxStatus::not_an_ancestor, new_ids);
  if (const auto* narrow = std::get_if<Narrow>(&body.action); narrow && !well_formed(narrow->narrowing)) {
    return fail(state, tx, TxStatus::caveats_malformed, new_ids);
  }
  SION_TRY(const auto funds, detail::check_funds(state, loaded.payer, body.coins, 0, tx));
  if (funds.status != TxStatus::success) return fail(state, tx, funds.status, new_ids);

  const std::uint32_t created = detail::take_funds(state, loaded.payer, body.coins, 0, funds, tx, new_ids[0]);
  SION_TRY(const auto object, state.find(overlay_id(lineage.root, body.target)));
  Restriction current;
  std::uint64_t version = 1;
  if (object != nullptr) {
    SION_TRY(current, restriction_from(*object));
    version = object->version + 1;
  }
  state.put(overlay_id(lineage.root, body.target),
            to_object(restricted(std::move(current), body.action, lineage.root), version));
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, created};
}

}  // namespace sion::agents
