// The kinds of agents executed through exec's one dispatch (docs/agents.md):
// charters and caveats, lineages and overlays, batch members, cohorts, and
// their stateless replay. Each bad input asserts its exact receipt and that
// nothing but the fee's write changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ledger_fixture.hpp"
#include "sion/agents/batch.hpp"
#include "sion/agents/cohort.hpp"
#include "sion/agents/standing.hpp"
#include "sion/exec/trace.hpp"

namespace sion::exec::testing {
namespace {

using agents::Action;
using agents::AgentState;
using agents::Caveats;
using agents::Keyed;
using agents::Keyless;

Caveats caveats(Amount per_payment, Amount period_cap, std::uint8_t actions = agents::kAllActions) {
  Caveats c;
  c.expiry_height = 1000;
  c.per_payment = per_payment;
  c.period_cap = period_cap;
  c.period_length = 10;
  c.actions = actions;
  c.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  return c;
}

Id payee_n(std::uint8_t n) {
  Id id{};
  id.fill(n);
  return id;
}

// A world with one funded owner account, a controller account and keys for
// keyed agents; every transaction goes into its own Pulse unless batched.
struct AgentWorld : World {
  crypto::SigningBundle owner = signer(1);
  crypto::SigningBundle controller = signer(3);
  Id owner_id = id_of(owner);
  Id controller_id = id_of(controller);
  std::map<Id, std::uint64_t> nonces;  // accounts' and signed agents' next nonce
  std::map<Id, Id> coin_of;            // an account's one coin

