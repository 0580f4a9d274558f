// Pulses (docs/ledger.md, "Pulses"): the header's fields, proposing
// (rejected transactions left out) and checking (the first differing field
// named), the body codec's bounds, and the root of a write set without
// applying it.

#include "sion/exec/pulse_header.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ledger_fixture.hpp"
#include "sion/commit/smt_partial.hpp"

namespace sion::exec {
namespace {

using testing::id_of;
using testing::signer;

struct PulseFixture : ::testing::Test {
  const crypto::SigningBundle a = signer(1);
  const crypto::SigningBundle b = signer(2);
  testing::World world;
  PulseHeader parent;

  void SetUp() override { parent = genesis_header(world.state.root(), world.params); }

  Transaction tx(const crypto::SigningBundle& from, std::uint64_t nonce = 0) {
    return world.transfer(from, nonce, {world.fund(id_of(from), 10'000'000)}, {{Id{}, 1000}});
  }
  ProposedPulse propose(const std::vector<Transaction>& candidates, std::uint64_t time_ms = 1000) {
    auto proposed = propose_pulse(MemoryPreState(world.state), parent, candidates, time_ms, id_of(a), world.params);
    EXPECT_TRUE(proposed.ok()) << proposed.error().to_string();
    return std::move(proposed).value();
  }
  base::Result<CheckedPulse> check(const Pulse& pulse) {
    return check_pulse(MemoryPreState(world.state), parent, pulse, world.params);
  }
};

TEST_F(PulseFixture, ProposedHeaderHoldsWhatExecutionGives) {
  const std::vector<Transaction> txs = {tx(a), tx(b)};
  const ProposedPulse proposed = propose(txs, 1234);
  const PulseHeader& header = proposed.pulse.header;
  EXPECT_EQ(header.height, 1u);
  EXPECT_EQ(header.parent, pulse_hash(parent));
  EXPECT_EQ(header.time_ms, 1234u);
  EXPECT_EQ(header.proposer, id_of(a));
  EXPECT_EQ(header.params_hash, params_hash(world.params));
  EXPECT_EQ(header.transactions_root, transactions_root(txs));
  EXPECT_EQ(header.data, publish_pulse(txs).value().commitment);
  EXPECT_EQ(proposed.pulse.body, (codec::List<Transaction, kMaxPublishedTransactions>(txs)));

  auto outcome = execute_pulse(world.state, txs, world.params, 1);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(header.receipts_root, outcome->receipts_root);
  EXPECT_EQ(proposed.outcome.receipts, outcome->receipts);
  MemoryState after = world.state;
  EXPECT_EQ(header.state_root, after.apply(outcome->writes).value());

  auto checked = check(proposed.pulse);
  ASSERT_TRUE(checked.ok()) << checked.error().to_string();
  EXPECT_EQ(checked->outcome.receipts, proposed.outcome.receipts);
  EXPECT_EQ(checked->published.commitment, header.data);
  EXPECT_EQ(codec::encode(header).size(), kPulseHeaderBytes);
}

TEST_F(PulseFixture, TransactionsRootIsTheRfc6962TreeOverIds) {
  const std::vector<Transaction> txs = {tx(a), tx(b), tx(a, 1)};
  const auto leaf = [&](std::size_t i) { return commit::tagged_hash(commit::Domain::tx_leaf, tx_id(txs[i].payload)); };
  const auto node = [](const commit::Hash& l, const commit::Hash& r) {
    return commit::hash_node(commit::Domain::tx_node, l, r);
  };
  EXPECT_EQ(transactions_root({}), kTxRootHasher.empty());
  EXPECT_EQ(transactions_root(std::span(txs).first(1)), leaf(0));
  EXPECT_EQ(transactions_root(txs), node(node(leaf(0), leaf(1)), leaf(2)));
}

TEST_F(PulseFixture, RejectedCandidatesAreLeftOutAndTheRestIsReexecuted) {
  auto forged = tx(b);
  forged.auth.parts.at(0).at(3) ^= 1;  // bad_signature: counts usage
  const auto good = tx(a);
  const auto replay = good;  // wrong_nonce
  const ProposedPulse proposed = propose({forged, good, replay});
  ASSERT_EQ(proposed.pulse.body.size(), 1u);
  EXPECT_EQ(proposed.pulse.body[0], good);
  // The outcome is the body's own: no usage of the forged one.
  const std::vector<Transaction> body = {good};
  auto outcome = execute_pulse(world.state, body, world.params, 1);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(proposed.outcome.usage, outcome->usage);
  EXPECT_EQ(proposed.outcome.receipts, outcome->receipts);
  EXPECT_TRUE(check(proposed.pulse).ok());

  // A follower refuses a body holding a rejected transaction.
  Pulse with_replay = proposed.pulse;
  with_replay.body.push_back(replay);
  with_replay.header.transactions_root = transactions_root(with_replay.body);
  auto refused = check(with_replay);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, base::Errc::invalid_value);
  EXPECT_NE(refused.error().reason.find("transaction 1 is rejected (wrong_nonce)"), std::string::npos)
      << refused.error().reason;
}

TEST_F(PulseFixture, AnEmptyPulseIsAPulse) {
  const ProposedPulse proposed = propose({});
  EXPECT_TRUE(proposed.pulse.body.empty());
  EXPECT_EQ(proposed.pulse.header.state_root, world.state.root());
  EXPECT_EQ(proposed.pulse.header.transactions_root, kTxRootHasher.empty());
  EXPECT_TRUE(check(proposed.pulse).ok());
  auto decoded = decode_pulse(codec::encode(proposed.pulse), world.params.limits);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, proposed.pulse);
}

