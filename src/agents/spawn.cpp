// SpawnAgent, SpawnCohort and MaterializeAgents (docs/agents.md, "Kinds"):
// the kinds that write new charters.
#include <algorithm>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"

#include "sion/agents/cohort.hpp"
#include "sion/agents/kinds.hpp"
#include "sion/agents/payer.hpp"

namespace sion::agents {

using detail::fail;
using ledger::Receipt;
using ledger::TxStatus;

namespace {

// Where a new agent below the sender goes: the child's lineage, or the
// failure that stops it (too deep, or a charter already there). A child
// must leave `room` levels below it (a cohort node's members).
struct Placement {
  TxStatus status = TxStatus::success;
  Lineage lineage;
  Id id{};
};

base::Result<Placement> place_child(const ledger::Overlay& state, const detail::Payer& payer, const Id& sender,
                                    std::uint32_t index, std::size_t room) {
  Placement placement;
  if (payer.agent) {
    auto child = child_lineage(payer.agent->charter.lineage, index);
    if (child) placement.lineage = std::move(*child);
    if (!child || placement.lineage.depth() + room > kMaxDepth) {
      placement.status = TxStatus::lineage_too_deep;
      return placement;
    }
  } else {
    placement.lineage = child_of_account(sender, index);
    if (placement.lineage.depth() + room > kMaxDepth) {
      placement.status = TxStatus::lineage_too_deep;
      return placement;
    }
  }
  placement.id = lineage_id(placement.lineage);
  SION_TRY(const auto existing, state.find(placement.id));
  if (existing != nullptr) placement.status = TxStatus::agent_exists;
  return placement;
}

// A new child's caveats: well formed, and (under an agent) within the
// parent's effective caveats.
TxStatus check_child_caveats(const detail::Payer& payer, const Caveats& caveats) {
  if (!well_formed(caveats)) return TxStatus::caveats_malformed;
  if (payer.agent && !payer.caveats.admits(caveats)) return TxStatus::caveats_not_within;
  return TxStatus::success;
}

void write_new_agent(ledger::Overlay& state, const Id& id, Charter charter, Amount allotment) {
  state.put(id, to_object(charter, 1));
  state.put(allotment_id(id), to_object(Allotment{allotment, 0, 0, 0}, 1));
}

}  // namespace

namespace {

// What SpawnAgent and SpawnCohort share: one child below the sender, with
// `room` levels left below it, funded with `amount` by the sender.
struct ChildSpec {
  Action action;
  std::uint32_t index = 0;
  std::size_t room = 0;
  const Caveats& caveats;
  Amount amount = 0;
  const Coins& coins;
  TxStatus own = TxStatus::success;  // the kind's own refusal, after the caveats
};

template <class MakeCharter>
base::Result<Receipt> spawn_child(ledger::Overlay& state, const ledger::Authorized& tx, std::span<const Id> new_ids,
                                  const ChildSpec& spec, MakeCharter make_charter) {
  SION_TRY(auto loaded, detail::load_payer(state, tx, spec.coins, spec.action));
  if (loaded.status != TxStatus::success) return fail(state, tx, loaded.status, new_ids);
  SION_TRY(const auto placement, place_child(state, loaded.payer, tx.sender, spec.index, spec.room));
  if (placement.status != TxStatus::success) return fail(state, tx, placement.status, new_ids);
  if (const TxStatus status = check_child_caveats(loaded.payer, spec.caveats); status != TxStatus::success) {
    return fail(state, tx, status, new_ids);
  }
  if (spec.own != TxStatus::success) return fail(state, tx, spec.own, new_ids);
  SION_TRY(const auto funds, detail::check_funds(state, loaded.payer, spec.coins, spec.amount, tx));
  if (funds.status != TxStatus::success) return fail(state, tx, funds.status, new_ids);

  const std::uint32_t created = detail::take_funds(state, loaded.payer, spec.coins, spec.amount, funds, tx, new_ids[0]);
  write_new_agent(state, placement.id, make_charter(placement.lineage), spec.amount);
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, created};
}

}  // namespace

base::Result<Receipt> apply_body(ledger::Overlay& state, const SpawnAgent& body, const ledger::Authorized& tx,
                                 std::span<const Id> new_ids) {
  const ChildSpec spec{Action::spawn, body.index, 0, body.caveats, body.allotment, body.coins};
  return spawn_child(state, tx, new_ids, spec, [&](const Lineage& lineage) {
    return Charter{lineage, body.authority, body.caveats, std::nullopt};
  });
}

