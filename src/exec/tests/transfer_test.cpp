// One transaction at a time: every TxStatus, and exactly what each changes
// (docs/ledger.md, "Applying a transaction").
#include "sion/exec/apply.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "ledger_fixture.hpp"
#include "sion/crypto/verify_units.hpp"

namespace sion::exec {
namespace {

using testing::changes;
using testing::id_of;
using testing::signer;

constexpr Amount kMax = std::numeric_limits<Amount>::max();

class TransferTest : public ::testing::Test {
 protected:
  const crypto::SigningBundle alice = signer(1);
  const crypto::SigningBundle bob = signer(2);
  testing::World world;
  Id c1{}, c2{}, bob_coin{};

  void SetUp() override {
    c1 = world.fund(id_of(alice), 1'000'000);
    c2 = world.fund(id_of(alice), 500'000);
    bob_coin = world.fund(id_of(bob), 300'000);
  }

  // Runs one transaction alone in a Pulse.
  Receipt run(const Transaction& tx, PulseOutcome* out = nullptr) {
    auto outcome = world.run({tx});
    EXPECT_EQ(outcome.receipts.size(), 1u);
    const Receipt receipt = outcome.receipts.at(0);
    EXPECT_EQ(receipt.tx_id, tx_id(tx.payload));
    EXPECT_EQ(outcome.fees, receipt.fee_paid);
    if (out != nullptr) *out = std::move(outcome);
    return receipt;
  }

  // A rejection: nothing written, nothing paid.
  void expect_rejected(const Transaction& tx, TxStatus status) {
    const auto before = world.state.root();
    PulseOutcome outcome;
    const Receipt receipt = run(tx, &outcome);
    EXPECT_EQ(receipt.status, status) << status_name(receipt.status);
    EXPECT_EQ(receipt.fee_paid, 0u);
    EXPECT_EQ(receipt.coins_created, 0u);
    EXPECT_TRUE(outcome.writes.empty());
    EXPECT_EQ(world.state.root(), before);
  }

  // A failure: the fee coin spent, its rest returned at coin_id(tx, 0), the
  // nonce advanced; nothing else.
  void expect_failed(const Transaction& tx, TxStatus status) {
    const auto fee_coin_id = std::get<Transfer>(tx.payload.body).inputs.at(0);
    const Coin fee_coin = world.coin(fee_coin_id).value();
    const auto account_before = world.account(alice);
    const Amount value_before = world.total_value();
    PulseOutcome outcome;
    const Receipt receipt = run(tx, &outcome);
    EXPECT_EQ(receipt.status, status) << status_name(receipt.status);
    const Amount fee = tx.payload.fee;
    EXPECT_EQ(receipt.fee_paid, fee);
    const Amount rest = fee_coin.amount - fee;
    EXPECT_EQ(receipt.coins_created, rest > 0 ? 1u : 0u);

    std::map<Id, std::optional<state::Object>> expected;
    expected[fee_coin_id] = std::nullopt;
    if (rest > 0) expected[coin_id(receipt.tx_id, 0)] = to_object(Coin{id_of(alice), rest}, 1);
    const std::uint64_t nonce = account_before ? account_before->nonce : 0;
    const std::uint64_t version =
        account_before ? world.state.objects().at(id_of(alice)).version : 1;  // read after the run: bumped
    expected[id_of(alice)] = to_object(Account{alice.id(), nonce + 1}, version);
    EXPECT_EQ(changes(outcome), expected);
    EXPECT_EQ(world.total_value() + fee, value_before);
  }
};

TEST_F(TransferTest, SuccessCreatesTheAccountAndConservesValue) {
  const Amount before = world.total_value();
  const auto tx = world.transfer(alice, 0, {c1, c2}, {{id_of(bob), 1000}, {id_of(bob), 2000}});
  PulseOutcome outcome;
  const Receipt receipt = run(tx, &outcome);
  EXPECT_EQ(receipt.status, TxStatus::success);
  EXPECT_EQ(receipt.fee_paid, tx.payload.fee);
  EXPECT_EQ(receipt.coins_created, 3u);
  const Id id = receipt.tx_id;
  const Amount change = 1'500'000 - 3000 - tx.payload.fee;
  const std::map<Id, std::optional<state::Object>> expected = {
      {c1, std::nullopt},
      {c2, std::nullopt},
      {coin_id(id, 0), to_object(Coin{id_of(bob), 1000}, 1)},
      {coin_id(id, 1), to_object(Coin{id_of(bob), 2000}, 1)},
      {coin_id(id, 2), to_object(Coin{id_of(alice), change}, 1)},
      {id_of(alice), to_object(Account{alice.id(), 1}, 1)},
  };
  EXPECT_EQ(changes(outcome), expected);
  EXPECT_EQ(world.total_value() + outcome.fees, before);
  // The fee is exactly what the rules ask, and the usage is this one transaction's.
  EXPECT_EQ(tx.payload.fee, required_fee(tx, world.params.fees).value());
  EXPECT_EQ(outcome.usage, tx_usage(tx));
  // The account holds the id of the keys, not the keys.
  EXPECT_EQ(world.account(alice)->keys_id, crypto::bundle_id(alice.public_bundle()));
}

TEST_F(TransferTest, ExistingAccountAdvancesNonceAndVersionWithoutChange) {
  world.open_account(alice, 4, 9);
  const auto probe = world.transfer(alice, 4, {c2}, {{id_of(bob), 1}});
  // Spend the coin exactly: outputs + fee = inputs, so no change coin.
  const auto tx = world.transfer(alice, 4, {c2}, {{id_of(bob), 500'000 - probe.payload.fee}});
  ASSERT_EQ(tx.payload.fee, probe.payload.fee);
  PulseOutcome outcome;
  const Receipt receipt = run(tx, &outcome);
  EXPECT_EQ(receipt.status, TxStatus::success);
  EXPECT_EQ(receipt.coins_created, 1u);
  EXPECT_EQ(outcome.writes.size(), 3u);
  EXPECT_EQ(world.account(alice)->nonce, 5u);
  EXPECT_EQ(world.state.objects().at(id_of(alice)).version, 10u);
  EXPECT_FALSE(world.coin(coin_id(receipt.tx_id, 1)));
}

TEST_F(TransferTest, WrongChain) {
  auto params = world.params;
  params.chain_id = 8;
  auto tx = make_transfer(alice, params, 0, std::vector{c1}, std::vector<Output>{{id_of(bob), 1}}).value();
  expect_rejected(tx, TxStatus::wrong_chain);
  EXPECT_EQ(world.run({tx}).usage, PulseUsage{});  // rejected before the budget: uses none
}

TEST_F(TransferTest, WrongKeysMalformed) {
  auto tx = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  tx.keys.parts.push_back(tx.keys.parts.at(0));  // a scheme twice
  tx.payload.sender = account_id(tx.keys);       // even hashing to the sender
  expect_rejected(tx, TxStatus::wrong_keys);
  auto short_key = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  short_key.keys.parts.at(0).key.pop_back();
  expect_rejected(short_key, TxStatus::wrong_keys);
  world.open_account(alice);
  expect_rejected(short_key, TxStatus::wrong_keys);  // with an account too
}

TEST_F(TransferTest, WrongKeysForAnExistingAccount) {
  world.open_account(alice);
  // bob's keys and a valid signature by them, on alice's account.
  auto tx = testing::sign_as(bob, world.transfer(alice, 0, {c1}, {{id_of(bob), 1}}));
  ASSERT_EQ(tx.keys, bob.public_bundle());
  expect_rejected(tx, TxStatus::wrong_keys);
  // The account's keys_id decides, not account_id(keys): an account whose
  // keys_id names bob's bundle (as after a rotation) takes bob's keys.
  world.put(id_of(alice), to_object(Account{bob.id(), 0}, 2));
  EXPECT_EQ(run(tx).status, TxStatus::success);
  EXPECT_EQ(world.account(alice)->keys_id, bob.id());
  EXPECT_EQ(world.state.objects().at(id_of(alice)).version, 3u);
}

TEST_F(TransferTest, WrongKeysNotHashingToANewSender) {
  // No account at alice's id: the keys must hash to it.
  expect_rejected(testing::sign_as(bob, world.transfer(alice, 0, {c1}, {{id_of(bob), 1}})), TxStatus::wrong_keys);
  // Keys of an existing account, but sent from an id that has none.
  world.open_account(bob);
  auto tx = testing::sign_as(bob, world.transfer(alice, 0, {c1}, {{id_of(bob), 1}}));
  expect_rejected(tx, TxStatus::wrong_keys);
}

TEST_F(TransferTest, WrongKeysComeBeforeTheBudget) {
  world.params.limits.max_transactions = 0;
  auto tx = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  tx.keys.parts.at(0).key.pop_back();  // a key of the wrong size
  expect_rejected(tx, TxStatus::wrong_keys);
  EXPECT_EQ(world.run({tx}).usage, PulseUsage{});  // rejected before the budget: uses none
  // Keys with no parts make a batch member, which only an agent can send
  // (docs/agents.md); an account's id is none.
  auto member = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  member.keys.parts.clear();
  expect_rejected(member, TxStatus::not_an_agent);
  EXPECT_EQ(world.run({member}).usage, PulseUsage{});
  expect_rejected(world.transfer(alice, 0, {c1}, {{id_of(bob), 1}}), TxStatus::budget_exceeded);
}

TEST_F(TransferTest, BadSignatureCountsAgainstTheBudget) {
  auto tx = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  tx.auth.parts.at(1).at(10) ^= 1;
  expect_rejected(tx, TxStatus::bad_signature);
  EXPECT_EQ(world.run({tx}).usage, tx_usage(tx));
}

TEST_F(TransferTest, SignatureOverAnotherPayload) {
  auto tx = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  tx.payload.nonce = 1;  // the signature covers nonce 0
  expect_rejected(tx, TxStatus::bad_signature);
}

TEST_F(TransferTest, WrongNonce) {
  expect_rejected(world.transfer(alice, 1, {c1}, {{id_of(bob), 1}}), TxStatus::wrong_nonce);
  world.open_account(alice, 3);
  expect_rejected(world.transfer(alice, 2, {c1}, {{id_of(bob), 1}}), TxStatus::wrong_nonce);
}

TEST_F(TransferTest, FeeTooLow) {
  const auto exact = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  expect_rejected(world.transfer(alice, 0, {c1}, {{id_of(bob), 1}}, exact.payload.fee - 1), TxStatus::fee_too_low);
}

TEST_F(TransferTest, FeeTooLowWhenTheRequiredFeeOverflows) {
  world.params.fees.per_byte = Amount{1} << 62;
  expect_rejected(world.transfer(alice, 0, {c1}, {{id_of(bob), 1}}, kMax), TxStatus::fee_too_low);
}

TEST_F(TransferTest, FeeUnpayable) {
  world.open_account(bob);
  const Id missing = coin_id(world.genesis_tx, 99);
  expect_rejected(world.transfer(alice, 0, {}, {{id_of(bob), 1}}), TxStatus::fee_unpayable);
  expect_rejected(world.transfer(alice, 0, {missing, c1}, {{id_of(bob), 1}}), TxStatus::fee_unpayable);
  expect_rejected(world.transfer(alice, 0, {id_of(bob), c1}, {{id_of(bob), 1}}),  // an account
                  TxStatus::fee_unpayable);
  expect_rejected(world.transfer(alice, 0, {bob_coin, c1}, {{id_of(bob), 1}}), TxStatus::fee_unpayable);
  const Id small = world.fund(id_of(alice), 100);
  expect_rejected(world.transfer(alice, 0, {small, c1}, {{id_of(bob), 1}}), TxStatus::fee_unpayable);
}

TEST_F(TransferTest, DuplicateInput) {
  expect_failed(world.transfer(alice, 0, {c1, c2, c2}, {{id_of(bob), 1}}), TxStatus::duplicate_input);
}

TEST_F(TransferTest, DuplicateFeeCoin) {
  expect_failed(world.transfer(alice, 0, {c1, c1}, {{id_of(bob), 1}}), TxStatus::duplicate_input);
}

TEST_F(TransferTest, UnknownCoin) {
  expect_failed(world.transfer(alice, 0, {c1, coin_id(world.genesis_tx, 77)}, {{id_of(bob), 1}}),
                TxStatus::unknown_coin);
}

TEST_F(TransferTest, UnknownCoinWhenTheInputIsNoCoin) {
  world.open_account(bob);
  expect_failed(world.transfer(alice, 0, {c1, id_of(bob)}, {{id_of(bob), 1}}), TxStatus::unknown_coin);
}

TEST_F(TransferTest, NotOwner) {
  expect_failed(world.transfer(alice, 0, {c1, bob_coin}, {{id_of(bob), 1}}), TxStatus::not_owner);
}

TEST_F(TransferTest, ZeroAmount) {
  expect_failed(world.transfer(alice, 0, {c1}, {{id_of(bob), 1}, {id_of(bob), 0}}), TxStatus::zero_amount);
}

TEST_F(TransferTest, AmountOverflowInTheInputs) {
  const Id big = world.fund(id_of(alice), kMax);
  expect_failed(world.transfer(alice, 0, {c1, big}, {{id_of(bob), 1}}), TxStatus::amount_overflow);
}

TEST_F(TransferTest, AmountOverflowInTheOutputsPlusFee) {
  expect_failed(world.transfer(alice, 0, {c1}, {{id_of(bob), kMax - 100}, {id_of(bob), 100}}),
                TxStatus::amount_overflow);
}

TEST_F(TransferTest, InsufficientFunds) {
  world.open_account(alice, 0, 3);  // also: a failure bumps an existing account's version
  expect_failed(world.transfer(alice, 0, {c1, c2}, {{id_of(bob), 1'500'000}}), TxStatus::insufficient_funds);
  EXPECT_EQ(world.state.objects().at(id_of(alice)).version, 4u);
}

TEST_F(TransferTest, FailureWithAFeeCoinHoldingExactlyTheFee) {
  const auto probe = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  const Id exact = world.fund(id_of(alice), probe.payload.fee);
  expect_failed(world.transfer(alice, 0, {exact}, {{id_of(bob), 1}}), TxStatus::insufficient_funds);
}

TEST_F(TransferTest, ChecksRunInTheDocumentedOrder) {
  // Several faults at once: the first kind in the list decides.
  const Id missing = coin_id(world.genesis_tx, 55);
  expect_failed(world.transfer(alice, 0, {c1, missing, bob_coin, missing}, {{id_of(bob), 0}}),
                TxStatus::duplicate_input);
}

TEST_F(TransferTest, ApplyTransactionVerifiesInlineWithoutAVerdict) {
  const auto good = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  auto bad = good;
  bad.auth.parts.at(0).at(0) ^= 1;
  const auto status_of = [&](const Transaction& tx, std::optional<bool> verdict) {
    Overlay overlay(world.state);
    PulseUsage usage;
    return apply_transaction(overlay, tx, verdict, world.params, 1, usage).value().status;
  };
  EXPECT_EQ(status_of(good, std::nullopt), TxStatus::success);
  EXPECT_EQ(status_of(bad, std::nullopt), TxStatus::bad_signature);
  // A given verdict is used as is: the caller computed it under the same keys.
  EXPECT_EQ(status_of(good, false), TxStatus::bad_signature);
  EXPECT_EQ(status_of(bad, true), TxStatus::success);
}

TEST_F(TransferTest, PrecheckHoldsTheTransactionsIdsAndUsage) {
  const auto tx = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}, {id_of(bob), 2}});
  const TxPrecheck precheck = precheck_ids(tx);
  EXPECT_EQ(precheck.tx_id, tx_id(tx.payload));
  EXPECT_EQ(precheck.keys_id, alice.id());
  EXPECT_EQ(precheck.usage, tx_usage(tx));
  // Two outputs and change: three coin ids, each as coin_id gives it.
  ASSERT_EQ(precheck.coin_ids.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(precheck.coin_ids[i], coin_id(precheck.tx_id, i)) << i;
  EXPECT_FALSE(precheck.signature_ok);

  auto malformed = tx;
  malformed.keys.parts.clear();
  EXPECT_FALSE(precheck_ids(malformed).keys_id);
}

TEST_F(TransferTest, APrecheckOfAnotherShapeIsALocalFailureNotAReceipt) {
  // The caller promised the pre-check is this transaction's; one that cannot
  // be (too few coin ids) stops execution instead of creating coins
  // under missing ids.
  const auto tx = world.transfer(alice, 0, {c1}, {{id_of(bob), 1}});
  TxPrecheck precheck = precheck_ids(tx);
  precheck.coin_ids.pop_back();
  Overlay overlay(world.state);
  PulseUsage usage;
  const auto applied = apply_transaction(overlay, tx, precheck, world.params, 1, usage);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error().code, base::Errc::internal);
  EXPECT_TRUE(overlay.write_set().empty());
}

}  // namespace
}  // namespace sion::exec

namespace sion::exec {
namespace {

// Found by fuzz_exec_inputs: a sender id naming a coin is the sender's
// mistake (wrong_keys), not a corrupt store that fails the Pulse.
TEST(TransferSender, ACoinIdAsSenderIsWrongKeys) {
  testing::World world;
  const auto alice = testing::signer(1);
  const Id coin = world.fund(testing::id_of(alice), 1'000'000);
  auto tx = world.transfer(alice, 0, {coin}, {{Id{}, 1}});
  tx.payload.sender = coin;
  tx = testing::sign_as(alice, tx);
  const auto outcome = execute_pulse(world.state, {&tx, 1}, world.params, 1);
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->receipts.at(0).status, TxStatus::wrong_keys);
  EXPECT_TRUE(outcome->writes.empty());
}

}  // namespace
}  // namespace sion::exec