TEST_F(PulseFixture, CheckNamesTheFirstFieldThatDiffers) {
  const ProposedPulse proposed = propose({tx(a), tx(b)}, 5000);
  const auto expect_refused = [&](const char* field, auto&& tamper) {
    Pulse pulse = proposed.pulse;
    tamper(pulse.header);
    auto checked = check(pulse);
    ASSERT_FALSE(checked.ok()) << field;
    EXPECT_EQ(checked.error().code, base::Errc::invalid_value) << field;
    EXPECT_NE(checked.error().reason.find(std::string("pulse header: ") + field), std::string::npos)
        << checked.error().reason;
  };
  expect_refused("height", [](PulseHeader& h) { h.height = 2; });
  expect_refused("parent", [](PulseHeader& h) { h.parent[5] ^= 1; });
  expect_refused("params_hash", [](PulseHeader& h) { h.params_hash[0] ^= 1; });
  expect_refused("transactions_root", [](PulseHeader& h) { h.transactions_root[0] ^= 1; });
  expect_refused("receipts_root", [](PulseHeader& h) { h.receipts_root[0] ^= 1; });
  expect_refused("state_root", [](PulseHeader& h) { h.state_root[0] ^= 1; });
  expect_refused("data", [](PulseHeader& h) { h.data.data_bytes += 1; });
  // Time may not go back; equal is allowed.
  parent.time_ms = 5001;
  Pulse pulse = proposed.pulse;
  pulse.header.parent = pulse_hash(parent);
  auto checked = check(pulse);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.error().reason.find("pulse header: time_ms"), std::string::npos) << checked.error().reason;
  parent.time_ms = 5000;
  pulse.header.parent = pulse_hash(parent);
  EXPECT_TRUE(check(pulse).ok());
  // The proposer refuses to build on a later parent, too.
  parent.time_ms = 6000;
  EXPECT_EQ(propose_pulse(MemoryPreState(world.state), parent, {}, 5000, id_of(a), world.params).error().code,
            base::Errc::invalid_argument);
}

TEST_F(PulseFixture, DecodeBoundsTheBody) {
  const ProposedPulse proposed = propose({tx(a), tx(b)});
  const base::Bytes bytes = codec::encode(proposed.pulse);
  PulseLimits limits = world.params.limits;
  EXPECT_TRUE(decode_pulse(bytes, limits).ok());
  limits.max_transactions = 1;
  EXPECT_EQ(decode_pulse(bytes, limits).error().code, base::Errc::invalid_value);
  limits = world.params.limits;
  limits.max_bytes = 100;
  EXPECT_EQ(decode_pulse(bytes, limits).error().code, base::Errc::length_over_max);
  const base::Bytes body = codec::encode(proposed.pulse.body);
  EXPECT_EQ(decode_pulse_body(body, world.params.limits).value(),
            std::vector<Transaction>(proposed.pulse.body.begin(), proposed.pulse.body.end()));
  EXPECT_EQ(decode_pulse_body(body, limits).error().code, base::Errc::length_over_max);
  base::Bytes truncated = bytes;
  truncated.pop_back();
  EXPECT_FALSE(decode_pulse(truncated, world.params.limits).ok());
}

// commit::root_after: the root of updates, inserts and deletions, with
// the tree unchanged, equal to what applying them gives.
TEST(RootAfter, EqualsTheRootOfApplying) {
  testing::World world;
  std::vector<Id> ids;
  for (std::size_t i = 0; i < 200; ++i) ids.push_back(world.fund(Id{}, 1000 + i));
  const commit::Hash before = world.state.root();
  std::vector<state::ObjectWrite> writes;
  for (std::size_t i = 0; i < 200; i += 3) writes.push_back({ids[i], std::nullopt});                 // deletions
  for (std::size_t i = 1; i < 200; i += 6) writes.push_back({ids[i], to_object(Coin{Id{}, 5}, 2)});  // updates
  for (std::uint32_t i = 0; i < 20; ++i)
    writes.push_back({coin_id(Id{}, 10'000 + i), to_object(Coin{}, 1)});  // inserts
  std::sort(writes.begin(), writes.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
  auto root = MemoryPreState(world.state).root_after(writes);
  ASSERT_TRUE(root.ok()) << root.error().to_string();
  EXPECT_EQ(world.state.root(), before);
  MemoryState applied = world.state;
  EXPECT_EQ(*root, applied.apply(writes).value());
  // Deleting everything leaves the empty root.
  std::vector<state::ObjectWrite> all;
  for (const auto& [id, object] : world.state.objects()) all.push_back({id, std::nullopt});
  EXPECT_EQ(MemoryPreState(world.state).root_after(all).value(), commit::Hash{});
}

}  // namespace
}  // namespace sion::exec
