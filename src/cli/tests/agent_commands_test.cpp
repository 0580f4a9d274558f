#include "sion/cli/agent_commands.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sion::cli {
namespace {

// Two lower-case hex digits.
std::string fmt_two(int value) {
  const char* digits = "0123456789abcdef";
  return {digits[(value >> 4) & 15], digits[value & 15]};
}

agents::Caveats parent() {
  agents::Caveats caveats;
  caveats.expiry_height = 900;
  caveats.per_payment = 50;
  caveats.period_cap = 500;
  caveats.period_length = 10;
  caveats.actions = agents::kAllActions;
  caveats.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::root);
  return caveats;
}

TEST(AgentCommands, UnsetCaveatsAreTheBase) {
  const auto caveats = caveats_from(CaveatOptions{}, parent());
  ASSERT_TRUE(caveats) << caveats.error().reason;
  EXPECT_EQ(*caveats, parent());
}

TEST(AgentCommands, CaveatOptionsSetWhatTheyName) {
  CaveatOptions options;
  options.expiry = 100;
  options.per_payment = 7;
  options.period_length = 20;
  options.actions = "pay, fund";
  options.payee_classes = "any,root";
  const std::string low(64, '1');
  const std::string high(64, 'f');
  options.payees = high + "," + low + "," + high;
  const auto caveats = caveats_from(options, parent());
  ASSERT_TRUE(caveats) << caveats.error().reason;
  EXPECT_EQ(caveats->expiry_height, 100u);
  EXPECT_EQ(caveats->per_payment, 7u);
  EXPECT_EQ(caveats->period_cap, 500u);  // unset: the parent's
  EXPECT_EQ(caveats->period_length, 20u);
  EXPECT_EQ(caveats->actions,
            static_cast<std::uint8_t>(agents::Action::pay) | static_cast<std::uint8_t>(agents::Action::fund));
  EXPECT_EQ(caveats->payee_classes, agents::kAllPayeeClasses);
  // Sorted and without repeats, as the ledger requires.
  ASSERT_EQ(caveats->payees.size(), 2u);
  EXPECT_EQ(caveats->payees[0][0], 0x11);
  EXPECT_EQ(caveats->payees[1][0], 0xff);
  EXPECT_TRUE(agents::well_formed(*caveats));

  CaveatOptions none;
  none.actions = "none";
  none.payee_classes = "none";
  EXPECT_EQ(caveats_from(none, parent())->actions, 0u);
  EXPECT_EQ(caveats_from(none, parent())->payee_classes, 0u);
}

TEST(AgentCommands, BadCaveatOptionsNameTheOption) {
  const auto refused = [](CaveatOptions options, const std::string& option) {
    const auto caveats = caveats_from(options, parent());
    ASSERT_FALSE(caveats);
    EXPECT_EQ(caveats.error().code, base::Errc::invalid_argument);
    EXPECT_EQ(caveats.error().reason.rfind(option, 0), 0u) << caveats.error().reason;
  };
  CaveatOptions actions;
  actions.actions = "pay,steal";
  refused(actions, "--actions: unknown action 'steal'");
  CaveatOptions classes;
  classes.payee_classes = "everyone";
  refused(classes, "--payee-classes: unknown class 'everyone'");
  CaveatOptions payees;
  payees.payees = "0x12";
  refused(payees, "--payees: ");
  CaveatOptions period;
  period.period_length = 0;
  refused(period, "--period-length: must be at least 1");
  std::string seventeen;
  for (int i = 0; i < 17; ++i) {
    if (i != 0) seventeen += ',';
    seventeen += std::string(62, '0');
    seventeen += fmt_two(i);
  }
  payees.payees = seventeen;
  refused(payees, "--payees: at most 16");
}

}  // namespace
}  // namespace sion::cli
