// The mempool (docs/mempool.md): admission against a state, priority,
// replacement, held future nonces, bounds and eviction, expiry, selection
// and the clean-up after a Pulse, over real signed transfers.
#include "sion/policy/tx_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "sion/agents/batch.hpp"
#include "sion/agents/objects.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/streams/chain.hpp"
#include "sion/streams/objects.hpp"

namespace sion::policy {
namespace {

using ledger::Amount;
using ledger::Id;

constexpr Amount kCoinAmount = 1'000'000'000;
constexpr std::size_t kWallets = 6;
constexpr std::uint8_t kCoinsPerWallet = 4;

ledger::ChainParams chain(std::uint64_t chain_id) {
  ledger::ChainParams params;
  params.chain_id = chain_id;
  params.fees = {1, 1};
  return params;
}

struct Wallet {
  crypto::SigningBundle keys;
  Id account{};
};

// Hybrid keys (Ed25519 + ML-DSA-44) sign in well under a millisecond.
const std::vector<Wallet>& wallets() {
  static const std::vector<Wallet> all = [] {
    std::vector<Wallet> out;
    for (std::size_t w = 0; w < kWallets; ++w) {
      crypto::KeySeed seed{};
      seed.fill(static_cast<std::uint8_t>(w + 1));
      auto keys = crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value();
      const Id account = ledger::account_id(keys.public_bundle());
      out.push_back({std::move(keys), account});
    }
    return out;
  }();
  return all;
}

// Coin `c` of wallet `w`, funded in every test's state.
Id coin(std::size_t w, std::uint8_t c) {
  Id id{};
  id.fill(static_cast<std::uint8_t>(w * kCoinsPerWallet + c + 1));
  return id;
}

class TxPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<state::ObjectWrite> writes;
    for (std::size_t w = 0; w < kWallets; ++w) {
      for (std::uint8_t c = 0; c < kCoinsPerWallet; ++c) {
        writes.push_back({coin(w, c), ledger::to_object(ledger::Coin{wallets()[w].account, kCoinAmount}, 1)});
      }
    }
    std::sort(writes.begin(), writes.end(),
              [](const auto& a, const auto& b) { return commit::HashOrder{}(a.id, b.id); });
    ASSERT_TRUE(state.apply(writes).ok());
  }

  // A transfer of 1000 from wallet w spending `inputs`, paying the required
  // fee plus `extra` (every such transfer has the same size).
  exec::Transaction transfer(std::size_t w, std::uint64_t nonce, Amount extra, std::vector<Id> inputs = {},
                             const ledger::ChainParams& with = chain(7)) const {
    if (inputs.empty()) inputs = {coin(w, 0)};
    const std::vector<ledger::Output> outputs = {{Id{}, 1000}};
    const auto unsigned_fee = exec::make_transfer(wallets()[w].keys, with, nonce, inputs, outputs, std::nullopt,
                                                  crypto::Hedging::deterministic)
                                  .value()
                                  .payload.fee;
    return exec::make_transfer(wallets()[w].keys, with, nonce, inputs, outputs, unsigned_fee + extra,
                               crypto::Hedging::deterministic)
        .value();
  }

  void set_account(std::size_t w, std::uint64_t nonce, std::optional<Id> keys_id = std::nullopt) {
    const ledger::Account account{keys_id.value_or(wallets()[w].keys.id()), nonce};
    const std::vector<state::ObjectWrite> writes = {{wallets()[w].account, ledger::to_object(account, 1)}};
    ASSERT_TRUE(state.apply(writes).ok());
  }

  // check() then insert(), as a node does around its signature check.
  Insertion admit(TxPool& pool, const exec::Transaction& tx, PoolTime now = 0) const {
    const Admission admission = pool.check(tx, state).value();
    if (!admission.verdict) return {admission.verdict, PoolStatus::pending, {}};
    EXPECT_EQ(admission.facts, tx_facts(tx));
    return pool.insert(tx, admission.facts, state, now).value();
  }

  PolicyCode refusal(TxPool& pool, const exec::Transaction& tx) const {
    const Insertion insertion = admit(pool, tx);
    EXPECT_FALSE(insertion.verdict.ok());
    EXPECT_FALSE(insertion.verdict.reason.empty());
    return insertion.verdict.code;
  }

  static std::vector<Id> ids_of(const std::vector<exec::Transaction>& txs) {
    std::vector<Id> out;
    for (const auto& tx : txs) out.push_back(exec::tx_id(tx.payload));
    return out;
  }

  TxPool pool(PoolOptions options = {}) const { return TxPool(params, policy, options); }

