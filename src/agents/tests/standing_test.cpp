// Objects of agents in the state, and an agent's standing under the
// overlays on its lineage (docs/agents.md, "Objects", "Effective caveats").
#include "sion/agents/standing.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sion/ledger/state_view.hpp"
#include "test_values.hpp"

namespace sion::agents {
namespace {

using ledger::TxStatus;

using testing::id_n;

Caveats open_caveats() {
  Caveats c = testing::open_caveats();
  c.expiry_height = 100;
  c.per_payment = 50;
  c.period_cap = 500;
  return c;
}

// A chain of agents root → a (depth 1) → b (2) → c (3) in a memory state.
struct Chain {
  ledger::MemoryState state;
  std::vector<Lineage> lineages;
  std::vector<Id> ids;

  Chain() {
    Lineage lineage = child_of_account(id_n(1), 0);
    std::vector<state::ObjectWrite> writes;
    for (std::uint32_t depth = 1; depth <= 3; ++depth) {
      if (depth > 1) lineage = *child_lineage(lineage, depth);
      lineages.push_back(lineage);
      const Id id = lineage_id(lineage);
      ids.push_back(id);
      writes.push_back({id, to_object(Charter{lineage, Keyless{id_n(9)}, open_caveats(), std::nullopt}, 1)});
      writes.push_back({allotment_id(id), to_object(Allotment{1000, 0, 0, 0}, 1)});
    }
    std::sort(writes.begin(), writes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    EXPECT_TRUE(state.apply(writes).ok());
  }

  void restrict(std::size_t depth, const Restriction& restriction) {
    const state::ObjectWrite write{overlay_id(id_n(1), ids[depth - 1]), to_object(restriction, 1)};
    EXPECT_TRUE(state.apply({&write, 1}).ok());
  }

  Standing standing_of_leaf(std::uint64_t height) {
    ledger::Overlay overlay(state);
    const auto agent = read_agent(overlay, ids.back());
    EXPECT_TRUE(agent.ok() && agent->has_value());
    return read_standing(overlay, **agent, height).value();
  }
};

TEST(AgentObjects, RoundTripAndWrongTypesAreCorrupt) {
  const Charter charter{child_of_account(id_n(1), 3), Keyed{id_n(2)}, open_caveats(), CohortRoot{id_n(4), 77, 5}};
  EXPECT_EQ(charter_from(to_object(charter, 1)).value(), charter);
  const Allotment allotment{10, 2, 3, 4};
  EXPECT_EQ(allotment_from(to_object(allotment, 2)).value(), allotment);
  const Restriction restriction{true, 9, std::nullopt};
  EXPECT_EQ(restriction_from(to_object(restriction, 1)).value(), restriction);
  const AuthBatch batch{id_n(5), id_n(6), 256, 40};
  EXPECT_EQ(batch_from(to_object(batch, 1)).value(), batch);

  EXPECT_EQ(charter_from(to_object(allotment, 1)).error().code, base::Errc::corrupt_store);
  state::Object garbage = to_object(allotment, 1);
  garbage.data.pop_back();
  EXPECT_EQ(allotment_from(garbage).error().code, base::Errc::corrupt_store);
  EXPECT_EQ(static_cast<int>(to_object(charter, 1).type), 3);
  EXPECT_EQ(static_cast<int>(to_object(allotment, 1).type), 4);
  EXPECT_EQ(static_cast<int>(to_object(restriction, 1).type), 5);
  EXPECT_EQ(static_cast<int>(to_object(batch, 1).type), 6);
}

TEST(AgentObjects, WhatWasMovedCountsInItsPeriodOnly) {
  const Allotment allotment{0, 0, 3, 40};
  EXPECT_EQ(allotment.moved_at(30, 10), 40u);
  EXPECT_EQ(allotment.moved_at(39, 10), 40u);
  EXPECT_EQ(allotment.moved_at(40, 10), 0u);
  EXPECT_EQ(allotment.moved_at(29, 10), 0u);
}

TEST(AgentStanding, ReadsTheAgentAndNothingElseWhereNoCharterIs) {
  Chain chain;
  ledger::Overlay overlay(chain.state);
  const auto agent = read_agent(overlay, chain.ids[1]).value();
  ASSERT_TRUE(agent.has_value());
  EXPECT_EQ(agent->charter.lineage, chain.lineages[1]);
  EXPECT_EQ(agent->allotment.balance, 1000u);
  EXPECT_EQ(agent->allotment_version, 1u);
  EXPECT_FALSE(read_agent(overlay, id_n(77)).value().has_value());
  EXPECT_FALSE(read_agent(overlay, allotment_id(chain.ids[1])).value().has_value());  // not a charter
}

TEST(AgentStanding, ACharterWithoutItsAllotmentIsACorruptStore) {
  ledger::MemoryState state;
  const Lineage lineage = child_of_account(id_n(1), 0);
  const state::ObjectWrite write{lineage_id(lineage),
                                 to_object(Charter{lineage, Keyed{id_n(2)}, open_caveats(), std::nullopt}, 1)};
  ASSERT_TRUE(state.apply({&write, 1}).ok());
  ledger::Overlay overlay(state);
  EXPECT_EQ(read_agent(overlay, lineage_id(lineage)).error().code, base::Errc::corrupt_store);
}

TEST(AgentStanding, AnUnrestrictedAgentStandsUntilItsExpiry) {
  Chain chain;
  EXPECT_EQ(chain.standing_of_leaf(100).status, TxStatus::success);
  EXPECT_EQ(chain.standing_of_leaf(101).status, TxStatus::agent_expired);
}

TEST(AgentStanding, RevokingAnAncestorStopsTheDescendant) {
  Chain chain;
  chain.restrict(1, Restriction{true, 0, std::nullopt});
  EXPECT_EQ(chain.standing_of_leaf(5).status, TxStatus::agent_revoked);
}

TEST(AgentStanding, RevocationOutranksSuspensionWhereverEachIs) {
  Chain chain;
  chain.restrict(1, Restriction{false, 50, std::nullopt});
  chain.restrict(3, Restriction{true, 0, std::nullopt});
  EXPECT_EQ(chain.standing_of_leaf(5).status, TxStatus::agent_revoked);
}

TEST(AgentStanding, ASuspensionEndsAfterItsHeight) {
  Chain chain;
  chain.restrict(2, Restriction{false, 20, std::nullopt});
  EXPECT_EQ(chain.standing_of_leaf(20).status, TxStatus::agent_suspended);
  EXPECT_EQ(chain.standing_of_leaf(21).status, TxStatus::success);
}

TEST(AgentStanding, NarrowingsOnTheLineageGatherIntoTheEffectiveCaveats) {
  Chain chain;
  Narrowing near;
  near.expiry_height = 60;
  near.per_payment = 50;
  near.period_cap = 500;
  near.actions = kAllActions;
  near.payee_classes = static_cast<std::uint8_t>(PayeeClass::any);
  Narrowing far = near;
  far.expiry_height = 100;
  far.per_payment = 7;
  chain.restrict(3, Restriction{false, 0, near});
  chain.restrict(1, Restriction{false, 0, far});
  const Standing standing = chain.standing_of_leaf(60);
  EXPECT_EQ(standing.status, TxStatus::success);
  EXPECT_EQ(standing.caveats.narrowings.size(), 2u);
  EXPECT_EQ(standing.caveats.per_payment(), 7u);
  EXPECT_EQ(chain.standing_of_leaf(61).status, TxStatus::agent_expired);
}

}  // namespace
}  // namespace sion::agents