base::Result<Receipt> apply_body(ledger::Overlay& state, const SpawnCohort& body, const ledger::Authorized& tx,
                                 std::span<const Id> new_ids) {
  // The members sit one level below the node.
  const bool counted = body.members.count >= 1 && body.members.count <= kMaxCohortMembers;
  const ChildSpec spec{Action::cohort,
                       body.index,
                       1,
                       body.caveats,
                       body.members.total,
                       body.coins,
                       counted ? TxStatus::success : TxStatus::cohort_malformed};
  return spawn_child(state, tx, new_ids, spec, [&](const Lineage& lineage) {
    return Charter{lineage, Keyless{body.controller}, body.caveats, body.members};
  });
}

namespace {

// One revealed member against its cohort: its proof, its caveats, and that
// it does not exist yet.
base::Result<TxStatus> check_member(const ledger::Overlay& state, const AgentState& cohort, const CohortMember& member,
                                    Lineage& lineage, Id& id) {
  const CohortRoot& members = *cohort.charter.cohort;
  if (member.index >= members.count || member.proof.leaf_index != member.index) return TxStatus::bad_member_proof;
  const commit::SumLeaf leaf = member_leaf(MemberTerms{member.index, member.caveats}, member.allotment);
  if (!commit::verify_sum_proof(leaf, member.proof, commit::SumNode{members.root, members.total}, members.count)) {
    return TxStatus::bad_member_proof;
  }
  if (!well_formed(member.caveats)) return TxStatus::caveats_malformed;
  if (!within(member.caveats, cohort.charter.caveats, cohort.charter.lineage.root)) {
    return TxStatus::caveats_not_within;
  }
  auto child = child_lineage(cohort.charter.lineage, member.index);
  if (!child) return TxStatus::bad_member_proof;  // a cohort node is never at the deepest level
  lineage = std::move(*child);
  id = lineage_id(lineage);
  SION_TRY(const auto existing, state.find(id));
  return existing != nullptr ? TxStatus::already_materialized : TxStatus::success;
}

}  // namespace

base::Result<Receipt> apply_body(ledger::Overlay& state, const MaterializeAgents& body, const ledger::Authorized& tx,
                                 std::span<const Id> new_ids) {
  SION_TRY(auto loaded, detail::load_payer(state, tx, body.coins, std::nullopt));
  if (loaded.status != TxStatus::success) return fail(state, tx, loaded.status, new_ids);
  SION_TRY(auto cohort, read_agent(state, body.cohort));
  if (!cohort || !cohort->charter.cohort) return fail(state, tx, TxStatus::not_a_cohort, new_ids);
  if (body.members.empty()) return fail(state, tx, TxStatus::cohort_malformed, new_ids);

  const auto* authority = std::get_if<Keyless>(&cohort->charter.authority);
  if (authority == nullptr) {
    return base::fail(base::Errc::corrupt_store, "cohort node " + base::to_hex(body.cohort) + " is not keyless");
  }

  std::vector<Lineage> lineages(body.members.size());
  std::vector<Id> ids(body.members.size());
  std::vector<std::uint32_t> seen;  // sorted
  Amount revealed = 0;
  for (std::size_t i = 0; i < body.members.size(); ++i) {
    const CohortMember& member = body.members[i];
    SION_TRY(const TxStatus status, check_member(state, *cohort, member, lineages[i], ids[i]));
    if (status != TxStatus::success) return fail(state, tx, status, new_ids);
    const auto at = std::lower_bound(seen.begin(), seen.end(), member.index);
    if (at != seen.end() && *at == member.index) return fail(state, tx, TxStatus::already_materialized, new_ids);
    seen.insert(at, member.index);
    // Distinct leaves of a sum tree add up to at most its total: no overflow.
    revealed += member.allotment;
  }
  // What was materialized before left the balance, so distinct members
  // never take more than it holds; a store that says otherwise is corrupt.
  if (revealed > cohort->allotment.balance) {
    return base::fail(base::Errc::corrupt_store,
                      "cohort node " + base::to_hex(body.cohort) + " holds less than its unmaterialized members");
  }
  SION_TRY(const auto funds, detail::check_funds(state, loaded.payer, body.coins, 0, tx));
  if (funds.status != TxStatus::success) return fail(state, tx, funds.status, new_ids);

  const std::uint32_t created = detail::take_funds(state, loaded.payer, body.coins, 0, funds, tx, new_ids[0]);
  for (std::size_t i = 0; i < body.members.size(); ++i) {
    write_new_agent(state, ids[i], Charter{lineages[i], *authority, body.members[i].caveats, std::nullopt},
                    body.members[i].allotment);
  }
  cohort->allotment.balance -= revealed;
  write_allotment(state, *cohort);
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, created};
}

}  // namespace sion::agents
