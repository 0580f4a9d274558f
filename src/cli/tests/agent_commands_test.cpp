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

TEST(AgentCommands, PayValuesNameAnAgentAPayeeAndAnAmount) {
  const std::string agent(64, 'a');
  const std::string payee(64, 'b');
  const auto intent = parse_pay(agent + ":" + payee + ":25");
  ASSERT_TRUE(intent) << intent.error().reason;
  EXPECT_EQ(intent->agent[0], 0xaa);
  const auto* pay = std::get_if<agents::AgentPay>(&intent->body);
  ASSERT_NE(pay, nullptr);
  EXPECT_EQ(pay->payee[0], 0xbb);
  EXPECT_EQ(pay->amount, 25u);
  for (const std::string& bad : {agent + ":" + payee, agent + ":" + payee + ":0", agent + ":" + payee + ":-1",
                                 agent + ":" + payee + ":1x", agent + ":" + payee + ":", "x:" + payee + ":1",
                                 agent + ":y:1", std::string(), agent + ":" + payee + ":99999999999999999999"}) {
    const auto refused = parse_pay(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().code, base::Errc::invalid_argument);
    EXPECT_EQ(refused.error().reason.rfind("--pay: ", 0), 0u) << refused.error().reason;
  }
}

}  // namespace
}  // namespace sion::cli