  AgentWorld() {
    coin_of[owner_id] = fund(owner_id, 1'000'000'000);
    coin_of[controller_id] = fund(controller_id, 1'000'000'000);
  }

  // A signed transaction of `sender`, its nonce taken in turn. An account's
  // kinds list its one coin, whose change becomes its next coin.
  Transaction signed_by(const crypto::SigningBundle& keys, const Id& sender, TxBody body) {
    return make_signed(keys, params, sender, nonces[sender]++, std::move(body), std::nullopt,
                       crypto::Hedging::deterministic)
        .value();
  }
  agents::Coins account_coins(const Id& account) const { return agents::Coins{coin_of.at(account)}; }

  Receipt run_one(const Transaction& tx) {
    const Receipt receipt = run({tx}).receipts.at(0);
    if (coin_of.count(tx.payload.sender) != 0 && receipt.coins_created > 0 &&
        !std::holds_alternative<AgentPay>(tx.payload.body)) {
      coin_of[tx.payload.sender] = coin_id(receipt.tx_id, 0);
    }
    return receipt;
  }
  void advance_to(std::uint64_t target) {
    while (height + 1 < target) run({});
  }

  // Spawns a child of the owner (or of the keyed agent `parent`, signed by
  // `parent_keys`) and returns its id.
  Id spawn(std::uint32_t index, agents::Authority authority, const Caveats& c, Amount allotment,
           const crypto::SigningBundle* parent_keys = nullptr, std::optional<Id> parent = std::nullopt,
           TxStatus expect = TxStatus::success) {
    const Transaction tx =
        parent ? signed_by(*parent_keys, *parent, SpawnAgent{index, std::move(authority), c, allotment, {}})
               : signed_by(owner, owner_id,
                           SpawnAgent{index, std::move(authority), c, allotment, account_coins(owner_id)});
    EXPECT_EQ(run_one(tx).status, expect);
    ledger::Overlay view(state);
    const auto parent_agent = parent ? agents::read_agent(view, *parent).value() : std::nullopt;
    const std::optional<agents::Lineage> lineage = parent_agent
                                                       ? agents::child_lineage(parent_agent->charter.lineage, index)
                                                       : agents::child_of_account(owner_id, index);
    return lineage ? agents::lineage_id(*lineage) : Id{};  // none below the deepest level
  }

  std::optional<AgentState> agent(const Id& id) const {
    ledger::Overlay view(state);
    return agents::read_agent(view, id).value();
  }
  Amount balance(const Id& id) const { return agent(id).value().allotment.balance; }

  // Coins, allotments and the fees burned so far: constant.
  Amount value() const {
    Amount total = burned;
    for (const auto& [id, object] : state.objects()) {
      if (object.type == static_cast<std::uint32_t>(ObjectType::coin)) total += coin_from(object).value().amount;
      if (object.type == static_cast<std::uint32_t>(ObjectType::allotment)) {
        total += agents::allotment_from(object).value().balance;
      }
    }
    return total;
  }
  Amount burned = 0;
  PulseOutcome run(const std::vector<Transaction>& txs) {
    PulseOutcome outcome = World::run(txs);
    burned += outcome.fees;
    return outcome;
  }
};

// A keyed agent of the owner, with its own signer.
struct KeyedAgent {
  crypto::SigningBundle keys;
  Id id;
};

KeyedAgent keyed_agent(AgentWorld& w, std::uint8_t seed, std::uint32_t index, const Caveats& c, Amount allotment) {
  KeyedAgent a{signer(seed), {}};
  a.id = w.spawn(index, Keyed{a.keys.id()}, c, allotment);
  return a;
}

TEST(Agents, AnAccountSpawnsAKeyedAgentThatPaysWithinItsCaveats) {
  AgentWorld w;
  const Amount before = w.value();
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(500, 800), 100'000);
  ASSERT_TRUE(w.agent(a.id).has_value());
  EXPECT_EQ(w.balance(a.id), 100'000u);
  EXPECT_EQ(w.agent(a.id)->charter.lineage, agents::child_of_account(w.owner_id, 0));

  const Transaction pay = w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 500});
  const Receipt paid = w.run_one(pay);
  EXPECT_EQ(paid.status, TxStatus::success);
  EXPECT_EQ(paid.coins_created, 1u);
  EXPECT_EQ(w.coin(coin_id(paid.tx_id, 0)), (Coin{payee_n(0xe1), 500}));
  EXPECT_EQ(w.balance(a.id), 100'000u - 500 - pay.payload.fee);
  EXPECT_EQ(w.agent(a.id)->allotment.nonce, 1u);
  EXPECT_EQ(w.value(), before);
}

// Every caveat of a payment, broken by one unit: a failed receipt naming it,
// the fee paid from the allotment and nothing else written.
TEST(Agents, EachCaveatBrokenByOneUnitFailsAndChangesOnlyTheFee) {
  AgentWorld w;
  Caveats c = caveats(500, 800);
  c.payee_classes = 0;
  c.payees = {payee_n(0xe1)};
  c.expiry_height = 8;
  const KeyedAgent a = keyed_agent(w, 10, 0, c, 100'000);
  const auto expect_failure = [&](TxBody body, TxStatus status) {
    const Amount balance = w.balance(a.id);
    const Transaction tx = w.signed_by(a.keys, a.id, std::move(body));
    const PulseOutcome outcome = w.run({tx});
    EXPECT_EQ(outcome.receipts.at(0).status, status);
    EXPECT_EQ(outcome.receipts.at(0).fee_paid, tx.payload.fee);
    ASSERT_EQ(outcome.writes.size(), 1u);  // the allotment: nonce and fee
    EXPECT_EQ(outcome.writes[0].id, agents::allotment_id(a.id));
    EXPECT_EQ(w.balance(a.id), balance - tx.payload.fee);
  };
  expect_failure(AgentPay{payee_n(0xe1), 501}, TxStatus::above_per_payment);
  expect_failure(AgentPay{payee_n(0xe2), 1}, TxStatus::payee_not_allowed);
  expect_failure(AgentPay{payee_n(0xe1), 0}, TxStatus::zero_amount);
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 500})).status, TxStatus::success);
  expect_failure(AgentPay{payee_n(0xe1), 301}, TxStatus::above_period_cap);
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 300})).status, TxStatus::success);
  expect_failure(Transfer{}, TxStatus::action_not_allowed);  // agents spend only through their kinds
  w.advance_to(9);
  expect_failure(AgentPay{payee_n(0xe1), 1}, TxStatus::agent_expired);
}