  const ledger::ChainParams params = chain(7);
  const MempoolPolicy policy{/*min_fee_per_byte*/ 1, /*dust*/ 546, /*max bytes*/ 100'000};
  ledger::MemoryState state;
};

TEST_F(TxPoolTest, AdmitsATransferAsPending) {
  TxPool txs = pool();
  const auto tx = transfer(0, 0, 0);
  const Insertion insertion = admit(txs, tx);
  ASSERT_TRUE(insertion.verdict.ok()) << insertion.verdict.reason;
  EXPECT_EQ(insertion.status, PoolStatus::pending);
  EXPECT_TRUE(insertion.removed.empty());
  const Id id = exec::tx_id(tx.payload);
  EXPECT_EQ(txs.status(id), PoolStatus::pending);
  EXPECT_EQ(*txs.get(id), tx);
  EXPECT_EQ(txs.size(), 1u);
  EXPECT_EQ(txs.bytes(), codec::encoded_size(tx));
  EXPECT_EQ(txs.status(Id{}), std::nullopt);
  EXPECT_EQ(txs.get(Id{}), nullptr);
}

TEST_F(TxPoolTest, RefusesStatelessAndDuplicates) {
  TxPool txs = pool();
  EXPECT_EQ(refusal(txs, transfer(0, 0, 0, {}, chain(8))), PolicyCode::wrong_chain);
  // Paying the per-byte part but not the verify units.
  const auto base = transfer(0, 0, 0);
  const auto size = codec::encoded_size(base);
  const std::vector<ledger::Output> outputs = {{Id{}, 1000}};
  const std::vector<Id> inputs = {coin(0, 0)};
  const auto cheap =
      exec::make_transfer(wallets()[0].keys, params, 0, inputs, outputs, size, crypto::Hedging::deterministic);
  EXPECT_EQ(refusal(txs, cheap.value()), PolicyCode::fee_below_required);

  ASSERT_TRUE(admit(txs, base).verdict.ok());
  EXPECT_EQ(refusal(txs, base), PolicyCode::already_pooled);
  // Checked, then pooled by someone else before insert(): insert re-checks.
  const auto other = transfer(1, 0, 0);
  const Admission admission = txs.check(other, state).value();
  ASSERT_TRUE(admission.verdict.ok());
  ASSERT_TRUE(txs.insert(other, admission.facts, state, 0).value().verdict.ok());
  EXPECT_EQ(txs.insert(other, admission.facts, state, 0).value().verdict.code, PolicyCode::already_pooled);

  EXPECT_EQ(txs.refusals(PolicyCode::wrong_chain), 1u);
  EXPECT_EQ(txs.refusals(PolicyCode::fee_below_required), 1u);
  EXPECT_EQ(txs.refusals(PolicyCode::already_pooled), 2u);
  txs.record_refusal(PolicyCode::bad_signature);
  EXPECT_EQ(txs.refusals(PolicyCode::bad_signature), 1u);
  EXPECT_EQ(txs.refusals(PolicyCode::admitted), 0u);
}

// A value no decoder could give is refused before anything hashes it.
TEST_F(TxPoolTest, RefusesAnUnencodableValueBeforeHashingIt) {
  TxPool txs = pool();
  auto tx = transfer(0, 0, 0);
  tx.auth.parts.resize(crypto::kMaxBundleKeys + 1);
  const Admission admission = txs.check(tx, state).value();
  EXPECT_EQ(admission.verdict.code, PolicyCode::not_encodable);
  EXPECT_EQ(txs.insert(tx, admission.facts, state, 0).value().verdict.code, PolicyCode::not_encodable);
  EXPECT_EQ(txs.size(), 0u);
  EXPECT_EQ(txs.refusals(PolicyCode::not_encodable), 2u);
}

TEST_F(TxPoolTest, RefusesWrongKeys) {
  TxPool txs = pool();
  // An account whose keys are someone else's.
  set_account(0, 0, wallets()[1].keys.id());
  EXPECT_EQ(refusal(txs, transfer(0, 0, 0)), PolicyCode::wrong_keys);
  // No account, and the keys do not hash to the sender.
  auto tx = transfer(2, 0, 0);
  tx.payload.sender = wallets()[3].account;
  auto resigned = exec::sign_transaction(wallets()[2].keys, tx.payload, crypto::Hedging::deterministic).value();
  EXPECT_EQ(refusal(txs, resigned), PolicyCode::wrong_keys);
  // Malformed keys.
  auto malformed = transfer(2, 0, 0);
  malformed.keys.parts.at(0).key.pop_back();
  EXPECT_EQ(refusal(txs, malformed), PolicyCode::wrong_keys);
  // No keys at all make a batch member, which only an agent sends.
  auto member = transfer(2, 0, 0);
  member.keys.parts.clear();
  EXPECT_EQ(refusal(txs, member), PolicyCode::not_an_agent);
}

TEST_F(TxPoolTest, RefusesNoncesOutOfRange) {
  PoolOptions options;
  options.max_nonce_gap = 3;
  TxPool txs = pool(options);
  set_account(0, 5);
  EXPECT_EQ(refusal(txs, transfer(0, 4, 0)), PolicyCode::nonce_too_low);
  EXPECT_EQ(refusal(txs, transfer(0, 9, 0)), PolicyCode::nonce_too_far_ahead);
  EXPECT_EQ(admit(txs, transfer(0, 8, 0)).status, PoolStatus::held);
}

TEST_F(TxPoolTest, RefusesCoinsThatCannotPay) {
  TxPool txs = pool();
  EXPECT_EQ(refusal(txs, transfer(0, 0, 0, {Id{}})), PolicyCode::fee_unpayable);                  // no such coin
  EXPECT_EQ(refusal(txs, transfer(0, 0, 0, {coin(1, 0)})), PolicyCode::fee_unpayable);            // another's
  EXPECT_EQ(refusal(txs, transfer(0, 0, kCoinAmount, {coin(0, 0)})), PolicyCode::fee_unpayable);  // too little
  EXPECT_EQ(refusal(txs, transfer(0, 0, 0, {coin(0, 0), Id{}})), PolicyCode::unknown_input);
  EXPECT_EQ(refusal(txs, transfer(0, 0, 0, {coin(0, 0), coin(1, 1)})), PolicyCode::input_not_owned);
  EXPECT_TRUE(admit(txs, transfer(0, 0, 0, {coin(0, 0), coin(0, 1)})).verdict.ok());
  EXPECT_EQ(txs.refusals(PolicyCode::fee_unpayable), 3u);
}

TEST_F(TxPoolTest, BoundsEachSender) {
  PoolOptions options;
  options.max_per_sender = 3;
  options.max_held_per_sender = 1;
  TxPool txs = pool(options);
  EXPECT_EQ(admit(txs, transfer(0, 2, 0)).status, PoolStatus::held);
  EXPECT_EQ(refusal(txs, transfer(0, 3, 0)), PolicyCode::too_many_held);
  EXPECT_EQ(admit(txs, transfer(0, 0, 0)).status, PoolStatus::pending);
  EXPECT_EQ(admit(txs, transfer(0, 1, 0)).status, PoolStatus::pending);  // closes the gap: 0, 1, 2 pending
  EXPECT_EQ(txs.status(exec::tx_id(transfer(0, 2, 0).payload)), PoolStatus::pending);
  EXPECT_EQ(refusal(txs, transfer(0, 3, 0)), PolicyCode::sender_full);
  EXPECT_TRUE(admit(txs, transfer(1, 0, 0)).verdict.ok());  // other senders are not bound by it
}

TEST_F(TxPoolTest, SelectsByFeerateThenArrival) {
  TxPool txs = pool();
  const std::vector<exec::Transaction> in = {transfer(0, 0, 100), transfer(1, 0, 300), transfer(2, 0, 200),
                                             transfer(3, 0, 300)};
  for (const auto& tx : in) ASSERT_TRUE(admit(txs, tx).verdict.ok());
  const Selection selection = txs.select(params.limits);
  EXPECT_EQ(selection.ids, (std::vector<Id>{ids_of(in)[1], ids_of(in)[3], ids_of(in)[2], ids_of(in)[0]}));
  ASSERT_EQ(selection.transactions.size(), 4u);
  EXPECT_EQ(*selection.transactions[0], in[1]);
  EXPECT_EQ(txs.size(), 4u);  // selection removes nothing
}

TEST_F(TxPoolTest, SelectsEachSenderInNonceOrder) {
  TxPool txs = pool();
  // Later nonces pay more, but must follow the earlier ones.
  const std::vector<exec::Transaction> in = {transfer(0, 2, 900, {coin(0, 2)}), transfer(0, 0, 10),
                                             transfer(0, 1, 500, {coin(0, 1)}), transfer(1, 0, 100)};
  for (const auto& tx : in) ASSERT_TRUE(admit(txs, tx).verdict.ok());
  const auto ids = ids_of(in);
  EXPECT_EQ(txs.select(params.limits).ids, (std::vector<Id>{ids[3], ids[1], ids[2], ids[0]}));
  // And the state machine accepts that order.
  const auto selection = txs.select(params.limits);
  std::vector<exec::Transaction> pulse;
  for (const auto& tx : selection.transactions) pulse.push_back(*tx);
  const auto outcome = exec::execute_pulse(state, pulse, params, 1).value();
  for (const auto& receipt : outcome.receipts) EXPECT_EQ(receipt.status, ledger::TxStatus::success);
}

TEST_F(TxPoolTest, PassesOverTakenTransactionsKeepingNonceOrder) {
  TxPool txs = pool();
  const std::vector<exec::Transaction> in = {transfer(0, 0, 10), transfer(0, 1, 500, {coin(0, 1)}),
                                             transfer(1, 0, 100)};
  for (const auto& tx : in) ASSERT_TRUE(admit(txs, tx).verdict.ok());
  const auto ids = ids_of(in);
  // Sender 0's nonce 0 (the lowest feerate) is in a batch already: its nonce 1 follows it.
  const auto taken = [&](const Id& id) { return id == ids[0]; };
  EXPECT_EQ(txs.select(params.limits, taken).ids, (std::vector<Id>{ids[2], ids[1]}));
  const auto all = [](const Id&) { return true; };
  EXPECT_TRUE(txs.select(params.limits, all).ids.empty());
  EXPECT_EQ(txs.size(), 3u);
}

TEST_F(TxPoolTest, SelectsWithinEachBudget) {
  TxPool txs = pool();
  std::vector<exec::Transaction> in;
  for (std::size_t w = 0; w < 4; ++w) in.push_back(transfer(w, 0, 100 * (4 - w)));
  for (const auto& tx : in) ASSERT_TRUE(admit(txs, tx).verdict.ok());
  const ledger::PulseUsage one = exec::tx_usage(in[0]);
  const auto ids = ids_of(in);
  const std::vector<Id> best_two = {ids[0], ids[1]};
  for (int budget = 0; budget < 4; ++budget) {
    ledger::PulseLimits limits = params.limits;
    if (budget == 0) limits.max_transactions = 2;
    if (budget == 1) limits.max_bytes = 3 * one.bytes - 1;
    if (budget == 2) limits.max_auth_bytes = 2 * one.auth_bytes;
    if (budget == 3) limits.max_verify_units = 3 * one.verify_units - 1;
    const Selection selection = txs.select(limits);
    EXPECT_EQ(selection.ids, best_two) << "budget " << budget;
    EXPECT_EQ(selection.usage.transactions, 2u);
    EXPECT_EQ(selection.usage.bytes, 2 * one.bytes);
  }
  ledger::PulseLimits none = params.limits;
  none.max_bytes = one.bytes - 1;
  EXPECT_TRUE(txs.select(none).ids.empty());
}

TEST_F(TxPoolTest, ReplacesOnlyForEnoughMoreFeerate) {
  TxPool txs = pool();
  const auto first = transfer(0, 0, 0);
  ASSERT_TRUE(admit(txs, first).verdict.ok());
  const Amount fee = first.payload.fee;
  // 5% more: underpriced; just under 10% more: underpriced; 10% more (the
  // same size): replaces.
  const Amount bump = (fee + 9) / 10;
  EXPECT_EQ(refusal(txs, transfer(0, 0, fee / 20)), PolicyCode::replacement_underpriced);
  EXPECT_EQ(refusal(txs, transfer(0, 0, bump - 1)), PolicyCode::replacement_underpriced);
  const auto second = transfer(0, 0, bump);
  const Insertion insertion = admit(txs, second);
  ASSERT_TRUE(insertion.verdict.ok()) << insertion.verdict.reason;
  EXPECT_EQ(insertion.removed, (std::vector<Removed>{{exec::tx_id(first.payload), RemovalReason::replaced}}));
  EXPECT_EQ(txs.status(exec::tx_id(first.payload)), std::nullopt);
  EXPECT_EQ(txs.status(exec::tx_id(second.payload)), PoolStatus::pending);
  EXPECT_EQ(txs.size(), 1u);
  EXPECT_EQ(txs.removals(RemovalReason::replaced), 1u);
  EXPECT_EQ(txs.refusals(PolicyCode::replacement_underpriced), 2u);
}

TEST_F(TxPoolTest, EvictsTheCheapestWhenFull) {
  PoolOptions options;
  options.max_transactions = 3;
  TxPool txs = pool(options);
  const std::vector<exec::Transaction> in = {transfer(0, 0, 200), transfer(1, 0, 100), transfer(2, 0, 300)};
  for (const auto& tx : in) ASSERT_TRUE(admit(txs, tx).verdict.ok());
  // Cheaper than, or as cheap as, the cheapest: refused, nothing changes.
  EXPECT_EQ(refusal(txs, transfer(3, 0, 50)), PolicyCode::pool_full);
  EXPECT_EQ(refusal(txs, transfer(3, 0, 100)), PolicyCode::pool_full);
  EXPECT_EQ(txs.size(), 3u);
  const Insertion insertion = admit(txs, transfer(3, 0, 150));
  ASSERT_TRUE(insertion.verdict.ok()) << insertion.verdict.reason;
  EXPECT_EQ(insertion.removed, (std::vector<Removed>{{exec::tx_id(in[1].payload), RemovalReason::evicted}}));
  EXPECT_EQ(txs.size(), 3u);
  EXPECT_EQ(txs.removals(RemovalReason::evicted), 1u);
  EXPECT_EQ(txs.refusals(PolicyCode::pool_full), 2u);
}

TEST_F(TxPoolTest, EvictsBySizeFromTheSendersLastNonce) {
  const auto size = codec::encoded_size(transfer(0, 0, 0));
  PoolOptions options;
  options.max_bytes = 3 * size;
  TxPool txs = pool(options);
  // Sender 0's nonce 0 pays least, but its nonce 1 would be left with a gap:
  // eviction takes the last nonce of a sender, the cheapest of those.
  const auto a0 = transfer(0, 0, 10);
  const auto a1 = transfer(0, 1, 400, {coin(0, 1)});
  const auto b0 = transfer(1, 0, 300);
  for (const auto& tx : {a0, a1, b0}) ASSERT_TRUE(admit(txs, tx).verdict.ok());
  const Insertion insertion = admit(txs, transfer(2, 0, 350));
  ASSERT_TRUE(insertion.verdict.ok()) << insertion.verdict.reason;
  EXPECT_EQ(insertion.removed, (std::vector<Removed>{{exec::tx_id(b0.payload), RemovalReason::evicted}}));
  // The worst tail now pays 350.
  EXPECT_EQ(refusal(txs, transfer(3, 0, 340)), PolicyCode::pool_full);

  // A bigger newcomer needs both of sender 0's places: its last nonce goes
  // first, then the one before it.
  options.max_bytes = 2 * size;
  TxPool small = pool(options);
  for (const auto& tx : {a0, a1}) ASSERT_TRUE(admit(small, tx).verdict.ok());
  const auto big = transfer(4, 0, 2000, {coin(4, 0), coin(4, 1)});
  ASSERT_GT(codec::encoded_size(big), size);
  const Insertion both = admit(small, big);
  ASSERT_TRUE(both.verdict.ok()) << both.verdict.reason;
  EXPECT_EQ(both.removed, (std::vector<Removed>{{exec::tx_id(a1.payload), RemovalReason::evicted},
                                                {exec::tx_id(a0.payload), RemovalReason::evicted}}));
  EXPECT_EQ(small.size(), 1u);

  // A sender never evicts its own transactions.
  options.max_transactions = 1;
  TxPool one = pool(options);
  ASSERT_TRUE(admit(one, transfer(4, 0, 500)).verdict.ok());
  EXPECT_EQ(refusal(one, transfer(4, 1, 900, {coin(4, 1)})), PolicyCode::pool_full);
}

TEST_F(TxPoolTest, HoldsFutureNoncesUntilTheGapFills) {
  TxPool txs = pool();
  const auto n2 = transfer(0, 2, 0, {coin(0, 2)});
  const auto n1 = transfer(0, 1, 0, {coin(0, 1)});
  EXPECT_EQ(admit(txs, n2).status, PoolStatus::held);
  EXPECT_EQ(admit(txs, n1).status, PoolStatus::held);
  EXPECT_TRUE(txs.select(params.limits).ids.empty());
  // The account reaches nonce 1 through a transaction the pool never saw.
  const auto elsewhere = transfer(0, 0, 0, {coin(0, 3)});
  const std::vector<exec::Transaction> pulse = {elsewhere};
  const auto outcome = exec::execute_pulse(state, pulse, params, 1).value();
  ASSERT_EQ(outcome.receipts[0].status, ledger::TxStatus::success);
  ASSERT_TRUE(exec::commit_pulse(state, outcome).ok());
  const std::vector<Id> executed = {exec::tx_id(elsewhere.payload)};
  EXPECT_TRUE(txs.on_pulse_committed(executed, state).value().empty());
  EXPECT_EQ(txs.status(exec::tx_id(n1.payload)), PoolStatus::pending);
  EXPECT_EQ(txs.status(exec::tx_id(n2.payload)), PoolStatus::pending);
  EXPECT_EQ(txs.select(params.limits).ids, ids_of({n1, n2}));
}

TEST_F(TxPoolTest, RemovesWhatAPulseExecutedOrMadeStale) {
  TxPool txs = pool();
  const auto a0 = transfer(0, 0, 0, {coin(0, 0)});
  const auto a1 = transfer(0, 1, 0, {coin(0, 1)});
  const auto a2 = transfer(0, 2, 0, {coin(0, 2)});
  const auto b0 = transfer(1, 0, 0);
  const auto c0 = transfer(2, 0, 0);
  for (const auto& tx : {a0, a1, a2, b0, c0}) ASSERT_TRUE(admit(txs, tx).verdict.ok());
  // The Pulse carries b0 from the pool and, for sender 0, other
  // transactions at nonces 0 and 1, the second spending a2's coin.
  const auto other0 = transfer(0, 0, 5, {coin(0, 3)});
  const auto other1 = transfer(0, 1, 5, {coin(0, 2)});
  const std::vector<exec::Transaction> pulse = {b0, other0, other1};
  const auto outcome = exec::execute_pulse(state, pulse, params, 1).value();
  for (const auto& receipt : outcome.receipts) ASSERT_EQ(receipt.status, ledger::TxStatus::success);
  ASSERT_TRUE(exec::commit_pulse(state, outcome).ok());
  const auto removed = txs.on_pulse_committed(ids_of(pulse), state).value();
  EXPECT_EQ(removed, (std::vector<Removed>{{exec::tx_id(b0.payload), RemovalReason::executed},
                                           {exec::tx_id(a0.payload), RemovalReason::stale_nonce},
                                           {exec::tx_id(a1.payload), RemovalReason::stale_nonce},
                                           {exec::tx_id(a2.payload), RemovalReason::inputs_spent}}));
  EXPECT_EQ(txs.size(), 1u);
  EXPECT_EQ(txs.status(exec::tx_id(c0.payload)), PoolStatus::pending);
  EXPECT_EQ(txs.removals(RemovalReason::executed), 1u);
  EXPECT_EQ(txs.removals(RemovalReason::stale_nonce), 2u);
  EXPECT_EQ(txs.removals(RemovalReason::inputs_spent), 1u);
  // A stale one is refused at the door now.
  EXPECT_EQ(refusal(txs, a1), PolicyCode::nonce_too_low);
}

TEST_F(TxPoolTest, ExpiresAfterItsTime) {
  PoolOptions options;
  options.expiry_ms = 1000;
  TxPool txs = pool(options);
  const auto early = transfer(0, 0, 0);
  const auto late = transfer(1, 0, 0);
  ASSERT_TRUE(admit(txs, early, 0).verdict.ok());
  ASSERT_TRUE(admit(txs, late, 500).verdict.ok());
  EXPECT_TRUE(txs.expire(1000).empty());
  EXPECT_EQ(txs.expire(1001), (std::vector<Removed>{{exec::tx_id(early.payload), RemovalReason::expired}}));
  EXPECT_EQ(txs.expire(1501), (std::vector<Removed>{{exec::tx_id(late.payload), RemovalReason::expired}}));
  EXPECT_EQ(txs.size(), 0u);
  EXPECT_EQ(txs.bytes(), 0u);
  EXPECT_EQ(txs.removals(RemovalReason::expired), 2u);
}

TEST_F(TxPoolTest, SameCallsGiveTheSameSelection) {
  PoolOptions options;
  options.max_transactions = 6;
  std::vector<exec::Transaction> in;
  for (std::size_t w = 0; w < kWallets; ++w) {
    for (std::uint8_t n = 0; n < 2; ++n) in.push_back(transfer(w, n, 7 * ((w * 3 + n) % 4), {coin(w, n)}));
  }
  auto run = [&] {
    TxPool txs = pool(options);
    std::vector<Removed> removed;
    std::vector<PolicyCode> codes;
    for (const auto& tx : in) {
      const Insertion insertion = admit(txs, tx);
      codes.push_back(insertion.verdict.code);
      removed.insert(removed.end(), insertion.removed.begin(), insertion.removed.end());
    }
    return std::tuple{txs.select(params.limits).ids, removed, codes};
  };
  const auto first = run();
  EXPECT_FALSE(std::get<0>(first).empty());
  EXPECT_EQ(run(), first);
}

TEST(PoolNames, RemovalReasonsAndStatusesAreStable) {
  const std::vector<std::string_view> names = {"executed", "stale_nonce", "inputs_spent",
                                               "evicted",  "expired",     "replaced"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kAllRemovalReasons[i]), i);
    EXPECT_EQ(removal_reason_name(kAllRemovalReasons[i]), names[i]);
  }
  EXPECT_EQ(pool_status_name(PoolStatus::pending), "pending");
  EXPECT_EQ(pool_status_name(PoolStatus::held), "held");
}

}  // namespace
}  // namespace sion::policy

