// The steps every kind shares (docs/ledger.md, "Applying a transaction",
// steps 1 to 7 and the failed-body charge), tested on requests alone: no
// transaction type or kind is needed to drive them.
#include "sion/ledger/authorize.hpp"

#include <gtest/gtest.h>

#include "sion/ledger/state_view.hpp"
#include "test_ids.hpp"

namespace sion::ledger {
namespace {

using testing::id_n;

struct World {
  ChainParams params;
  Id keys_id = id_n(1);
  Id sender = account_id_from_keys_id(id_n(1));
  Id coin = id_n(9);
  MemoryState pre;
  int verify_calls = 0;

  World() {
    params.chain_id = 7;
    params.fees = {1, 1};
    const state::ObjectWrite write{coin, to_object(Coin{sender, 500}, 1)};
    pre = MemoryState::from_writes({&write, 1}).value();
  }
  // A new account's first transaction: usage 110 priced at 1 per byte and unit.
  AuthRequest request() {
    AuthRequest r;
    r.tx_id = id_n(4);
    r.chain_id = 7;
    r.sender = sender;
    r.nonce = 0;
    r.fee = 110;
    r.keys_id = keys_id;
    r.usage = {1, 100, 50, 10};
    r.fee_coin_id = coin;
    r.verify_signature = [this](const crypto::Hash256& id) {
      ++verify_calls;
      return id == keys_id;
    };
    return r;
  }
};

TEST(Authorize, AuthorizedWritesTheAccountWithTheNonceAdvanced) {
  World s;
  Overlay state(s.pre);
  PulseUsage usage;
  const auto auth = authorize(state, s.request(), s.params, usage).value();
  ASSERT_EQ(auth.status, TxStatus::success);
  ASSERT_TRUE(auth.authorized.fee_coin.has_value());
  EXPECT_EQ(auth.authorized.fee_coin->coin, (Coin{s.sender, 500}));
  EXPECT_EQ(auth.authorized.fee_coin->id, s.coin);
  EXPECT_EQ(usage, (PulseUsage{1, 100, 50, 10}));
  EXPECT_EQ(s.verify_calls, 1);
  const auto writes = state.write_set();
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].id, s.sender);
  EXPECT_EQ(account_from(*writes[0].object).value(), (Account{s.keys_id, 1}));
  EXPECT_EQ(writes[0].object->version, 1u);
}

TEST(Authorize, ABodyNamingNoFeeCoinIsFeeUnpayableAndWritesNothing) {
  World s;
  Overlay state(s.pre);
  PulseUsage usage;
  auto request = s.request();
  request.fee_coin_id.reset();
  EXPECT_EQ(authorize(state, request, s.params, usage).value().status, TxStatus::fee_unpayable);
  EXPECT_TRUE(state.write_set().empty());
  EXPECT_EQ(usage.transactions, 1u);  // counted at step 3, as its signature was checked
}

TEST(Authorize, AGivenVerdictIsUsedAndTheVerifierRunsOnlyPastTheBudget) {
  World s;
  Overlay state(s.pre);
  PulseUsage usage;
  auto request = s.request();
  request.signature_ok = false;
  EXPECT_EQ(authorize(state, request, s.params, usage).value().status, TxStatus::bad_signature);
  EXPECT_EQ(s.verify_calls, 0);

  // Over budget: rejected before any signature is checked.
  auto tight = s.params;
  tight.limits.max_bytes = 99;
  PulseUsage none;
  EXPECT_EQ(authorize(state, s.request(), tight, none).value().status, TxStatus::budget_exceeded);
  EXPECT_EQ(s.verify_calls, 0);
  EXPECT_EQ(none, PulseUsage{});
}

TEST(Authorize, StepsRunInTheDocumentedOrder) {
  World s;
  Overlay state(s.pre);
  PulseUsage usage;
  auto request = s.request();
  request.chain_id = 8;
  request.keys_id.reset();
  EXPECT_EQ(authorize(state, request, s.params, usage).value().status, TxStatus::wrong_chain);
  request.chain_id = 7;
  EXPECT_EQ(authorize(state, request, s.params, usage).value().status, TxStatus::wrong_keys);
  request = s.request();
  request.nonce = 1;
  request.fee = 1;
  EXPECT_EQ(authorize(state, request, s.params, usage).value().status, TxStatus::wrong_nonce);
  request.nonce = 0;
  EXPECT_EQ(authorize(state, request, s.params, usage).value().status, TxStatus::fee_too_low);
  request.fee = 501;  // above what the fee coin holds
  EXPECT_EQ(authorize(state, request, s.params, usage).value().status, TxStatus::fee_unpayable);
  EXPECT_TRUE(state.write_set().empty());
}

TEST(Authorize, AFailedBodyPaysTheFeeFromTheFeeCoinAndReturnsTheRest) {
  World s;
  Overlay state(s.pre);
  PulseUsage usage;
  const auto auth = authorize(state, s.request(), s.params, usage).value();
  ASSERT_EQ(auth.status, TxStatus::success);
  const Receipt receipt = fail_transaction(state, auth.authorized, TxStatus::zero_amount, id_n(12));
  EXPECT_EQ(receipt, (Receipt{id_n(4), TxStatus::zero_amount, 110, 1}));
  const auto writes = state.write_set();
  ASSERT_EQ(writes.size(), 3u);  // ids 9 (fee coin), 12 (rest) and the sender's account
  bool spent = false;
  bool rest = false;
  for (const auto& write : writes) {
    if (write.id == s.coin) spent = !write.object.has_value();
    if (write.id == id_n(12)) rest = coin_from(*write.object).value() == Coin{s.sender, 390};
  }
  EXPECT_TRUE(spent);
  EXPECT_TRUE(rest);
}

}  // namespace
}  // namespace sion::ledger