TEST(Agents, ThePeriodCapStartsAgainEachPeriod) {
  AgentWorld w;
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(500, 500), 100'000);  // height 1, period 0
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 500})).status, TxStatus::success);
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 1})).status, TxStatus::above_period_cap);
  w.advance_to(10);  // period 1
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 500})).status, TxStatus::success);
}

TEST(Agents, AnAllotmentNeverPaysMoreThanItHolds) {
  AgentWorld w;
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(1'000'000, 1'000'000), 20'000);
  const Transaction probe = w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 1});
  w.nonces[a.id] -= 1;
  const Amount left = 20'000 - probe.payload.fee;
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), left + 1})).status,
            TxStatus::insufficient_allotment);
  const Amount now = w.balance(a.id) - probe.payload.fee;
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), now})).status, TxStatus::success);
  EXPECT_EQ(w.balance(a.id), 0u);
  // With nothing left for the fee, it is rejected: nothing written.
  const PulseOutcome broke = w.run({w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 1})});
  EXPECT_EQ(broke.receipts.at(0).status, TxStatus::fee_unpayable);
  EXPECT_TRUE(broke.writes.empty());
}

TEST(Agents, ActionsOutsideTheCharterFail) {
  AgentWorld w;
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(500, 800, static_cast<std::uint8_t>(Action::spawn)), 10'000);
  const Transaction pay = w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 5});
  EXPECT_EQ(w.run_one(pay).status, TxStatus::action_not_allowed);
}

TEST(Agents, AccountsCannotSendAnAgentsPayment) {
  AgentWorld w;
  const Transaction tx = w.signed_by(w.owner, w.owner_id, AgentPay{payee_n(0xe1), 5});
  EXPECT_EQ(w.run_one(tx).status, TxStatus::fee_unpayable);
}

