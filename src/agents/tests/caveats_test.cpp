// Caveats, narrowings, "within" and "meet" (docs/agents.md, "Caveats").
#include "sion/agents/caveats.hpp"
#include "test_values.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

namespace sion::agents {
namespace {

using testing::id_n;

const Id kRoot = id_n(0xa0);

Caveats broad() { return testing::open_caveats(); }

Caveats listing(std::initializer_list<std::uint8_t> payees, std::uint8_t classes = 0) {
  Caveats c = broad();
  c.payee_classes = classes;
  for (const std::uint8_t p : payees) c.payees.push_back(id_n(p));
  return c;
}

Narrowing narrowing_of(const Caveats& c) {
  Narrowing n;
  n.expiry_height = c.expiry_height;
  n.per_payment = c.per_payment;
  n.period_cap = c.period_cap;
  n.actions = c.actions;
  n.payee_classes = c.payee_classes;
  n.payees = c.payees;
  return n;
}

TEST(Caveats, WellFormedRefusesUnknownBitsUnsortedPayeesAndAZeroPeriod) {
  EXPECT_TRUE(well_formed(broad()));
  Caveats c = broad();
  c.period_length = 0;
  EXPECT_FALSE(well_formed(c));
  c = broad();
  c.actions = 0x40;
  EXPECT_FALSE(well_formed(c));
  c = broad();
  c.payee_classes = 0x04;
  EXPECT_FALSE(well_formed(c));
  EXPECT_TRUE(well_formed(listing({1, 2, 3})));
  EXPECT_FALSE(well_formed(listing({2, 1})));
  EXPECT_FALSE(well_formed(listing({2, 2})));
  EXPECT_FALSE(well_formed(narrowing_of(listing({3, 1}))));
  EXPECT_TRUE(well_formed(narrowing_of(listing({1, 3}))));
}

TEST(Caveats, PayeesAreAllowedByClassOrList) {
  EXPECT_TRUE(allows_payee(broad(), id_n(9), kRoot));
  const Caveats listed = listing({1, 2});
  EXPECT_TRUE(allows_payee(listed, id_n(1), kRoot));
  EXPECT_FALSE(allows_payee(listed, id_n(3), kRoot));
  EXPECT_FALSE(allows_payee(listed, kRoot, kRoot));
  const Caveats root_too = listing({1}, static_cast<std::uint8_t>(PayeeClass::root));
  EXPECT_TRUE(allows_payee(root_too, kRoot, kRoot));
  EXPECT_FALSE(allows_payee(root_too, kRoot, id_n(0xb0)));  // another lineage's root
}

// Each bound is checked to the unit: one more than the parent's is not within.
TEST(Caveats, WithinHoldsFieldByFieldToTheUnit) {
  const Caveats parent = broad();
  EXPECT_TRUE(within(parent, parent, kRoot));
  Caveats child = parent;
  child.expiry_height += 1;
  EXPECT_FALSE(within(child, parent, kRoot));
  child = parent;
  child.per_payment += 1;
  EXPECT_FALSE(within(child, parent, kRoot));
  child = parent;
  child.period_cap += 1;
  EXPECT_FALSE(within(child, parent, kRoot));
  child = parent;
  child.period_length -= 1;  // a shorter period spends faster
  EXPECT_FALSE(within(child, parent, kRoot));
  child = parent;
  child.period_length += 1;
  EXPECT_TRUE(within(child, parent, kRoot));

  Caveats limited = parent;
  limited.actions = static_cast<std::uint8_t>(Action::pay);
  child = limited;
  child.actions |= static_cast<std::uint8_t>(Action::spawn);
  EXPECT_FALSE(within(child, limited, kRoot));
}

TEST(Caveats, WithinComparesWhoMayBePaid) {
  const Caveats any = broad();
  const Caveats list12 = listing({1, 2});
  const Caveats root_class = listing({}, static_cast<std::uint8_t>(PayeeClass::root));
  EXPECT_TRUE(within(list12, any, kRoot));
  EXPECT_FALSE(within(any, list12, kRoot));
  EXPECT_TRUE(within(listing({2}), list12, kRoot));
  EXPECT_FALSE(within(listing({3}), list12, kRoot));
  EXPECT_FALSE(within(root_class, list12, kRoot));
  // A parent that lists the root allows the root class.
  Caveats lists_root = broad();
  lists_root.payee_classes = 0;
  lists_root.payees.push_back(kRoot);
  EXPECT_TRUE(within(root_class, lists_root, kRoot));
  // A child listing the root is within a parent with the root class.
  EXPECT_TRUE(within(lists_root, root_class, kRoot));
}

// The meet allows exactly the payees both allow, over a small universe
// that holds the root, listed ids and unlisted ones.
TEST(Caveats, TheMeetAllowsExactlyWhatBothAllow) {
  const std::array<Caveats, 6> shapes = {broad(),
                                         listing({1, 2, 3}),
                                         listing({2, 4}),
                                         listing({}, static_cast<std::uint8_t>(PayeeClass::root)),
                                         listing({3}, static_cast<std::uint8_t>(PayeeClass::root)),
                                         listing({5, 0xa0})};  // lists the root
  for (const Caveats& ca : shapes) {
    for (const Caveats& cb : shapes) {
      Narrowing a = narrowing_of(ca);
      Narrowing b = narrowing_of(cb);
      a.per_payment = 10;
      b.per_payment = 20;
      a.actions = 0x03;
      b.actions = 0x06;
      const Narrowing m = meet(a, b, kRoot);
      EXPECT_TRUE(well_formed(m));
      EXPECT_EQ(m.per_payment, 10u);
      EXPECT_EQ(m.actions, 0x02);
      for (std::uint8_t p : {std::uint8_t{1}, std::uint8_t{2}, std::uint8_t{3}, std::uint8_t{4}, std::uint8_t{5},
                             std::uint8_t{6}, std::uint8_t{0xa0}}) {
        const bool both = allows_payee(a, id_n(p), kRoot) && allows_payee(b, id_n(p), kRoot);
        EXPECT_EQ(allows_payee(m, id_n(p), kRoot), both) << int(p);
      }
      EXPECT_EQ(meet(a, b, kRoot), meet(b, a, kRoot));
    }
  }
}

TEST(Caveats, TheMeetKeepsTheSixteenSmallestPayees) {
  Narrowing a = narrowing_of(broad());
  a.payee_classes = 0;
  Narrowing b = a;
  for (std::uint8_t p = 1; p <= 16; ++p) a.payees.push_back(id_n(p));
  for (std::uint8_t p = 1; p <= 32; p += 2) b.payees.push_back(id_n(p));
  b.payee_classes = static_cast<std::uint8_t>(PayeeClass::any);
  const Narrowing m = meet(a, b, kRoot);
  EXPECT_EQ(m.payees.size(), 16u);
  EXPECT_EQ(m.payees.front(), id_n(1));
  EXPECT_EQ(m.payees.back(), id_n(16));
  b.payee_classes = 0;  // now only the odd ids 1..15 are allowed by both
  const Narrowing odd = meet(a, b, kRoot);
  EXPECT_EQ(odd.payees.size(), 8u);
}

TEST(Caveats, EffectiveCaveatsAreTheStrictestOfAll) {
  EffectiveCaveats e;
  e.charter = broad();
  e.root = kRoot;
  EXPECT_EQ(e.per_payment(), 500u);
  Narrowing n1 = narrowing_of(broad());
  n1.per_payment = 100;
  n1.actions = static_cast<std::uint8_t>(Action::pay) | static_cast<std::uint8_t>(Action::spawn);
  Narrowing n2 = narrowing_of(listing({7}));
  n2.expiry_height = 50;
  n2.period_cap = 900;
  e.narrowings = {n1, n2};
  EXPECT_EQ(e.per_payment(), 100u);
  EXPECT_EQ(e.expiry_height(), 50u);
  EXPECT_EQ(e.period_cap(), 900u);
  EXPECT_TRUE(e.allows_action(Action::pay));
  EXPECT_FALSE(e.allows_action(Action::fund));
  EXPECT_TRUE(e.allows_payee(id_n(7)));
  EXPECT_FALSE(e.allows_payee(id_n(8)));

  Caveats child = listing({7});
  child.actions = static_cast<std::uint8_t>(Action::pay);
  child.per_payment = 100;
  child.expiry_height = 50;
  child.period_cap = 900;
  EXPECT_TRUE(e.admits(child));
  child.per_payment = 101;
  EXPECT_FALSE(e.admits(child));
  child.per_payment = 100;
  child.actions |= static_cast<std::uint8_t>(Action::fund);
  EXPECT_FALSE(e.admits(child));
}

}  // namespace
}  // namespace sion::agents