namespace sion::policy {
namespace {

// Agents' transactions (docs/agents.md): a keyed agent signs with its own
// keys, a keyless one comes as a batch member; both pay from the allotment
// and take its nonce.
class AgentPoolTest : public TxPoolTest {
 protected:
  void SetUp() override {
    TxPoolTest::SetUp();
    agents::Caveats caveats;
    caveats.expiry_height = 1000;
    caveats.per_payment = 1000;
    caveats.period_cap = 100'000;
    caveats.period_length = 10;
    caveats.actions = agents::kAllActions;
    caveats.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
    const Id owner = wallets()[0].account;
    keyed = agents::lineage_id(agents::child_of_account(owner, 0));
    keyless = agents::lineage_id(agents::child_of_account(owner, 1));
    put_agent(agents::child_of_account(owner, 0), agents::Keyed{wallets()[1].keys.id()}, caveats, 200'000);
    put_agent(agents::child_of_account(owner, 1), agents::Keyless{wallets()[2].account}, caveats, 200'000);
  }

  void put_agent(const agents::Lineage& lineage, agents::Authority authority, const agents::Caveats& caveats,
                 Amount balance) {
    const Id id = agents::lineage_id(lineage);
    std::vector<state::ObjectWrite> writes = {
        {id, agents::to_object(agents::Charter{lineage, std::move(authority), caveats, std::nullopt}, 1)},
        {agents::allotment_id(id), agents::to_object(agents::Allotment{balance, 0, 0, 0}, 1)}};
    std::sort(writes.begin(), writes.end(),
              [](const auto& a, const auto& b) { return commit::HashOrder{}(a.id, b.id); });
    ASSERT_TRUE(state.apply(writes).ok());
  }

  exec::Transaction keyed_pay(std::uint64_t nonce, std::size_t signer = 1) const {
    return exec::make_signed(wallets()[signer].keys, params, keyed, nonce, exec::AgentPay{Id{}, 10}, std::nullopt,
                             crypto::Hedging::deterministic)
        .value();
  }

  // A batch of two members of the keyless agent, opened (as its object) by
  // `controller`.
  std::vector<exec::Transaction> members(const Id& controller) {
    const std::vector<exec::MemberIntent> intents = {{keyless, 0, exec::AgentPay{Id{}, 10}},
                                                     {keyless, 1, exec::AgentPay{Id{}, 20}}};
    const auto batch = exec::make_member_batch(params, intents).value();
    Id opening{};
    opening.fill(0xb0);
    const Id batch_id = agents::batch_id(opening);
    const std::vector<state::ObjectWrite> writes = {
        {batch_id, agents::to_object(agents::AuthBatch{controller, batch.root, batch.count(), 100}, 1)}};
    EXPECT_TRUE(state.apply(writes).ok());
    return batch.members(batch_id).value();
  }

  Id keyed{};
  Id keyless{};
};

TEST_F(AgentPoolTest, AdmitsAKeyedAgentsPaymentAtItsAllotmentsNonce) {
  TxPool txs = pool();
  const Insertion first = admit(txs, keyed_pay(0));
  ASSERT_TRUE(first.verdict.ok()) << first.verdict.reason;
  EXPECT_EQ(first.status, PoolStatus::pending);
  EXPECT_EQ(admit(txs, keyed_pay(2)).status, PoolStatus::held);
  EXPECT_EQ(refusal(txs, keyed_pay(3, /*another signer*/ 3)), PolicyCode::wrong_keys);
  // The allotment's nonce moves: what it passed leaves the pool.
  const std::vector<state::ObjectWrite> moved = {
      {agents::allotment_id(keyed), agents::to_object(agents::Allotment{150'000, 1, 0, 0}, 2)}};
  ASSERT_TRUE(state.apply(moved).ok());
  const auto removed = txs.on_pulse_committed({}, state).value();
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].reason, RemovalReason::stale_nonce);
  EXPECT_EQ(refusal(txs, keyed_pay(0)), PolicyCode::nonce_too_low);
}

TEST_F(AgentPoolTest, AnAllotmentThatCannotPayTheFeeIsRefused) {
  TxPool txs = pool();
  const std::vector<state::ObjectWrite> poor = {
      {agents::allotment_id(keyed), agents::to_object(agents::Allotment{10, 0, 0, 0}, 2)}};
  ASSERT_TRUE(state.apply(poor).ok());
  const Insertion refused = admit(txs, keyed_pay(0));
  EXPECT_EQ(refused.verdict.code, PolicyCode::fee_unpayable);
  EXPECT_NE(refused.verdict.reason.find("allotment holds 10"), std::string::npos) << refused.verdict.reason;
}

TEST_F(AgentPoolTest, AdmitsBatchMembersWhosePlacesProveThem) {
  TxPool txs = pool();
  const auto batch = members(wallets()[2].account);
  for (const auto& member : batch) {
    const Insertion admitted = admit(txs, member);
    EXPECT_TRUE(admitted.verdict.ok()) << admitted.verdict.reason;
  }
  EXPECT_EQ(txs.size(), 2u);
}

TEST_F(AgentPoolTest, RefusesMembersOutsideTheirBatch) {
  TxPool txs = pool();
  auto batch = members(wallets()[2].account);
  exec::Transaction moved = batch[1];
  auto place = *agents::member_place(moved.auth);
  place.index = 0;  // item 1 presented as item 0
  moved.auth = agents::member_auth(place);
  EXPECT_EQ(refusal(txs, moved), PolicyCode::bad_batch_place);
  exec::Transaction garbled = batch[0];
  garbled.auth.parts.clear();
  EXPECT_EQ(refusal(txs, garbled), PolicyCode::bad_batch_place);
  exec::Transaction unopened = batch[0];
  place = *agents::member_place(unopened.auth);
  place.batch.fill(0x99);
  unopened.auth = agents::member_auth(place);
  EXPECT_EQ(refusal(txs, unopened), PolicyCode::bad_batch_place);
  // A batch opened by someone other than the agent's controller.
  EXPECT_EQ(refusal(txs, members(wallets()[3].account)[0]), PolicyCode::bad_batch_place);
  // A member whose sender holds no charter.
  exec::Transaction stray = batch[0];
  stray.payload.sender = Id{};
  EXPECT_EQ(refusal(txs, stray), PolicyCode::not_an_agent);
}

}  // namespace
}  // namespace sion::policy

namespace sion::policy {
namespace {

// Settlements and closes of payment streams (docs/streams.md, "Mempool
// admission"): they name no coin and pay out of the stream, so the pool
// admits one only if the ledger's rules for it hold (the expiry aside).
class StreamPoolTest : public TxPoolTest {
 protected:
  void SetUp() override {
    TxPoolTest::SetUp();
    Id opening{};
    opening.fill(0xc0);
    stream_id = streams::stream_id(opening);
    seed.fill(0x77);
    const streams::Chain chain = streams::build_chain(seed, kLength).value();
    const streams::Stream stream{.payer = wallets()[0].account,
                                 .payee = wallets()[1].account,
                                 .price = 1'000,
                                 .length = kLength,
                                 .anchor = chain.anchor,
                                 .checkpoints = chain.root,
                                 .deposit = 50'000,
                                 .expiry_height = 100,
                                 .settled = 10,
                                 .settled_element = element(10)};
    const std::vector<state::ObjectWrite> writes = {{stream_id, streams::to_object(stream, 1)}};
    ASSERT_TRUE(state.apply(writes).ok());
  }

  exec::Transaction signed_by(std::size_t w, exec::TxBody body) const {
    return exec::make_signed(wallets()[w].keys, params, wallets()[w].account, 0, std::move(body), std::nullopt,
                             crypto::Hedging::deterministic)
        .value();
  }
  // x[index] = H^(length - index)(seed) (docs/streams.md, "The chain").
  Id element(std::uint32_t index) const { return streams::walk(seed, kLength - index); }
  exec::SettleStream settle(std::uint32_t index) const {
    return exec::SettleStream{stream_id, 10, index, element(index), std::nullopt};
  }
  std::string reason(TxPool& txs, const exec::Transaction& tx) const { return admit(txs, tx).verdict.reason; }

  static constexpr std::uint32_t kLength = 100;
  Id stream_id{};
  Id seed{};
};

TEST_F(StreamPoolTest, AdmitsTheStreamsOwnSettlementsAndCloses) {
  TxPool txs = pool();
  const Insertion settled = admit(txs, signed_by(1, settle(30)));
  EXPECT_TRUE(settled.verdict.ok()) << settled.verdict.reason;
  // The close's height is execution's to judge; the pool admits it.
  const Insertion closed = admit(txs, signed_by(0, exec::CloseStream{stream_id}));
  EXPECT_TRUE(closed.verdict.ok()) << closed.verdict.reason;
}

TEST_F(StreamPoolTest, RefusesWhatTheStreamCannotPayFor) {
  TxPool txs = pool();
  EXPECT_EQ(refusal(txs, signed_by(2, settle(30))), PolicyCode::fee_unpayable);  // not the payee
  EXPECT_EQ(refusal(txs, signed_by(1, settle(11))), PolicyCode::fee_unpayable);  // 1,000 owed: below the fee
  EXPECT_EQ(refusal(txs, signed_by(1, settle(61))), PolicyCode::fee_unpayable);  // past the deposit
  EXPECT_EQ(refusal(txs, signed_by(1, exec::CloseStream{stream_id})), PolicyCode::fee_unpayable);  // not the payer
  exec::SettleStream unknown = settle(30);
  unknown.stream = Id{};
  EXPECT_EQ(refusal(txs, signed_by(1, unknown)), PolicyCode::fee_unpayable);
  EXPECT_NE(reason(txs, signed_by(1, unknown)).find("unknown_stream"), std::string::npos);
}

// A claim whose hashing fails pays nothing, so the pool does the walk (and
// the path) before every validator would.
TEST_F(StreamPoolTest, RefusesAClaimWhoseWalkOrPathFails) {
  TxPool txs = pool();
  exec::SettleStream forged = settle(30);
  forged.element[0] ^= 1;
  EXPECT_EQ(refusal(txs, signed_by(1, forged)), PolicyCode::fee_unpayable);
  EXPECT_NE(reason(txs, signed_by(1, forged)).find("bad_stream_element"), std::string::npos);
  exec::SettleStream wrong_start = settle(30);
  wrong_start.from = 11;
  EXPECT_NE(reason(txs, signed_by(1, wrong_start)).find("wrong_walk_start"), std::string::npos);
  exec::SettleStream bad_path = settle(30);  // spacing 16: checkpoint 1 is x[16]
  bad_path.from = 16;
  bad_path.path = streams::CheckpointPath{};
  EXPECT_NE(reason(txs, signed_by(1, bad_path)).find("bad_checkpoint_path"), std::string::npos);
}

}  // namespace
}  // namespace sion::policy