TEST(Agents, AChildsCaveatsMustBeWithinItsParents) {
  AgentWorld w;
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(500, 100'000), 50'000);
  const crypto::SigningBundle child_keys = signer(11);
  w.spawn(0, Keyed{child_keys.id()}, caveats(501, 1000), 1000, &a.keys, a.id, TxStatus::caveats_not_within);
  Caveats bad = caveats(500, 1000);
  bad.period_length = 0;
  w.spawn(0, Keyed{child_keys.id()}, bad, 1000, &a.keys, a.id, TxStatus::caveats_malformed);
  const Amount before = w.balance(a.id);
  const Id child = w.spawn(0, Keyed{child_keys.id()}, caveats(500, 1000), 1000, &a.keys, a.id);
  EXPECT_EQ(w.balance(child), 1000u);
  EXPECT_EQ(w.agent(child)->charter.lineage.depth(), 2u);
  EXPECT_LT(w.balance(a.id), before - 1000);  // the allotment and the fee
  w.spawn(0, Keyed{child_keys.id()}, caveats(500, 1000), 1000, &a.keys, a.id, TxStatus::agent_exists);
  // Giving a child its allotment counts against the parent's period cap.
  w.spawn(1, Keyed{child_keys.id()}, caveats(500, 1000), 99'001, &a.keys, a.id, TxStatus::above_period_cap);
}

TEST(Agents, LineagesStopAtDepthSixteen) {
  AgentWorld w;
  const crypto::SigningBundle keys = signer(12);
  agents::Lineage lineage = agents::child_of_account(w.owner_id, 0);
  while (lineage.depth() < agents::kMaxDepth) lineage = *agents::child_lineage(lineage, 0);
  const Id deepest = agents::lineage_id(lineage);
  w.put(deepest, agents::to_object(agents::Charter{lineage, Keyed{keys.id()}, caveats(500, 5000), std::nullopt}, 1));
  w.put(agents::allotment_id(deepest), agents::to_object(agents::Allotment{10'000, 0, 0, 0}, 1));
  w.spawn(0, Keyed{keys.id()}, caveats(500, 1000), 10, &keys, deepest, TxStatus::lineage_too_deep);
}

TEST(Agents, RevokingAnAncestorStopsEveryDescendantWithoutTouchingThem) {
  AgentWorld w;
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(500, 100'000), 200'000);
  const crypto::SigningBundle b_keys = signer(11);
  const Id b = w.spawn(0, Keyed{b_keys.id()}, caveats(500, 10'000), 50'000, &a.keys, a.id);
  EXPECT_EQ(w.run_one(w.signed_by(b_keys, b, AgentPay{payee_n(0xe1), 5})).status, TxStatus::success);

  // Only ancestors restrict: another account, and a descendant, cannot.
  EXPECT_EQ(w.run_one(w.signed_by(w.controller, w.controller_id,
                                  Restrict{a.id, agents::Revoke{}, w.account_coins(w.controller_id)}))
                .status,
            TxStatus::not_an_ancestor);
  EXPECT_EQ(w.run_one(w.signed_by(b_keys, b, Restrict{a.id, agents::Revoke{}, {}})).status, TxStatus::not_an_ancestor);

  const PulseOutcome revoked =
      w.run({w.signed_by(w.owner, w.owner_id, Restrict{a.id, agents::Revoke{}, w.account_coins(w.owner_id)})});
  ASSERT_EQ(revoked.receipts.at(0).status, TxStatus::success);
  w.coin_of[w.owner_id] = coin_id(revoked.receipts[0].tx_id, 0);
  for (const auto& write : revoked.writes) EXPECT_NE(write.id, agents::allotment_id(b));  // b untouched
  EXPECT_EQ(w.run_one(w.signed_by(b_keys, b, AgentPay{payee_n(0xe1), 5})).status, TxStatus::agent_revoked);
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 5})).status, TxStatus::agent_revoked);
}

TEST(Agents, SuspensionsEndAndNarrowingsOnlyNarrow) {
  AgentWorld w;
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(500, 100'000), 50'000);
  const auto restrict = [&](agents::RestrictAction action) {
    const Receipt r = w.run_one(w.signed_by(w.owner, w.owner_id, Restrict{a.id, action, w.account_coins(w.owner_id)}));
    EXPECT_EQ(r.status, TxStatus::success);
  };
  restrict(agents::Suspend{w.height + 2});
  const std::uint64_t until = w.height + 1;
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 5})).status, TxStatus::agent_suspended);
  restrict(agents::Suspend{1});  // an earlier end does not lift it
  w.advance_to(until + 1);
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 5})).status, TxStatus::success);

  agents::Narrowing n;
  n.expiry_height = 1000;
  n.per_payment = 100;
  n.period_cap = 100'000;
  n.actions = agents::kAllActions;
  n.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  restrict(agents::Narrow{n});
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 101})).status, TxStatus::above_per_payment);
  n.per_payment = 400;  // wider than before: the meet keeps 100
  restrict(agents::Narrow{n});
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 101})).status, TxStatus::above_per_payment);
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe1), 100})).status, TxStatus::success);
  n.payees = {payee_n(2), payee_n(1)};
  const Receipt bad =
      w.run_one(w.signed_by(w.owner, w.owner_id, Restrict{a.id, agents::Narrow{n}, w.account_coins(w.owner_id)}));
  EXPECT_EQ(bad.status, TxStatus::caveats_malformed);
}

