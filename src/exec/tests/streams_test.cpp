// Payment streams executed through exec's one dispatch (docs/streams.md):
// opening, settling walked and by checkpoint, closing, and each bad input
// with its exact receipt: a settlement or close that does not hold is
// rejected and writes nothing; an OpenStream that fails pays its fee.
#include <gtest/gtest.h>

#include <vector>

#include "ledger_fixture.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/trace.hpp"
#include "sion/streams/payee.hpp"
#include "sion/streams/payer.hpp"

namespace sion::exec::testing {
namespace {

using streams::Stream;
using streams::StreamPayee;
using streams::StreamPayer;

Id id_n(std::uint8_t n) {
  Id id{};
  id.fill(n);
  return id;
}

// A payer with one funded coin, a payee with nothing, and a chain of
// `length` steps (c = 8 for 50: checkpoints x[8] .. x[48]).
struct StreamWorld : World {
  crypto::SigningBundle payer_keys = signer(1);
  crypto::SigningBundle payee_keys = signer(2);
  Id payer = id_of(payer_keys);
  Id payee = id_of(payee_keys);
  std::map<Id, std::uint64_t> nonces;
  Id payer_coin;
  StreamPayer chain;
  std::vector<streams::Payment> payments;  // x[1 .. length]

  explicit StreamWorld(std::uint32_t length = 50)
      : payer_coin(fund(payer, 1'000'000'000)), chain(StreamPayer::create(id_n(0x5e), length).value()) {
    auto revealing = chain;
    for (std::uint32_t i = 0; i < length; ++i) payments.push_back(revealing.next().value());
  }

  Transaction signed_by(const crypto::SigningBundle& keys, TxBody body, std::optional<Amount> fee = std::nullopt) {
    const Id sender = id_of(keys);
    return make_signed(keys, params, sender, nonces[sender]++, std::move(body), fee, crypto::Hedging::deterministic)
        .value();
  }

  OpenStream open_body(Amount price, Amount deposit, std::uint64_t expiry) const {
    return OpenStream{payee,   price,  chain.length(), chain.anchor(), chain.checkpoint_root(),
                      deposit, expiry, {payer_coin}};
  }
  // Opens a stream and returns its id.
  Id open(Amount price, Amount deposit, std::uint64_t expiry) {
    const Transaction tx = signed_by(payer_keys, open_body(price, deposit, expiry));
    const Receipt receipt = run({tx}).receipts.at(0);
    EXPECT_EQ(receipt.status, TxStatus::success);
    payer_coin = coin_id(receipt.tx_id, 0);
    return streams::stream_id(receipt.tx_id);
  }
  std::optional<Stream> stream(const Id& id) const {
    const auto it = state.objects().find(id);
    if (it == state.objects().end()) return std::nullopt;
    return streams::stream_from(it->second).value();
  }
  // The payee side, having accepted payments 1 .. accepted.
  StreamPayee payee_at(const Id& id, std::uint32_t accepted) const {
    Stream opened = stream(id).value();  // as it was opened: what was settled back in the deposit
    opened.deposit += Amount{opened.settled} * opened.price;
    opened.settled = 0;
    opened.settled_element = chain.anchor();
    StreamPayee side = StreamPayee::open(id, opened, chain.checkpoints()).value();
    for (std::uint32_t i = 0; i < accepted; ++i) {
      const streams::PaymentVerdict verdict = side.accept(payments[i]);
      EXPECT_TRUE(verdict) << i << ": " << verdict.reason;
    }
    return side;
  }
  SettleStream walked(const Id& id, std::uint32_t from, std::uint32_t index) const {
    return SettleStream{id, from, index, payments[index - 1].element, std::nullopt};
  }
  // A rejection: its status, no fee, nothing written.
  void expect_rejected(const Transaction& tx, TxStatus status) {
    const PulseOutcome outcome = run({tx});
    EXPECT_EQ(outcome.receipts.at(0).status, status);
    EXPECT_EQ(outcome.receipts.at(0).fee_paid, 0u);
    EXPECT_TRUE(outcome.writes.empty());
    --nonces[tx.payload.sender];  // a rejection does not move the nonce
  }
  // All value: coins, deposits left, and fees burned so far.
  Amount value() const {
    Amount total = burned;
    for (const auto& [id, object] : state.objects()) {
      if (object.type == static_cast<std::uint32_t>(ObjectType::coin)) total += coin_from(object).value().amount;
      if (object.type == static_cast<std::uint32_t>(ObjectType::stream)) {
        total += streams::stream_from(object).value().deposit;
      }
    }
    return total;
  }
  Amount burned = 0;
  PulseOutcome run(const std::vector<Transaction>& txs) {
    PulseOutcome outcome = World::run(txs);
    burned += outcome.fees;
    return outcome;
  }
  void advance_to(std::uint64_t target) {
    while (height + 1 < target) run({});
  }
};

TEST(Streams, OpenSettleByCheckpointThenWalkedThenToTheEnd) {
  StreamWorld w;
  const Amount before = w.value();
  const Id id = w.open(1000, 45'000, 100);
  const Stream opened = w.stream(id).value();
  EXPECT_EQ(opened.payer, w.payer);
  EXPECT_EQ(opened.deposit, 45'000u);
  EXPECT_EQ(opened.settled, 0u);
  EXPECT_EQ(opened.settled_element, w.chain.anchor());
  EXPECT_EQ(w.value(), before);

  // By checkpoint at 20: walks 4 steps to x[16], checkpoint 2.
  const SettleStream first = w.payee_at(id, 20).settle_by_checkpoint().value();
  EXPECT_EQ(first.from, 16u);
  const Transaction tx = w.signed_by(w.payee_keys, first);
  EXPECT_EQ(tx.payload.fee, exec::required_fee(tx, w.params.fees).value());
  const PulseOutcome outcome = w.run({tx});
  const Receipt receipt = outcome.receipts.at(0);
  ASSERT_EQ(receipt.status, TxStatus::success);
  EXPECT_EQ(receipt.coins_created, 1u);
  EXPECT_EQ(w.coin(coin_id(receipt.tx_id, 0)).value(), (Coin{w.payee, 20'000 - tx.payload.fee}));
  EXPECT_EQ(w.stream(id)->settled, 20u);
  EXPECT_EQ(w.stream(id)->deposit, 25'000u);
  EXPECT_EQ(w.account(w.payee_keys)->nonce, 1u);
  EXPECT_EQ(w.value(), before);

  // Walked from 20 to 30.
  ASSERT_EQ(w.run({w.signed_by(w.payee_keys, w.walked(id, 20, 30))}).receipts.at(0).status, TxStatus::success);
  EXPECT_EQ(w.stream(id)->settled, 30u);

  // A deposit of 45 steps: settling 45 leaves 0, less than a step: the
  // stream is used up and deleted, nothing to refund.
  const Transaction last = w.signed_by(w.payee_keys, w.payee_at(id, 45).settle_by_checkpoint().value());
  const Receipt end = w.run({last}).receipts.at(0);
  ASSERT_EQ(end.status, TxStatus::success);
  EXPECT_EQ(end.coins_created, 1u);
  EXPECT_FALSE(w.stream(id).has_value());
  EXPECT_EQ(w.value(), before);
}

TEST(Streams, SettlingTheWholeChainReturnsWhatIsLeftOfTheDeposit) {
  StreamWorld w(50);
  // 45 steps use up 45,000 of 45,500: the 500 left is below a step's price.
  const Id id = w.open(1000, 45'500, 100);
  const Transaction tx = w.signed_by(w.payee_keys, w.payee_at(id, 45).settle_by_checkpoint().value());
  const Receipt receipt = w.run({tx}).receipts.at(0);
  ASSERT_EQ(receipt.status, TxStatus::success);
  EXPECT_EQ(receipt.coins_created, 2u);
  EXPECT_EQ(w.coin(coin_id(receipt.tx_id, 0)).value(), (Coin{w.payee, 45'000 - tx.payload.fee}));
  EXPECT_EQ(w.coin(coin_id(receipt.tx_id, 1)).value(), (Coin{w.payer, 500}));
  EXPECT_FALSE(w.stream(id).has_value());
}

TEST(Streams, EachBadSettlementIsRejectedAndWritesNothing) {
  StreamWorld w;
  const Id id = w.open(1000, 40'000, 20);
  ASSERT_EQ(w.run({w.signed_by(w.payee_keys, w.walked(id, 0, 10))}).receipts.at(0).status, TxStatus::success);
  const auto settle = [&](SettleStream body) { return w.signed_by(w.payee_keys, std::move(body)); };

  // Forged: the element of another index, or a flipped bit.
  SettleStream forged = w.walked(id, 10, 12);
  forged.element = w.payments[12].element;
  w.expect_rejected(settle(forged), TxStatus::bad_stream_element);
  forged.element = w.payments[11].element;
  forged.element[31] ^= 1;
  w.expect_rejected(settle(forged), TxStatus::bad_stream_element);
  // Reordered: at or below the settled index.
  w.expect_rejected(settle(w.walked(id, 10, 10)), TxStatus::index_not_above_settled);
  w.expect_rejected(settle(w.walked(id, 0, 5)), TxStatus::index_not_above_settled);
  // Walked from somewhere other than the settled index.
  w.expect_rejected(settle(w.walked(id, 8, 12)), TxStatus::wrong_walk_start);
  // By checkpoint: a wrong path, a wrong start, the anchor with a path.
  SettleStream by_checkpoint = w.payee_at(id, 30).settle_by_checkpoint().value();
  ASSERT_EQ(by_checkpoint.from, 24u);
  SettleStream bad_path = by_checkpoint;
  (*bad_path.path)[0][0] ^= 1;
  w.expect_rejected(settle(bad_path), TxStatus::bad_checkpoint_path);
  bad_path = by_checkpoint;
  bad_path.element = w.payments[30].element;  // x[31] walked 6 steps is x[25]
  w.expect_rejected(settle(bad_path), TxStatus::bad_checkpoint_path);
  bad_path = by_checkpoint;
  bad_path.from = 16;
  w.expect_rejected(settle(bad_path), TxStatus::wrong_walk_start);
  // Past the deposit (40 steps) and past the end (50).
  w.expect_rejected(settle(w.walked(id, 10, 41)), TxStatus::beyond_deposit);
  SettleStream past_end = w.walked(id, 10, 50);
  past_end.index = 51;
  w.expect_rejected(settle(past_end), TxStatus::index_past_end);
  // Not the payee; an unknown stream.
  w.expect_rejected(w.signed_by(w.payer_keys, w.walked(id, 10, 12)), TxStatus::not_stream_payee);
  SettleStream unknown = w.walked(id, 10, 12);
  unknown.stream = id_n(0x77);
  w.expect_rejected(settle(unknown), TxStatus::unknown_stream);
  // Owed no more than the fee: 1 step of 1000 against a fee of thousands.
  w.expect_rejected(settle(w.walked(id, 10, 11)), TxStatus::fee_unpayable);
  // A fee below what its walk costs.
  const SettleStream long_walk = w.walked(id, 10, 30);
  const Transaction priced = settle(long_walk);
  --w.nonces[w.payee];
  w.expect_rejected(w.signed_by(w.payee_keys, long_walk, priced.payload.fee - 1), TxStatus::fee_too_low);

  // The good checkpoint settlement still goes through; after expiry nothing does.
  ASSERT_EQ(w.run({settle(by_checkpoint)}).receipts.at(0).status, TxStatus::success);
  w.advance_to(21);
  w.expect_rejected(settle(w.walked(id, 30, 35)), TxStatus::stream_expired);
}

TEST(Streams, CloseOnlyAfterExpiryAndOnlyOnce) {
  StreamWorld w;
  const Id id = w.open(1000, 40'000, 5);
  w.expect_rejected(w.signed_by(w.payer_keys, CloseStream{id}), TxStatus::stream_not_expired);
  // The payee's final settlement at the expiry height wins over the close.
  w.advance_to(5);
  ASSERT_EQ(w.run({w.signed_by(w.payee_keys, w.walked(id, 0, 10))}).receipts.at(0).status, TxStatus::success);
  w.expect_rejected(w.signed_by(w.payee_keys, CloseStream{id}), TxStatus::not_stream_payer);
  const Transaction close = w.signed_by(w.payer_keys, CloseStream{id});
  const Receipt receipt = w.run({close}).receipts.at(0);
  ASSERT_EQ(receipt.status, TxStatus::success);
  EXPECT_EQ(receipt.fee_paid, close.payload.fee);
  EXPECT_EQ(w.coin(coin_id(receipt.tx_id, 0)).value(), (Coin{w.payer, 30'000 - close.payload.fee}));
  EXPECT_FALSE(w.stream(id).has_value());
  w.expect_rejected(w.signed_by(w.payer_keys, CloseStream{id}), TxStatus::unknown_stream);
}

TEST(Streams, AMalformedOpeningFailsAndPaysItsFee) {
  StreamWorld w;
  const auto expect_malformed = [&](OpenStream body) {
    const Transaction tx = w.signed_by(w.payer_keys, std::move(body));
    const PulseOutcome outcome = w.run({tx});
    EXPECT_EQ(outcome.receipts.at(0).status, TxStatus::stream_malformed);
    EXPECT_EQ(outcome.receipts.at(0).fee_paid, tx.payload.fee);
    // The fee coin spent, its rest returned, the account's nonce: nothing else.
    EXPECT_EQ(outcome.writes.size(), 3u);
    w.payer_coin = coin_id(outcome.receipts.at(0).tx_id, 0);
  };
  expect_malformed(w.open_body(0, 100, 100));        // price 0
  expect_malformed(w.open_body(10, 9, 100));         // deposit below one step
  expect_malformed(w.open_body(10, 501, 100));       // deposit above the whole chain
  expect_malformed(w.open_body(10, 100, w.height));  // expiry not ahead (the next Pulse is at height + 1)
  OpenStream empty = w.open_body(10, 100, 100);
  empty.length = 0;
  expect_malformed(empty);
  OpenStream poor = w.open_body(10, 500, 100);
  poor.coins = {coin_id(w.genesis_tx, w.next)};  // the coin funded next: the fee and 400, not the deposit
  const Amount fee = signed_fee(w.payer_keys.public_bundle(), w.params, w.payer, w.nonces[w.payer], poor).value();
  ASSERT_EQ(w.fund(w.payer, fee + 400), poor.coins[0]);
  const Transaction tx = w.signed_by(w.payer_keys, poor);
  EXPECT_EQ(w.run({tx}).receipts.at(0).status, TxStatus::insufficient_funds);
}

TEST(Streams, AnAgentOpensAStreamWithinItsCaveats) {
  StreamWorld w;
  agents::Caveats c;
  c.expiry_height = 1000;
  c.per_payment = 100;
  c.period_cap = 8'000;
  c.period_length = 100;
  c.actions = agents::kAllActions;
  c.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  const crypto::SigningBundle agent_keys = signer(9);
  const Transaction spawn =
      w.signed_by(w.payer_keys, SpawnAgent{0, agents::Keyed{agent_keys.id()}, c, 100'000, agents::Coins{w.payer_coin}});
  ASSERT_EQ(w.run({spawn}).receipts.at(0).status, TxStatus::success);
  const Id agent = agents::lineage_id(agents::child_of_account(w.payer, 0));
  const auto by_agent = [&](OpenStream body) {
    body.coins.clear();
    return make_signed(agent_keys, w.params, agent, w.nonces[agent]++, std::move(body), std::nullopt,
                       crypto::Hedging::deterministic)
        .value();
  };
  EXPECT_EQ(w.run({by_agent(w.open_body(101, 5'000, 100))}).receipts.at(0).status, TxStatus::above_per_payment);
  EXPECT_EQ(w.run({by_agent(w.open_body(100, 5'000, 100))}).receipts.at(0).status, TxStatus::success);
  EXPECT_EQ(w.run({by_agent(w.open_body(100, 5'000, 100))}).receipts.at(0).status, TxStatus::above_period_cap);
  // An agent settles nothing: settling is an account's (the payee's).
  const Transaction settle = make_signed(agent_keys, w.params, agent, w.nonces[agent]++, CloseStream{id_n(1)},
                                         std::nullopt, crypto::Hedging::deterministic)
                                 .value();
  EXPECT_EQ(w.run({settle}).receipts.at(0).status, TxStatus::action_not_allowed);
}

// Every kind, traced and replayed statelessly from its witnesses alone.
TEST(Streams, EveryKindReplaysStatelessly) {
  StreamWorld w;
  const Id id = w.open(1000, 40'000, 3);
  const Id second = w.open(1000, 40'000, 100);
  w.advance_to(4);
  std::vector<Transaction> txs;
  txs.push_back(w.signed_by(w.payer_keys, w.open_body(10, 100, 50)));
  txs.push_back(w.signed_by(w.payee_keys, w.payee_at(second, 30).settle_by_checkpoint().value()));
  txs.push_back(w.signed_by(w.payee_keys, w.walked(second, 30, 35)));
  txs.push_back(w.signed_by(w.payer_keys, CloseStream{id}));
  txs.push_back(w.signed_by(w.payer_keys, CloseStream{id}));  // rejected: closed already

  TraceOptions options;
  options.max_txs_per_chunk = 2;
  const std::uint64_t height = w.height + 1;
  const TracedPulse traced = trace_pulse(w.state, txs, w.params, height, options).value();
  const PulseOutcome reference = execute_pulse(w.state, txs, w.params, height).value();
  EXPECT_EQ(traced.outcome.receipts, reference.receipts);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(reference.receipts[i].status, TxStatus::success) << i;
  EXPECT_EQ(reference.receipts[4].status, TxStatus::unknown_stream);
  ReplayPoint at = ReplayPoint::start(w.state.root(), height);
  for (const TracedChunk& chunk : traced.chunks) {
    const std::span<const Transaction> chunk_txs(txs.data() + chunk.first_tx, chunk.tx_count);
    auto replayed = replay_chunk(at, chunk, chunk_txs, w.params);
    ASSERT_TRUE(replayed.ok()) << replayed.error().to_string();
    at = *replayed;
  }
  auto post = w.state;
  EXPECT_EQ(at.root, commit_pulse(post, reference).value());
  EXPECT_EQ(at.next_tx, txs.size());
}

// The walks a Pulse pre-computes in lanes are the walks step 7 would make,
// for every settlement within the Pulse's limits, and for none past them.
TEST(Streams, SettlementsWithinTheLimitsAreWalkedBeforeThePulse) {
  StreamWorld w;
  std::vector<Transaction> txs;
  for (std::uint32_t k = 0; k < 11; ++k) {
    // Walks of different lengths: lanes finish at different rounds.
    txs.push_back(w.signed_by(w.payee_keys, SettleStream{id_n(7), k, 3 * k + 1, w.payments[k].element, std::nullopt}));
  }
  txs.push_back(w.signed_by(w.payer_keys, CloseStream{id_n(7)}));
  const std::vector<TxPrecheck> prechecks = precheck_transactions(txs, w.params, PulseOptions{});
  for (std::size_t k = 0; k < 11; ++k) {
    const auto& body = std::get<SettleStream>(txs[k].payload.body);
    ASSERT_TRUE(prechecks[k].body_digest.has_value()) << k;
    EXPECT_EQ(*prechecks[k].body_digest, streams::walk(body.element, body.index - body.from)) << k;
  }
  EXPECT_FALSE(prechecks[11].body_digest.has_value());  // no walk

  // A settlement past the Pulse's verify units is not walked ahead: step 3
  // rejects it, and no proposer makes a node hash more than a Pulse's worth.
  ChainParams tight = w.params;
  tight.limits.max_verify_units = tx_usage(txs[0]).verify_units;
  const std::vector<TxPrecheck> limited = precheck_transactions(txs, tight, PulseOptions{});
  EXPECT_TRUE(limited[0].body_digest.has_value());
  for (std::size_t k = 1; k < 11; ++k) EXPECT_FALSE(limited[k].body_digest.has_value()) << k;
}

}  // namespace
}  // namespace sion::exec::testing
