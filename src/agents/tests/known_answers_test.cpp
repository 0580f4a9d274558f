// docs/agents.md, "Known answers": encodings and ids of one lineage, its
// charter, allotment and overlay, the meet of two narrowings, a cohort
// member's leaf and a batch member's place. The values are read from the
// page, so an edit that breaks one fails here.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sion/agents/batch.hpp"
#include "sion/agents/cohort.hpp"
#include "sion/agents/kinds.hpp"
#include "sion/agents/objects.hpp"
#include "sion/base/testing/doc_values.hpp"
#include "sion/commit/batch_root.hpp"
#include "test_values.hpp"

namespace sion::agents {
namespace {

using testing::id_n;

const base::testing::DocValues& doc() {
  static const base::testing::DocValues values(std::string(SION_SOURCE_DIR) + "/docs/agents.md");
  return values;
}

base::Bytes documented(const std::string& label) {
  auto bytes = doc().bytes(label);
  if (!bytes) ADD_FAILURE() << "docs/agents.md has no hex value '" << label << "'";
  return bytes.value_or(base::Bytes{});
}

base::Bytes bytes_of(const Id& id) { return base::Bytes(id.begin(), id.end()); }

// The values of the page's example, as its text describes them.
Lineage example_lineage() { return *child_lineage(child_of_account(id_n(0x42), 0), 7); }

Caveats example_caveats() {
  Caveats c;
  c.expiry_height = 100'000;
  c.per_payment = 5'000;
  c.period_cap = 50'000;
  c.period_length = 600;
  c.actions = static_cast<std::uint8_t>(Action::pay) | static_cast<std::uint8_t>(Action::spawn);
  c.payee_classes = static_cast<std::uint8_t>(PayeeClass::root);
  c.payees = {id_n(0x50), id_n(0x51)};
  return c;
}

Narrowing narrowing(std::uint64_t expiry, Amount per_payment, std::uint8_t classes, std::vector<Id> payees) {
  Narrowing n;
  n.expiry_height = expiry;
  n.per_payment = per_payment;
  n.period_cap = 40'000;
  n.actions = kAllActions;
  n.payee_classes = classes;
  n.payees = std::move(payees);
  return n;
}

TEST(AgentsKnownAnswers, LineageAndItsIds) {
  const Lineage lineage = example_lineage();
  EXPECT_EQ(codec::encode(lineage), documented("lineage"));
  const Id agent = lineage_id(lineage);
  EXPECT_EQ(bytes_of(agent), documented("lineage id"));
  EXPECT_EQ(bytes_of(allotment_id(agent)), documented("allotment id"));
  EXPECT_EQ(bytes_of(overlay_id(lineage.root, agent)), documented("overlay id"));
  EXPECT_EQ(bytes_of(agent_ids_on_path(lineage).front()), documented("parent id"));
}

TEST(AgentsKnownAnswers, CharterAllotmentAndOverlay) {
  EXPECT_EQ(codec::encode(example_caveats()), documented("caveats"));
  const Charter charter{example_lineage(), Keyless{id_n(0x43)}, example_caveats(), std::nullopt};
  EXPECT_EQ(codec::encode(charter), documented("charter"));
  EXPECT_EQ(codec::encode(to_object(charter, 1)), documented("charter object"));
  EXPECT_EQ(codec::encode(Allotment{1'000'000, 3, 12, 4'500}), documented("allotment"));
  const Restriction restriction{false, 250, narrowing(90'000, 1'000, 0, {id_n(0x50)})};
  EXPECT_EQ(codec::encode(restriction), documented("restriction"));
}

TEST(AgentsKnownAnswers, TheMeetOfTwoNarrowings) {
  const Id root = id_n(0x42);
  const Narrowing a = narrowing(90'000, 1'000, static_cast<std::uint8_t>(PayeeClass::root), {id_n(0x50), id_n(0x51)});
  const Narrowing b = narrowing(80'000, 2'000, 0, {root, id_n(0x51), id_n(0x52)});
  EXPECT_EQ(codec::encode(a), documented("narrowing a"));
  EXPECT_EQ(codec::encode(b), documented("narrowing b"));
  EXPECT_EQ(codec::encode(meet(a, b, root)), documented("meet"));
}

TEST(AgentsKnownAnswers, ACohortMembersLeaf) {
  const MemberTerms terms{5, example_caveats()};
  EXPECT_EQ(codec::encode(terms), documented("member terms"));
  const commit::SumLeaf leaf = member_leaf(terms, 7'000);
  EXPECT_EQ(bytes_of(leaf.hash), documented("member hash"));
  EXPECT_EQ(bytes_of(commit::sum_leaf_node(leaf).hash), documented("member leaf"));
}

TEST(AgentsKnownAnswers, ABatchMembersPlace) {
  // Three items, as member payloads would be: the bytes 00, 01, 02.
  const std::vector<base::Bytes> items = {{0x00}, {0x01}, {0x02}};
  std::vector<base::ByteView> views(items.begin(), items.end());
  const commit::BatchTree tree(views);
  EXPECT_EQ(bytes_of(tree.root()), documented("batch root"));
  const Id batch = batch_id(id_n(0x44));
  EXPECT_EQ(bytes_of(batch), documented("batch id"));
  BatchPlace place;
  place.batch = batch;
  place.index = 2;
  const auto proof = tree.prove(2).value();
  place.path.assign(proof.path.begin(), proof.path.end());
  EXPECT_EQ(codec::encode(place), documented("place"));
  EXPECT_EQ(codec::encode(member_auth(place)), documented("member auth"));
  EXPECT_TRUE(proves_member(place, items[2], AuthBatch{id_n(0x43), tree.root(), 3, 10}));
  EXPECT_FALSE(proves_member(place, items[1], AuthBatch{id_n(0x43), tree.root(), 3, 10}));
}

TEST(AgentsKnownAnswers, AnAgentsPaymentBody) {
  EXPECT_EQ(codec::encode(AgentPay{id_n(0x50), 2'500}), documented("agent pay"));
}

}  // namespace
}  // namespace sion::agents
