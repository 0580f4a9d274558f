// Pulse execution (docs/ledger.md, "Pulse execution"): ordering effects,
// budgets, the parallel signature pre-check, write sets, roots and commits.
#include "sion/exec/pulse.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ledger_fixture.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/exec/apply.hpp"

namespace sion::exec {
namespace {

using testing::id_of;
using testing::signer;

std::vector<std::optional<bool>> verdicts_of(const std::vector<TxPrecheck>& prechecks) {
  std::vector<std::optional<bool>> out;
  for (const auto& precheck : prechecks) out.push_back(precheck.signature_ok);
  return out;
}

// The pre-check's signature verdicts; its ids are checked against
// precheck_ids() on the way.
std::vector<std::optional<bool>> signature_verdicts(std::span<const Transaction> txs, const ChainParams& params) {
  const auto prechecks = precheck_transactions(txs, params);
  EXPECT_EQ(prechecks.size(), txs.size());
  for (std::size_t i = 0; i < prechecks.size() && i < txs.size(); ++i) {
    auto ids = precheck_ids(txs[i]);
    ids.signature_ok = prechecks[i].signature_ok;
    EXPECT_EQ(prechecks[i], ids) << i;
  }
  return verdicts_of(prechecks);
}

std::vector<TxStatus> statuses(const PulseOutcome& outcome) {
  std::vector<TxStatus> out;
  for (const auto& receipt : outcome.receipts) out.push_back(receipt.status);
  return out;
}

TEST(Pulse, ANewAccountSendsSeveralTransactionsInOnePulse) {
  const auto alice = signer(1, crypto::Profile::dual);
  const auto bob = signer(2);
  testing::World world;
  const Id c1 = world.fund(id_of(alice), 1'000'000);
  const Id c2 = world.fund(id_of(alice), 1'000'000);
  const Id c3 = world.fund(id_of(alice), 1'000'000);
  const std::vector<Transaction> txs = {
      world.transfer(alice, 0, {c1}, {{id_of(bob), 10}}),  // creates the account
      world.transfer(alice, 1, {c2}, {{id_of(bob), 20}}),  // the account exists now
      world.transfer(alice, 2, {c3}, {{id_of(bob), 30}}),
  };
  // Every transaction carries its keys: the pre-check needs nothing else.
  const auto verdicts = signature_verdicts(txs, world.params);
  EXPECT_EQ(verdicts, (std::vector<std::optional<bool>>{true, true, true}));

  const auto outcome = world.run(txs);
  EXPECT_EQ(statuses(outcome), (std::vector{TxStatus::success, TxStatus::success, TxStatus::success}));
  EXPECT_EQ(world.account(alice), (Account{alice.id(), 3}));
  EXPECT_EQ(world.state.objects().at(id_of(alice)).version, 3u);  // created, then rewritten twice
  EXPECT_EQ(outcome.fees, txs[0].payload.fee + txs[1].payload.fee + txs[2].payload.fee);
}

TEST(Pulse, ATransactionBeforeTheAccountsFirstHasTheWrongNonce) {
  const auto alice = signer(1);
  testing::World world;
  const Id c1 = world.fund(id_of(alice), 1'000'000);
  const Id c2 = world.fund(id_of(alice), 1'000'000);
  const auto outcome =
      world.run({world.transfer(alice, 1, {c2}, {{Id{}, 1}}), world.transfer(alice, 0, {c1}, {{Id{}, 1}})});
  EXPECT_EQ(statuses(outcome), (std::vector{TxStatus::wrong_nonce, TxStatus::success}));
}

TEST(Pulse, DoubleSpendInOnePulseAndAcrossPulses) {
  const auto alice = signer(1);
  const auto bob = signer(2);
  testing::World world;
  world.open_account(alice);
  const Id c1 = world.fund(id_of(alice), 1'000'000);
  const Id c2 = world.fund(id_of(alice), 1'000'000);
  const Id c3 = world.fund(id_of(alice), 1'000'000);
  const auto first = world.run({
      world.transfer(alice, 0, {c1}, {{id_of(bob), 10}}),
      world.transfer(alice, 1, {c2, c1}, {{id_of(bob), 10}}),  // c1 is gone
      world.transfer(alice, 2, {c1}, {{id_of(bob), 10}}),      // as the fee coin
  });
  EXPECT_EQ(statuses(first), (std::vector{TxStatus::success, TxStatus::unknown_coin, TxStatus::fee_unpayable}));
  const auto second = world.run({world.transfer(alice, 2, {c3, c1}, {{id_of(bob), 10}})});
  EXPECT_EQ(statuses(second), (std::vector{TxStatus::unknown_coin}));
}

TEST(Pulse, CoinsCreatedAndSpentInOnePulseLeaveNoTrace) {
  const auto alice = signer(1);
  const auto bob = signer(2);
  testing::World world;
  const Id c1 = world.fund(id_of(alice), 1'000'000);
  const auto pay = world.transfer(alice, 0, {c1}, {{id_of(bob), 500'000}});
  const Id to_bob = coin_id(tx_id(pay.payload), 0);
  const auto spend = world.transfer(bob, 0, {to_bob}, {{id_of(alice), 1000}});
  const auto outcome = world.run({pay, spend});
  EXPECT_EQ(statuses(outcome), (std::vector{TxStatus::success, TxStatus::success}));
  for (const auto& write : outcome.writes) EXPECT_NE(write.id, to_bob);
  // alice's account, c1 (deleted), alice's change; bob's account, output and change.
  EXPECT_EQ(outcome.writes.size(), 6u);
  EXPECT_FALSE(world.coin(to_bob));
  EXPECT_EQ(world.coin(coin_id(tx_id(spend.payload), 0))->amount, 1000u);
}

// A Pulse [small, big, small2] where only `big` passes the limit that
// `set_limit` sets to what the two small ones use together.
template <class SetLimit>
void expect_later_smaller_fits(const Transaction& small, const Transaction& big, const Transaction& small2,
                               testing::World& world, const SetLimit& set_limit) {
  PulseUsage both = tx_usage(small);
  both.add(tx_usage(small2));
  set_limit(world.params.limits, both);
  const auto value_before = world.total_value();
  const auto outcome = world.run({small, big, small2});
  EXPECT_EQ(statuses(outcome), (std::vector{TxStatus::success, TxStatus::budget_exceeded, TxStatus::success}));
  EXPECT_EQ(outcome.usage, both);  // the rejected one takes nothing
  EXPECT_EQ(world.total_value() + outcome.fees, value_before);
}

class Budget : public ::testing::Test {
 protected:
  const crypto::SigningBundle a = signer(1);
  const crypto::SigningBundle b = signer(2);
  const crypto::SigningBundle c = signer(3);
  const crypto::SigningBundle heavy = signer(4, crypto::Profile::dual);
  testing::World world;
  Transaction tx(const crypto::SigningBundle& from, std::size_t outputs = 1) {
    return world.transfer(from, 0, {world.fund(id_of(from), 10'000'000)},
                          std::vector<Output>(outputs, Output{Id{}, 1}));
  }
};

TEST_F(Budget, Transactions) {
  world.params.limits.max_transactions = 2;
  const auto outcome = world.run({tx(a), tx(b), tx(c)});
  EXPECT_EQ(statuses(outcome), (std::vector{TxStatus::success, TxStatus::success, TxStatus::budget_exceeded}));
  EXPECT_FALSE(world.account(c));
}

TEST_F(Budget, BytesLaterSmallerStillFits) {
  expect_later_smaller_fits(tx(a), tx(b, 40), tx(c), world,
                            [](PulseLimits& limits, const PulseUsage& u) { limits.max_bytes = u.bytes; });
}

TEST_F(Budget, AuthBytesLaterSmallerStillFits) {
  expect_later_smaller_fits(tx(a), tx(heavy), tx(c), world,
                            [](PulseLimits& limits, const PulseUsage& u) { limits.max_auth_bytes = u.auth_bytes; });
}

TEST_F(Budget, VerifyUnitsLaterSmallerStillFits) {
  expect_later_smaller_fits(tx(a), tx(heavy), tx(c), world,
                            [](PulseLimits& limits, const PulseUsage& u) { limits.max_verify_units = u.verify_units; });
}

TEST_F(Budget, EarlyRejectionsUseNothingAndBadSignaturesCount) {
  auto wrong_chain = tx(a);
  wrong_chain.payload.chain_id = 99;
  auto forged = tx(b);
  forged.auth.parts.at(0).at(3) ^= 1;
  const auto good = tx(c);
  const auto outcome = world.run({wrong_chain, forged, good});
  EXPECT_EQ(statuses(outcome), (std::vector{TxStatus::wrong_chain, TxStatus::bad_signature, TxStatus::success}));
  PulseUsage expected = tx_usage(forged);
  expected.add(tx_usage(good));
  EXPECT_EQ(outcome.usage, expected);
}

TEST_F(Budget, PrecheckVerifiesNoMoreThanTheBudget) {
  world.params.limits.max_transactions = 2;
  const std::vector<Transaction> txs = {tx(a), tx(b), tx(c)};
  const auto verdicts = signature_verdicts(txs, world.params);
  EXPECT_EQ(verdicts, (std::vector<std::optional<bool>>{true, true, std::nullopt}));
}

TEST_F(Budget, PastThePrecheckBoundTheSequentialPassVerifiesWhatStillFits) {
  // The pre-check counts every transaction of this chain with well-formed
  // keys: here also `impostor` (b's keys on a's new account), which the
  // pass rejects at step 2 without counting it, so c still fits and is
  // verified in the pass.
  world.params.limits.max_transactions = 2;
  auto forged = tx(a);
  forged.auth.parts.at(0).at(3) ^= 1;
  const auto impostor =
      testing::sign_as(b, world.transfer(a, 0, {world.fund(id_of(a), 10'000'000)}, {Output{Id{}, 1}}));
  const std::vector<Transaction> txs = {forged, impostor, tx(c)};
  const auto verdicts = signature_verdicts(txs, world.params);
  EXPECT_EQ(verdicts, (std::vector<std::optional<bool>>{false, true, std::nullopt}));
  const auto outcome = world.run(txs);
  EXPECT_EQ(statuses(outcome), (std::vector{TxStatus::bad_signature, TxStatus::wrong_keys, TxStatus::success}));
}

TEST_F(Budget, PrecheckSkipsOtherChainsAndMalformedKeys) {
  // Neither can reach step 4, so neither counts towards the bound.
  world.params.limits.max_transactions = 1;
  auto other_chain = tx(a);
  other_chain.payload.chain_id = 99;
  auto malformed = tx(b);
  malformed.keys.parts.at(0).key.pop_back();
  const std::vector<Transaction> txs = {other_chain, malformed, tx(c)};
  EXPECT_EQ(signature_verdicts(txs, world.params),
            (std::vector<std::optional<bool>>{std::nullopt, std::nullopt, true}));
  const auto outcome = world.run(txs);
  EXPECT_EQ(statuses(outcome), (std::vector{TxStatus::wrong_chain, TxStatus::wrong_keys, TxStatus::success}));
}

// A Pulse with a bit of everything, on dual keys.
struct MixedPulse {
  testing::World world;
  std::vector<Transaction> txs;

  MixedPulse() {
    std::vector<crypto::SigningBundle> users;
    for (std::uint8_t seed = 10; seed < 16; ++seed) users.push_back(signer(seed, crypto::Profile::dual));
    std::vector<Id> coins;
    for (const auto& user : users) coins.push_back(world.fund(id_of(user), 5'000'000));
    for (const auto& user : users) coins.push_back(world.fund(id_of(user), 5'000'000));
    world.open_account(users[5], 0);
    for (std::size_t i = 0; i < 5; ++i) {
      txs.push_back(world.transfer(users[i], 0, {coins[i]}, {{id_of(users[(i + 1) % 6]), 1000 + i}}));
    }
    txs.push_back(world.transfer(users[5], 0, {coins[5], coins[11]}, {{id_of(users[0]), 7}}));
    txs.push_back(world.transfer(users[0], 1, {coins[6], coins[0]}, {{id_of(users[1]), 1}}));  // unknown_coin
    auto forged = world.transfer(users[1], 1, {coins[7]}, {{id_of(users[2]), 1}});
    forged.auth.parts.at(1).at(100) ^= 1;
    txs.push_back(forged);
    txs.push_back(world.transfer(users[2], 5, {coins[8]}, {{id_of(users[3]), 1}}));           // wrong_nonce
    txs.push_back(world.transfer(users[3], 1, {coins[9]}, {{id_of(users[4]), 0}}));           // zero_amount
    txs.push_back(world.transfer(users[4], 1, {coins[10]}, {{id_of(users[0]), 9'000'000}}));  // insufficient
    // users[4]'s keys and signature on users[3]'s account: wrong_keys.
    txs.push_back(testing::sign_as(users[4], world.transfer(users[3], 2, {coins[3]}, {{id_of(users[4]), 1}})));
  }
};

TEST(Pulse, ParallelPrecheckIsDeterministicAndMatchesTheSequentialDefinition) {
  MixedPulse mixed;
  const auto& world = mixed.world;
  // The reference: one transaction after another, each signature checked inline.
  Overlay overlay(world.state);
  PulseUsage usage;
  std::vector<Receipt> reference;
  for (const auto& tx : mixed.txs) {
    reference.push_back(apply_transaction(overlay, tx, std::nullopt, world.params, 1, usage).value());
  }
  const std::vector<TxStatus> expected = {
      TxStatus::success,
      TxStatus::success,
      TxStatus::success,
      TxStatus::success,
      TxStatus::success,
      TxStatus::success,
      TxStatus::unknown_coin,
      TxStatus::bad_signature,
      TxStatus::wrong_nonce,
      TxStatus::zero_amount,
      TxStatus::insufficient_funds,
      TxStatus::wrong_keys,
  };
  std::vector<TxStatus> got;
  for (const auto& receipt : reference) got.push_back(receipt.status);
  ASSERT_EQ(got, expected);

  // Every transaction is within the budget, so the pre-check verifies them
  // all and the sequential pass never verifies inline.
  const auto prechecks = precheck_transactions(mixed.txs, world.params);
  const auto verdicts = verdicts_of(prechecks);
  for (std::size_t i = 0; i < verdicts.size(); ++i) EXPECT_EQ(verdicts[i], std::optional<bool>{i != 7}) << i;

  crypto::VerifyCache cache;
  base::Executor two(2);
  base::Executor three(3);
  base::Executor four(4);
  base::Executor every_core(0);
  for (const PulseOptions options :
       {PulseOptions{nullptr, nullptr}, PulseOptions{&two, nullptr}, PulseOptions{&four, nullptr},
        PulseOptions{&every_core, nullptr}, PulseOptions{&three, &cache}, PulseOptions{&three, &cache},
        PulseOptions{nullptr, nullptr, &prechecks}}) {
    const auto outcome = execute_pulse(world.state, mixed.txs, world.params, 1, options).value();
    EXPECT_EQ(outcome.receipts, reference) << base::concurrency(options.executor);
    EXPECT_EQ(outcome.usage, usage);
    EXPECT_EQ(outcome.writes.size(), overlay.write_set().size());
    EXPECT_EQ(outcome.receipts_root, receipts_root(reference));
    auto post = world.state;
    EXPECT_EQ(commit_pulse(post, outcome).value(), [&] {
      auto reference_post = world.state;
      return reference_post.apply(overlay.write_set()).value();
    }());
  }
  EXPECT_GT(cache.hits(), 0u);  // the second cached run skipped the checks

  const std::vector<TxPrecheck> too_few(prechecks.begin(), prechecks.end() - 1);
  const auto mismatched =
      execute_pulse(world.state, mixed.txs, world.params, 1, PulseOptions{nullptr, nullptr, &too_few});
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.error().code, base::Errc::invalid_argument);
}

TEST(Pulse, WriteSetIsSortedAndTheMemoryRootIsTheStateRoot) {
  MixedPulse mixed;
  auto& world = mixed.world;
  const Amount before = world.total_value();
  const auto outcome = world.run(mixed.txs);
  for (std::size_t i = 1; i < outcome.writes.size(); ++i) EXPECT_LT(outcome.writes[i - 1].id, outcome.writes[i].id);
  std::vector<commit::StateEntry> entries;
  for (const auto& [id, object] : world.state.objects()) entries.push_back({id, state::object_hash(object)});
  EXPECT_EQ(world.state.root(), commit::state_root(entries).value());
  EXPECT_EQ(world.total_value() + outcome.fees, before);
  Amount fees = 0;
  for (const auto& receipt : outcome.receipts) fees += receipt.fee_paid;
  EXPECT_EQ(outcome.fees, fees);
}

TEST(Pulse, CommitsToAnObjectStoreWithTheSameRoot) {
  const auto alice = signer(1);
  testing::World world;
  const Id c1 = world.fund(id_of(alice), 1'000'000);
  testing::TempDir dir;
  auto store = state::ObjectStore::open(dir.str(), {.retain_versions = 4, .sync_writes = false}).value();
  std::vector<state::ObjectWrite> genesis;
  for (const auto& [id, object] : world.state.objects()) genesis.push_back({id, object});
  ASSERT_TRUE(store->apply(genesis).ok());
  ASSERT_EQ(store->root(), world.state.root());

  const std::vector<Transaction> txs = {world.transfer(alice, 0, {c1}, {{Id{}, 5}})};
  const auto from_store = execute_pulse(StoreView(*store), txs, world.params, 1).value();
  const auto from_memory = world.run(txs);
  EXPECT_EQ(from_store.receipts, from_memory.receipts);
  EXPECT_EQ(commit_pulse(*store, from_store).value(), world.state.root());
  EXPECT_EQ(store->version(), 2u);
  EXPECT_FALSE(store->get(c1).value());
}

TEST(Pulse, ReceiptsRootIsTheRfc6962TreeWithReceiptTags) {
  EXPECT_EQ(receipts_root({}), crypto::sha3_256({}));
  std::vector<Receipt> receipts(3);
  for (std::size_t i = 0; i < 3; ++i) {
    receipts[i].tx_id.fill(static_cast<std::uint8_t>(i));
    receipts[i].fee_paid = i;
  }
  const auto leaf = [](const Receipt& r) {
    return commit::tagged_hash(commit::Domain::receipt_leaf, codec::encode(r));
  };
  const auto node = [](const commit::Hash& l, const commit::Hash& r) {
    return commit::hash_node(commit::Domain::receipt_node, l, r);
  };
  EXPECT_EQ(receipts_root({receipts.data(), 1}), leaf(receipts[0]));
  EXPECT_EQ(receipts_root(receipts), node(node(leaf(receipts[0]), leaf(receipts[1])), leaf(receipts[2])));
}

TEST(Pulse, EmptyPulse) {
  testing::World world;
  const auto outcome = world.run({});
  EXPECT_TRUE(outcome.receipts.empty() && outcome.writes.empty());
  EXPECT_EQ(outcome.usage, PulseUsage{});
}

class FailingView final : public StateView {
 public:
  base::Result<std::optional<state::Object>> get(const Id&) const override {
    return base::fail(base::Errc::io_error, "disk on fire");
  }
};

TEST(Pulse, AReadErrorFailsThePulse) {
  const auto alice = signer(1);
  testing::World world;
  const auto tx = world.transfer(alice, 0, {Id{}}, {});
  EXPECT_EQ(execute_pulse(FailingView{}, std::vector{tx}, world.params, 1).error().code, base::Errc::io_error);

  world.put(id_of(alice), to_object(Coin{}, 1));  // not an account where one must be
  EXPECT_EQ(execute_pulse(world.state, std::vector{tx}, world.params, 1).error().code, base::Errc::corrupt_store);
}

TEST(Pulse, RefusesTransactionsTheCodecCannotEncode) {
  const auto alice = signer(1);
  testing::World world;
  auto tx = world.transfer(alice, 0, {Id{}}, {});
  std::get<Transfer>(tx.payload.body).inputs.resize(kMaxTransferInputs + 1);
  EXPECT_EQ(execute_pulse(world.state, std::vector{tx}, world.params, 1).error().code, base::Errc::invalid_argument);
}

}  // namespace
}  // namespace sion::exec
