// The mempool's local admission policy and its refusal codes
// (docs/ledger.md, "Mempool policy").
#include "sion/policy/mempool.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sion/exec/tx_builder.hpp"

namespace sion::policy {
namespace {

using ledger::Amount;
using ledger::Id;
using ledger::Output;

constexpr Amount kMax = std::numeric_limits<Amount>::max();

ledger::ChainParams chain(std::uint64_t chain_id) {
  ledger::ChainParams params;
  params.chain_id = chain_id;
  params.fees = {1, 1};
  return params;
}

class Mempool : public ::testing::Test {
 protected:
  const crypto::SigningBundle alice = [] {
    crypto::KeySeed seed{};
    seed.fill(1);
    return crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value();
  }();
  const ledger::ChainParams params = chain(7);
  const MempoolPolicy policy{/*min_fee_per_byte*/ 2, /*dust*/ 546, /*max bytes*/ 100'000};

  exec::Transaction tx(std::vector<Output> outputs, std::optional<Amount> fee = std::nullopt,
                       const ledger::ChainParams& with = chain(7)) const {
    return exec::make_transfer(alice, with, 0, std::vector<Id>{Id{}}, outputs, fee, crypto::Hedging::deterministic)
        .value();
  }
  // The reason of a refusal, which must carry `code`.
  static std::string reason(const PolicyVerdict& verdict, PolicyCode code) {
    EXPECT_FALSE(verdict.ok());
    EXPECT_EQ(verdict.code, code) << policy_code_name(verdict.code);
    const base::Status status = verdict.to_status();
    EXPECT_FALSE(status.ok());
    if (status.ok()) return {};
    EXPECT_EQ(status.error().code, base::Errc::invalid_argument);
    EXPECT_EQ(status.error().reason, verdict.reason);
    return verdict.reason;
  }
};

TEST_F(Mempool, AcceptsAWellPaidTransfer) {
  const PolicyVerdict verdict = check_mempool_policy(tx({{Id{}, 546}}, 1'000'000), params, policy);
  EXPECT_TRUE(verdict.ok());
  EXPECT_EQ(verdict.code, PolicyCode::admitted);
  EXPECT_TRUE(verdict.to_status().ok());
}

TEST_F(Mempool, RefusesAnotherChain) {
  EXPECT_EQ(
      reason(check_mempool_policy(tx({{Id{}, 1000}}, 1'000'000, chain(8)), params, policy), PolicyCode::wrong_chain),
      "chain id 8, but this chain is 7");
}

TEST_F(Mempool, RefusesDust) {
  EXPECT_EQ(reason(check_mempool_policy(tx({{Id{}, 1000}, {Id{}, 546}, {Id{}, 5}}, 1'000'000), params, policy),
                   PolicyCode::dust_output),
            "output 2 pays 5, below the dust threshold 546");
}

TEST_F(Mempool, RefusesAFeeBelowTheFeerateFloor) {
  const auto t = tx({{Id{}, 1000}});  // pays required_fee: about 1 per byte, under the floor of 2
  const auto size = codec::encode(t).size();
  EXPECT_EQ(reason(check_mempool_policy(t, params, policy), PolicyCode::fee_below_floor),
            "fee " + std::to_string(t.payload.fee) + " is below the floor of 2 per byte for " + std::to_string(size) +
                " bytes (" + std::to_string(2 * size) + ")");
  EXPECT_TRUE(check_mempool_policy(tx({{Id{}, 1000}}, 2 * size), params, policy).ok());
  MempoolPolicy huge = policy;
  huge.min_fee_per_byte = kMax;
  EXPECT_NE(reason(check_mempool_policy(tx({{Id{}, 1000}}, kMax), params, huge), PolicyCode::fee_below_floor)
                .find("past 2^64 - 1"),
            std::string::npos);
}

TEST_F(Mempool, RefusesOversizedTransactions) {
  const auto t = tx({{Id{}, 1000}}, 1'000'000);
  const auto size = codec::encode(t).size();
  MempoolPolicy small = policy;
  small.max_tx_bytes = size - 1;
  EXPECT_EQ(
      reason(check_mempool_policy(t, params, small), PolicyCode::above_policy_size),
      "transaction of " + std::to_string(size) + " bytes, above the policy maximum of " + std::to_string(size - 1));
  auto tight = params;
  tight.limits.max_bytes = 1000;
  EXPECT_EQ(reason(check_mempool_policy(t, tight, policy), PolicyCode::above_pulse_bytes),
            "transaction of " + std::to_string(size) + " bytes, above the Pulse limit of 1000");
  tight = params;
  tight.limits.max_auth_bytes = 10;
  EXPECT_EQ(reason(check_mempool_policy(t, tight, policy), PolicyCode::above_pulse_auth_bytes),
            "authorization of " + std::to_string(exec::auth_bytes(t)) + " bytes, above the Pulse limit of 10");
}

TEST_F(Mempool, RefusesAValueNoDecoderCouldGive) {
  auto t = tx({{Id{}, 1000}}, 1'000'000);
  t.auth.parts.resize(crypto::kMaxBundleKeys + 1);
  EXPECT_EQ(reason(check_mempool_policy(t, params, policy), PolicyCode::not_encodable),
            "a length or count exceeds its field's maximum");
}

// Wire values a client may hold on to (docs/ledger.md, "Mempool policy").
TEST(PolicyCodes, NumbersAndNamesAreStable) {
  const std::vector<std::pair<PolicyCode, std::string_view>> codes = {
      {PolicyCode::admitted, "admitted"},
      {PolicyCode::wrong_chain, "wrong_chain"},
      {PolicyCode::not_encodable, "not_encodable"},
      {PolicyCode::above_policy_size, "above_policy_size"},
      {PolicyCode::above_pulse_bytes, "above_pulse_bytes"},
      {PolicyCode::above_pulse_auth_bytes, "above_pulse_auth_bytes"},
      {PolicyCode::fee_below_floor, "fee_below_floor"},
      {PolicyCode::dust_output, "dust_output"},
      {PolicyCode::fee_below_required, "fee_below_required"},
      {PolicyCode::already_pooled, "already_pooled"},
      {PolicyCode::wrong_keys, "wrong_keys"},
      {PolicyCode::nonce_too_low, "nonce_too_low"},
      {PolicyCode::fee_unpayable, "fee_unpayable"},
      {PolicyCode::unknown_input, "unknown_input"},
      {PolicyCode::input_not_owned, "input_not_owned"},
      {PolicyCode::nonce_too_far_ahead, "nonce_too_far_ahead"},
      {PolicyCode::too_many_held, "too_many_held"},
      {PolicyCode::sender_full, "sender_full"},
      {PolicyCode::replacement_underpriced, "replacement_underpriced"},
      {PolicyCode::pool_full, "pool_full"},
      {PolicyCode::bad_signature, "bad_signature"},
      {PolicyCode::not_an_agent, "not_an_agent"},
      {PolicyCode::bad_batch_place, "bad_batch_place"},
  };
  ASSERT_EQ(codes.size(), kAllPolicyCodes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(codes[i].first), i);
    EXPECT_EQ(policy_code_name(codes[i].first), codes[i].second);
    EXPECT_EQ(kAllPolicyCodes[i], codes[i].first);
  }
  EXPECT_EQ(codec::encode(PolicyCode::fee_below_floor), base::Bytes{6});
  EXPECT_EQ(codec::encode(PolicyCode::bad_signature), base::Bytes{20});
  EXPECT_FALSE(codec::decode<PolicyCode>(base::Bytes{23}).ok());
}

}  // namespace
}  // namespace sion::policy