// Keyless agents act through one batch their controller opened.
struct BatchWorld : AgentWorld {
  Id k1, k2;
  BatchWorld() {
    k1 = spawn(0, Keyless{controller_id}, caveats(100, 1000), 10'000);
    k2 = spawn(1, Keyless{controller_id}, caveats(100, 1000), 10'000);
  }
  // Opens `batch` as `by` (the controller unless said), and returns its id.
  Id open(const MemberBatch& batch, std::uint64_t expiry, const crypto::SigningBundle* by = nullptr) {
    const crypto::SigningBundle& keys = by != nullptr ? *by : controller;
    const Id sender = id_of(keys);
    const Transaction tx = signed_by(keys, sender, OpenBatch{batch.root, batch.count(), expiry, account_coins(sender)});
    EXPECT_EQ(run_one(tx).status, TxStatus::success);
    return agents::batch_id(tx_id(tx.payload));
  }
};

TEST(Agents, BatchMembersPayWithOneSignatureForTheBatch) {
  BatchWorld w;
  const std::vector<MemberIntent> intents = {{w.k1, 0, AgentPay{payee_n(0xe1), 10}},
                                             {w.k2, 0, AgentPay{payee_n(0xe2), 20}},
                                             {w.k1, 1, AgentPay{payee_n(0xe3), 30}},
                                             {w.k2, 1, AgentPay{payee_n(0xe4), 101}}};
  const MemberBatch batch = make_member_batch(w.params, intents).value();
  const Id id = w.open(batch, 100);
  const auto members = batch.members(id).value();
  const Amount before = w.value();
  const PulseOutcome outcome = w.run(members);
  EXPECT_EQ(outcome.receipts[0].status, TxStatus::success);
  EXPECT_EQ(outcome.receipts[1].status, TxStatus::success);
  EXPECT_EQ(outcome.receipts[2].status, TxStatus::success);
  EXPECT_EQ(outcome.receipts[3].status, TxStatus::above_per_payment);  // outside its charter: failed, fee paid
  EXPECT_EQ(w.coin(coin_id(outcome.receipts[2].tx_id, 0)), (Coin{payee_n(0xe3), 30}));
  EXPECT_EQ(w.value(), before);
  EXPECT_EQ(outcome.usage.verify_units, 4 * ledger::kBatchMemberVerifyUnits);

  // A member replayed finds its nonce used.
  const PulseOutcome replayed = w.run({members[0]});
  EXPECT_EQ(replayed.receipts[0].status, TxStatus::wrong_nonce);
  EXPECT_TRUE(replayed.writes.empty());
}

TEST(Agents, AMemberOutsideItsBatchIsRejected) {
  BatchWorld w;
  const MemberBatch first =
      make_member_batch(w.params, std::vector<MemberIntent>{{w.k1, 0, AgentPay{payee_n(0xe1), 10}},
                                                            {w.k2, 0, AgentPay{payee_n(0xe2), 10}}})
          .value();
  const MemberBatch second =
      make_member_batch(w.params, std::vector<MemberIntent>{{w.k1, 0, AgentPay{payee_n(0xe5), 10}},
                                                            {w.k2, 0, AgentPay{payee_n(0xe6), 10}}})
          .value();
  const Id first_id = w.open(first, 100);
  const auto expect_rejected = [&](const Transaction& tx, TxStatus status) {
    const PulseOutcome outcome = w.run({tx});
    EXPECT_EQ(outcome.receipts.at(0).status, status);
    EXPECT_TRUE(outcome.writes.empty());
  };
  // A path for another batch: the second batch's member placed in the first.
  expect_rejected(second.members(first_id).value()[0], TxStatus::bad_batch_path);
  // An index past the batch, and a place that does not decode.
  Transaction past = first.members(first_id).value()[1];
  agents::BatchPlace place = *agents::member_place(past.auth);
  place.index = 2;
  past.auth = agents::member_auth(place);
  expect_rejected(past, TxStatus::bad_batch_path);
  Transaction garbled = first.members(first_id).value()[0];
  garbled.auth.parts[0].pop_back();
  expect_rejected(garbled, TxStatus::bad_batch_path);
  // A batch never opened.
  expect_rejected(first.members(payee_n(0x77)).value()[0], TxStatus::unknown_batch);
  // A batch opened by someone other than the members' controller.
  const Id owners = w.open(second, 100, &w.owner);
  expect_rejected(second.members(owners).value()[0], TxStatus::wrong_controller);
  // A batch past its expiry height.
  const Id short_lived = w.open(second, w.height + 1);
  w.advance_to(w.height + 3);
  expect_rejected(second.members(short_lived).value()[0], TxStatus::batch_expired);
  // A keyed agent's transaction cannot come as a member.
  const KeyedAgent keyed = keyed_agent(w, 10, 5, caveats(100, 1000), 1000);
  const MemberBatch of_keyed =
      make_member_batch(w.params, std::vector<MemberIntent>{{keyed.id, 0, AgentPay{payee_n(0xe1), 1}}}).value();
  expect_rejected(of_keyed.members(w.open(of_keyed, 100)).value()[0], TxStatus::wrong_keys);
}

// A cohort of keyless members committed in one transaction and revealed later.
struct CohortWorld : AgentWorld {
  agents::CohortSpec spec;
  commit::SumTree tree;
  Caveats bound = caveats(100, 1000);
  Id cohort;
  CohortWorld() {
    for (std::uint32_t i = 0; i < 8; ++i) {
      spec.caveats.push_back(caveats(50 + i, 500));
      spec.allotments.push_back(1000 * (i + 1));
    }
    tree = agents::build_cohort_tree(spec).value();
    const agents::CohortRoot members{tree.root().hash, tree.root().sum, 8};
    const Transaction tx =
        signed_by(owner, owner_id, SpawnCohort{3, controller_id, bound, members, account_coins(owner_id)});
    EXPECT_EQ(run_one(tx).status, TxStatus::success);
    cohort = agents::lineage_id(agents::child_of_account(owner_id, 3));
  }
  agents::CohortMember member(std::uint32_t i) const {
    return agents::CohortMember{i, spec.caveats[i], spec.allotments[i], tree.prove(i).value()};
  }
  TxStatus materialize(std::vector<agents::CohortMember> members) {
    return run_one(signed_by(owner, owner_id, MaterializeAgents{cohort, std::move(members), account_coins(owner_id)}))
        .status;
  }
};

TEST(Agents, ACohortMaterializesEachMemberOnce) {
  CohortWorld w;
  const Amount total = w.tree.root().sum;
  EXPECT_EQ(w.balance(w.cohort), total);
  EXPECT_TRUE(w.agent(w.cohort)->charter.cohort.has_value());
  const Amount before = w.value();
  EXPECT_EQ(w.materialize({w.member(0), w.member(3), w.member(5)}), TxStatus::success);
  const Id m3 = agents::lineage_id(*agents::child_lineage(w.agent(w.cohort)->charter.lineage, 3));
  ASSERT_TRUE(w.agent(m3).has_value());
  EXPECT_EQ(w.balance(m3), 4000u);
  EXPECT_EQ(w.agent(m3)->charter.caveats, w.spec.caveats[3]);
  EXPECT_EQ(w.balance(w.cohort), total - 1000 - 4000 - 6000);
  EXPECT_EQ(w.value(), before);

  EXPECT_EQ(w.materialize({w.member(3)}), TxStatus::already_materialized);
  EXPECT_EQ(w.materialize({w.member(1), w.member(1)}), TxStatus::already_materialized);
  agents::CohortMember forged = w.member(2);
  forged.allotment += 1;
  EXPECT_EQ(w.materialize({forged}), TxStatus::bad_member_proof);
  forged = w.member(2);
  forged.index = 4;  // another member's place
  EXPECT_EQ(w.materialize({forged}), TxStatus::bad_member_proof);
  EXPECT_EQ(w.materialize({}), TxStatus::cohort_malformed);
  const Receipt not_cohort = w.run_one(
      w.signed_by(w.owner, w.owner_id, MaterializeAgents{w.owner_id, {w.member(2)}, w.account_coins(w.owner_id)}));
  EXPECT_EQ(not_cohort.status, TxStatus::not_a_cohort);

  // The cohort node never acts; a materialized member acts through its
  // controller's batches.
  const MemberBatch batch =
      make_member_batch(w.params, std::vector<MemberIntent>{{m3, 0, AgentPay{payee_n(0xe1), 53}},
                                                            {w.cohort, 0, AgentPay{payee_n(0xe1), 1}}})
          .value();
  const Transaction open = w.signed_by(w.controller, w.controller_id,
                                       OpenBatch{batch.root, batch.count(), 100, w.account_coins(w.controller_id)});
  ASSERT_EQ(w.run_one(open).status, TxStatus::success);
  const PulseOutcome paid = w.run(batch.members(agents::batch_id(tx_id(open.payload))).value());
  EXPECT_EQ(paid.receipts[0].status, TxStatus::success);
  EXPECT_EQ(paid.receipts[1].status, TxStatus::not_an_agent);
}

TEST(Agents, ACohortCannotPromiseMoreThanItsFunds) {
  CohortWorld w;
  const agents::CohortRoot too_much{w.tree.root().hash, 2'000'000'000, 8};
  const Receipt r = w.run_one(w.signed_by(
      w.owner, w.owner_id, SpawnCohort{4, w.controller_id, w.bound, too_much, w.account_coins(w.owner_id)}));
  EXPECT_EQ(r.status, TxStatus::insufficient_funds);
  // A member whose caveats exceed the cohort's bound is refused at materialization.
  agents::CohortSpec wide = w.spec;
  wide.caveats[0] = caveats(101, 500);
  const auto wide_tree = agents::build_cohort_tree(wide).value();
  const Receipt spawned = w.run_one(w.signed_by(
      w.owner, w.owner_id,
      SpawnCohort{5, w.controller_id, w.bound, agents::CohortRoot{wide_tree.root().hash, wide_tree.root().sum, 8},
                  w.account_coins(w.owner_id)}));
  ASSERT_EQ(spawned.status, TxStatus::success);
  const Id wide_id = agents::lineage_id(agents::child_of_account(w.owner_id, 5));
  const Receipt refused = w.run_one(w.signed_by(
      w.owner, w.owner_id,
      MaterializeAgents{wide_id,
                        {agents::CohortMember{0, wide.caveats[0], wide.allotments[0], wide_tree.prove(0).value()}},
                        w.account_coins(w.owner_id)}));
  EXPECT_EQ(refused.status, TxStatus::caveats_not_within);
}

TEST(Agents, FundingMovesValueIntoAnAllotment) {
  AgentWorld w;
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(500, 100'000), 60'000);
  const KeyedAgent b = keyed_agent(w, 11, 1, caveats(500, 100'000), 10'000);
  const Amount before = w.value();
  EXPECT_EQ(w.run_one(w.signed_by(w.owner, w.owner_id, FundAgent{a.id, 7'000, w.account_coins(w.owner_id)})).status,
            TxStatus::success);
  EXPECT_EQ(w.balance(a.id), 67'000u);
  // Agent to agent: a payment to an agent's id grows its allotment.
  const Amount b_before = w.balance(b.id);
  const Receipt paid = w.run_one(w.signed_by(a.keys, a.id, AgentPay{b.id, 300}));
  EXPECT_EQ(paid.status, TxStatus::success);
  EXPECT_EQ(paid.coins_created, 0u);
  EXPECT_EQ(w.balance(b.id), b_before + 300);
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, FundAgent{payee_n(0x55), 1, {}})).status, TxStatus::not_an_agent);
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, FundAgent{b.id, 1, {w.coin_of[w.owner_id]}})).status,
            TxStatus::coins_from_agent);
  // Funding itself with more than it holds: its funds decide, not an overflow.
  EXPECT_EQ(w.run_one(w.signed_by(a.keys, a.id, FundAgent{a.id, w.balance(a.id) + 1, {}})).status,
            TxStatus::insufficient_allotment);
  const Amount own = w.balance(a.id);
  const Transaction self = w.signed_by(a.keys, a.id, FundAgent{a.id, 100, {}});
  EXPECT_EQ(w.run_one(self).status, TxStatus::success);
  EXPECT_EQ(w.balance(a.id), own - self.payload.fee);
  EXPECT_EQ(w.value(), before);
}

// Every kind, traced and replayed statelessly from its witnesses alone.
TEST(Agents, EveryKindReplaysStatelessly) {
  CohortWorld w;
  const KeyedAgent a = keyed_agent(w, 10, 0, caveats(500, 100'000), 50'000);
  const Id k = w.spawn(1, Keyless{w.controller_id}, caveats(100, 1000), 10'000);
  const MemberBatch batch =
      make_member_batch(w.params, std::vector<MemberIntent>{{k, 0, AgentPay{payee_n(0xe1), 10}}}).value();
  const Transaction open = w.signed_by(w.controller, w.controller_id,
                                       OpenBatch{batch.root, batch.count(), 100, w.account_coins(w.controller_id)});
  ASSERT_EQ(w.run_one(open).status, TxStatus::success);

  // One Pulse: each transaction spends the coin the one before it left.
  std::vector<Transaction> txs;
  const auto chain_owner = [&](TxBody body) {
    txs.push_back(w.signed_by(w.owner, w.owner_id, std::move(body)));
    w.coin_of[w.owner_id] = coin_id(tx_id(txs.back().payload), 0);
  };
  chain_owner(SpawnAgent{7, Keyed{signer(20).id()}, caveats(10, 100), 500, w.account_coins(w.owner_id)});
  chain_owner(FundAgent{a.id, 1'000, w.account_coins(w.owner_id)});
  chain_owner(MaterializeAgents{w.cohort, {w.member(6)}, w.account_coins(w.owner_id)});
  chain_owner(Restrict{a.id, agents::Suspend{1}, w.account_coins(w.owner_id)});
  txs.push_back(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe2), 400}));
  txs.push_back(w.signed_by(a.keys, a.id, AgentPay{payee_n(0xe2), 600}));  // fails: per payment
  txs.push_back(batch.members(agents::batch_id(tx_id(open.payload))).value()[0]);

  TraceOptions options;
  options.max_txs_per_chunk = 2;
  const std::uint64_t height = w.height + 1;
  const TracedPulse traced = trace_pulse(w.state, txs, w.params, height, options).value();
  const PulseOutcome reference = execute_pulse(w.state, txs, w.params, height).value();
  EXPECT_EQ(traced.outcome.receipts, reference.receipts);
  for (std::size_t i = 0; i < txs.size(); ++i) {
    EXPECT_FALSE(is_rejection(reference.receipts[i].status)) << i;
  }
  EXPECT_EQ(reference.receipts[5].status, TxStatus::above_per_payment);
  ReplayPoint at = ReplayPoint::start(w.state.root(), height);
  for (const TracedChunk& chunk : traced.chunks) {
    const std::span<const Transaction> chunk_txs(txs.data() + chunk.first_tx, chunk.tx_count);
    auto replayed = replay_chunk(at, chunk, chunk_txs, w.params);
    ASSERT_TRUE(replayed.ok()) << replayed.error().to_string();
    at = *replayed;
  }
  auto post = w.state;
  EXPECT_EQ(at.root, commit_pulse(post, reference).value());
  EXPECT_EQ(at.next_tx, txs.size());
}

}  // namespace
}  // namespace sion::exec::testing
