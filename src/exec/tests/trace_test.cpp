// Traced execution and stateless replay (docs/ledger.md, "Tracing and
// stateless replay"): chunks replayed from their witnesses alone reach the
// roots full execution reaches; tampered witnesses are rejected with a reason.
#include "sion/exec/trace.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "ledger_fixture.hpp"
#include "sion/exec/apply.hpp"

namespace sion::exec {
namespace {

using testing::id_of;
using testing::signer;

std::span<const Transaction> chunk_txs(const std::vector<Transaction>& txs, const TracedChunk& chunk) {
  return std::span<const Transaction>(txs).subspan(chunk.first_tx, chunk.tx_count);
}

// Traces `txs` on `pre`, checks the outcome is execute_pulse's, replays every
// chunk and checks the roots chain from the pre-state root to the committed
// post-state root. Returns the trace.
TracedPulse check_both_ways(const MemoryState& pre, const std::vector<Transaction>& txs, const ChainParams& params,
                            const TraceOptions& options) {
  auto traced = trace_pulse(pre, txs, params, 1, options);
  EXPECT_TRUE(traced.ok()) << traced.error().to_string();
  if (!traced) return {};
  const auto reference = execute_pulse(pre, txs, params, 1).value();
  EXPECT_EQ(traced->outcome.receipts, reference.receipts);
  EXPECT_EQ(traced->outcome.writes.size(), reference.writes.size());
  for (std::size_t i = 0; i < std::min(reference.writes.size(), traced->outcome.writes.size()); ++i) {
    EXPECT_EQ(traced->outcome.writes[i].id, reference.writes[i].id) << i;
    EXPECT_EQ(traced->outcome.writes[i].object, reference.writes[i].object) << i;
  }
  EXPECT_EQ(traced->outcome.receipts_root, reference.receipts_root);
  EXPECT_EQ(traced->outcome.fees, reference.fees);
  EXPECT_EQ(traced->outcome.usage, reference.usage);

  auto post = pre;
  const commit::Hash final_root = commit_pulse(post, reference).value();
  commit::Hash root = pre.root();
  std::uint32_t next = 0;
  ReplayPoint at = ReplayPoint::start(pre.root(), 1);
  for (const auto& chunk : traced->chunks) {
    EXPECT_EQ(chunk.first_tx, next);
    EXPECT_GE(chunk.tx_count, 1u);
    EXPECT_LE(chunk.tx_count, options.max_txs_per_chunk);
    EXPECT_EQ(chunk.witness.pre_root, root);
    const auto replayed = replay_chunk(at, chunk, chunk_txs(txs, chunk), params);
    EXPECT_TRUE(replayed.ok()) << "chunk at " << chunk.first_tx << ": " << replayed.error().to_string();
    if (replayed) {
      EXPECT_EQ(replayed->root, chunk.post_root);
      EXPECT_EQ(replayed->next_tx, chunk.first_tx + chunk.tx_count);
      at = *replayed;
    }
    // The codec round trip: a witness travels as bytes.
    EXPECT_EQ(codec::decode<TracedChunk>(codec::encode(chunk)).value(), chunk);
    root = chunk.post_root;
    next += chunk.tx_count;
  }
  EXPECT_EQ(next, txs.size());
  EXPECT_EQ(root, final_root);
  EXPECT_EQ(at.root, final_root);
  EXPECT_EQ(at.usage, reference.usage);
  return std::move(traced).value();
}

// A small world: alice (new account), bob, carol; alice spends twice in a
// row, bob spends a coin alice creates in the same Pulse.
struct SmallPulse {
  testing::World world;
  crypto::SigningBundle alice = signer(1);
  crypto::SigningBundle bob = signer(2);
  crypto::SigningBundle carol = signer(3);
  std::vector<Transaction> txs;

  SmallPulse() {
    const Id a1 = world.fund(id_of(alice), 1'000'000);
    const Id a2 = world.fund(id_of(alice), 1'000'000);
    const Id b1 = world.fund(id_of(bob), 1'000'000);
    world.open_account(bob);
    world.fund(id_of(carol), 5);
    txs.push_back(world.transfer(alice, 0, {a1}, {{id_of(bob), 400'000}}));
    txs.push_back(world.transfer(alice, 1, {a2}, {{id_of(carol), 10'000}}));
    // The coin alice's first transfer made for bob: coin_id(tx, 0).
    const Id from_alice = coin_id(tx_id(txs[0].payload), 0);
    txs.push_back(world.transfer(bob, 0, {b1, from_alice}, {{id_of(carol), 600'000}}));
  }
};

TEST(Trace, EveryChunkReplaysToTheRootFullExecutionReaches) {
  SmallPulse small;
  for (const std::size_t limit : {std::size_t{1}, std::size_t{2}, std::size_t{64}}) {
    TraceOptions options;
    options.max_txs_per_chunk = limit;
    const auto traced = check_both_ways(small.world.state, small.txs, small.world.params, options);
    EXPECT_EQ(traced.chunks.size(), (small.txs.size() + limit - 1) / limit) << limit;
    for (const auto& receipt : traced.outcome.receipts) EXPECT_EQ(receipt.status, TxStatus::success);
  }
}

TEST(Trace, TheWitnessHoldsReadsAndWritesAndProvesNeighboursOfDeletions) {
  SmallPulse small;
  const auto traced = trace_pulse(small.world.state, small.txs, small.world.params, 1).value();
  ASSERT_EQ(traced.chunks.size(), 1u);
  const auto& objects = traced.chunks[0].witness.objects;
  ASSERT_TRUE(std::is_sorted(objects.begin(), objects.end(),
                             [](const WitnessObject& a, const WitnessObject& b) { return a.id < b.id; }));
  const auto holds = [&](const Id& id) {
    return std::any_of(objects.begin(), objects.end(), [&](const WitnessObject& o) { return o.id == id; });
  };
  EXPECT_TRUE(holds(id_of(small.alice)));  // read, absent: a new account
  EXPECT_TRUE(holds(id_of(small.bob)));
  for (const auto& write : traced.outcome.writes) EXPECT_TRUE(holds(write.id));
  // Each deleted id's neighbour on its sibling's side: the one sharing the
  // longer prefix, that is the greater key in byte order of the XORs.
  for (const auto& write : traced.outcome.writes) {
    if (write.object) continue;
    const auto [below, above] = small.world.state.tree().neighbours(write.id);
    ASSERT_TRUE(below || above);
    const auto distance = [&](const Id& other) {
      Id x{};
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(write.id[i] ^ other[i]);
      return x;
    };
    const Id& sibling_side = !above || (below && distance(*below) < distance(*above)) ? *below : *above;
    // Proved (the tree needs its leaf), not listed as an object.
    const auto& leaves = traced.chunks[0].witness.proof.leaves;
    EXPECT_TRUE(std::any_of(leaves.begin(), leaves.end(), [&](const auto& leaf) { return leaf.key == sibling_side; }));
  }
  // The coin alice made and bob spent in the same chunk never reaches the
  // pre-state: it is neither read from nor written to the tree.
  EXPECT_FALSE(holds(coin_id(tx_id(small.txs[0].payload), 0)));
}

TEST(Trace, DeletionsThatEmptyWholeSubtrees) {
  // Alice's coins are the whole pre-state and she spends them all, in one
  // transaction and then over several: the tree empties and refills.
  const auto alice = signer(1);
  const auto bob = signer(2);
  for (const std::size_t per_tx : {std::size_t{6}, std::size_t{2}, std::size_t{1}}) {
    testing::World world;
    std::vector<Id> coins;
    for (int k = 0; k < 6; ++k) coins.push_back(world.fund(id_of(alice), 100'000));
    std::vector<Transaction> txs;
    for (std::size_t first = 0; first < coins.size(); first += per_tx) {
      const std::vector<Id> inputs(coins.begin() + static_cast<std::ptrdiff_t>(first),
                                   coins.begin() + static_cast<std::ptrdiff_t>(first + per_tx));
      txs.push_back(world.transfer(alice, txs.size(), inputs, {{id_of(bob), 1000}}));
    }
    for (const std::size_t limit : {std::size_t{1}, std::size_t{64}}) {
      TraceOptions options;
      options.max_txs_per_chunk = limit;
      const auto traced = check_both_ways(world.state, txs, world.params, options);
      for (const auto& receipt : traced.outcome.receipts) EXPECT_EQ(receipt.status, TxStatus::success);
    }
  }
}

// Random Pulses: transfers that succeed and fail, new accounts, double
// spends, coins created earlier in the Pulse spent again, wrong nonces, bad
// signatures, another chain. Hybrid keys keep signing fast.
struct RandomPulse {
  testing::World world;
  std::vector<crypto::SigningBundle> users;
  std::vector<Transaction> txs;

  explicit RandomPulse(std::uint32_t seed, std::size_t count) {
    std::mt19937_64 rng(seed);
    const auto pick = [&rng](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    for (std::uint8_t s = 0; s < 6; ++s) users.push_back(signer(static_cast<std::uint8_t>(40 + s)));
    std::vector<Id> coins;  // every coin id seen, spent or not
    for (std::size_t u = 0; u < users.size(); ++u) {
      for (int k = 0; k < 3; ++k) coins.push_back(world.fund(id_of(users[u]), 200'000 + 1000 * (rng() % 500)));
      if (u % 2 == 0) world.open_account(users[u]);  // the others are new accounts
    }
    // Follows the Pulse as it goes, to pick mostly sensible inputs.
    Overlay sim(world.state);
    PulseUsage usage;
    const auto coin_of = [&](const Id& id) -> std::optional<Coin> {
      const auto object = sim.get(id).value();
      if (!object) return std::nullopt;
      return coin_from(*object).value();
    };
    for (std::size_t t = 0; t < count; ++t) {
      const auto& from = users[pick(users.size())];
      const auto account = sim.get(id_of(from)).value();
      std::uint64_t nonce = account ? account_from(*account).value().nonce : 0;
      if (pick(20) == 0) nonce += 1;  // wrong_nonce
      std::vector<Id> owned;
      for (const Id& id : coins) {
        const auto coin = coin_of(id);
        if (coin && coin->owner == id_of(from)) owned.push_back(id);
      }
      std::vector<Id> inputs;
      if (!owned.empty() && pick(12) != 0) {
        inputs.push_back(owned[pick(owned.size())]);
      } else {
        inputs.push_back(coins[pick(coins.size())]);  // maybe spent or another's: fee_unpayable
      }
      for (std::size_t extra = pick(3); extra > 0; --extra) {
        switch (pick(6)) {
          case 0: inputs.push_back(coins[pick(coins.size())]); break;  // spent, another's, or a duplicate
          case 1: inputs.push_back(inputs[0]); break;                  // duplicate_input
          default:
            if (!owned.empty()) inputs.push_back(owned[pick(owned.size())]);
        }
      }
      Amount held = 0;
      for (const Id& id : inputs) {
        if (const auto coin = coin_of(id)) held += coin->amount;
      }
      std::vector<Output> outputs;
      for (std::size_t o = 1 + pick(3); o > 0; --o) {
        const Id to = pick(4) == 0
                          ? commit::tagged_hash(commit::Domain::transaction, base::as_bytes(std::to_string(rng())))
                          : id_of(users[pick(users.size())]);
        Amount amount = held / 8 + rng() % 1000;
        if (pick(25) == 0) amount = 0;                 // zero_amount
        if (pick(25) == 0) amount = held + 1'000'000;  // insufficient_funds
        outputs.push_back({to, amount});
      }
      ChainParams params = world.params;
      if (pick(40) == 0) params.chain_id += 1;  // wrong_chain
      Transaction tx =
          make_transfer(from, params, nonce, inputs, outputs, std::nullopt, crypto::Hedging::deterministic).value();
      if (pick(30) == 0) tx.auth.parts.at(0).at(5) ^= 1;  // bad_signature
      const auto receipt = apply_transaction(sim, tx, std::nullopt, world.params, 1, usage).value();
      for (std::uint32_t k = 0; k < receipt.coins_created; ++k) coins.push_back(coin_id(receipt.tx_id, k));
      txs.push_back(std::move(tx));
    }
  }
};

TEST(Trace, RandomPulsesReplayToTheSameRootsForEveryChunking) {
  for (const std::uint32_t seed : {1u, 2u, 3u, 4u}) {
    const RandomPulse random(seed, 48);
    std::map<TxStatus, int> seen;
    for (const std::size_t limit : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
      base::Executor executor(2);
      TraceOptions options;
      options.max_txs_per_chunk = limit;
      options.executor = &executor;
      const auto traced = check_both_ways(random.world.state, random.txs, random.world.params, options);
      for (const auto& receipt : traced.outcome.receipts) ++seen[receipt.status];
    }
    // The generator reaches successes, failures and rejections alike.
    EXPECT_GT(seen[TxStatus::success], 0) << seed;
    EXPECT_GT(seen.size(), 3u) << seed;
  }
}

TEST(Trace, TheWitnessSizeLimitCutsChunks) {
  const RandomPulse random(9, 40);
  TraceOptions options;
  options.max_witness_bytes = 6u << 10;
  const auto traced = check_both_ways(random.world.state, random.txs, random.world.params, options);
  EXPECT_GT(traced.chunks.size(), 1u);
  for (const auto& chunk : traced.chunks) {
    if (chunk.tx_count > 1) {
      EXPECT_LE(codec::encoded_size(chunk.witness), options.max_witness_bytes);
    }
  }
  options.max_witness_bytes = 1;  // every chunk: one transaction, the minimum
  EXPECT_EQ(check_both_ways(random.world.state, random.txs, random.world.params, options).chunks.size(),
            random.txs.size());
}

// ---- Rejections -------------------------------------------------------------

struct Tampering : ::testing::Test {
  SmallPulse small;
  TracedChunk chunk;
  void SetUp() override {
    auto traced = trace_pulse(small.world.state, small.txs, small.world.params, 1).value();
    ASSERT_EQ(traced.chunks.size(), 1u);
    chunk = traced.chunks[0];
    ASSERT_TRUE(replay_chunk(start(), chunk, small.txs, small.world.params).ok());
  }
  ReplayPoint start() const { return ReplayPoint::start(small.world.state.root(), 1); }
  std::string rejection(const TracedChunk& c, const std::vector<Transaction>& txs) const {
    const auto result = replay_chunk(start(), c, txs, small.world.params);
    EXPECT_FALSE(result.ok());
    return result ? std::string{} : result.error().reason;
  }
  std::size_t index_of(const Id& id) const {
    const auto& objects = chunk.witness.objects;
    return static_cast<std::size_t>(
        std::find_if(objects.begin(), objects.end(), [&](const WitnessObject& o) { return o.id == id; }) -
        objects.begin());
  }
};

TEST_F(Tampering, AFlippedObjectByte) {
  TracedChunk bad = chunk;
  auto& object = bad.witness.objects.at(index_of(id_of(small.bob))).object;
  ASSERT_TRUE(object);
  object->data.at(3) ^= 1;
  const std::string reason = rejection(bad, small.txs);
  EXPECT_NE(reason.find("object " + base::to_hex(id_of(small.bob)) + " does not match the proof"), std::string::npos)
      << reason;
}

TEST_F(Tampering, AnObjectClaimedAbsentOrPresent) {
  TracedChunk bad = chunk;
  bad.witness.objects.at(index_of(id_of(small.bob))).object.reset();
  EXPECT_NE(rejection(bad, small.txs).find("does not match the proof"), std::string::npos);
  bad = chunk;
  bad.witness.objects.at(index_of(id_of(small.alice))).object = to_object(Account{small.alice.id(), 0}, 1);
  EXPECT_NE(rejection(bad, small.txs).find("does not match the proof"), std::string::npos);
}

TEST_F(Tampering, ADroppedObject) {
  // Dropped with the proof left as it was. A proof of a key set also walks
  // for a subset, so the partial tree may accept it; the read of bob's
  // account is refused either way.
  TracedChunk bad = chunk;
  const std::size_t bob = index_of(id_of(small.bob));
  bad.witness.objects.erase(bad.witness.objects.begin() + static_cast<std::ptrdiff_t>(bob));
  const std::string stale = rejection(bad, small.txs);
  EXPECT_TRUE(stale.find("the proof does not verify against pre_root") != std::string::npos ||
              stale.find("reads " + base::to_hex(id_of(small.bob)) + ", which the witness does not hold") !=
                  std::string::npos)
      << stale;

  // Dropped with a proof remade for the ids left: the read that needs it
  // fails, naming the transaction and the id.
  std::vector<Id> keys;
  for (const auto& object : bad.witness.objects) keys.push_back(object.id);
  bad.witness.proof = small.world.state.tree().prove_many(keys);
  const std::string reason = rejection(bad, small.txs);
  EXPECT_NE(reason.find("chunk replay: transaction 2 reads " + base::to_hex(id_of(small.bob)) +
                        ", which the witness does not hold"),
            std::string::npos)
      << reason;
}

TEST(Trace, AWitnessWithoutTheNeighboursOfADeletionIsRejected) {
  SmallPulse small;
  for (int k = 0; k < 200; ++k) small.world.fund(id_of(small.carol), 5);  // a tree with opaque parts
  const auto chunk = trace_pulse(small.world.state, small.txs, small.world.params, 1).value().chunks.at(0);
  // A proof of the objects' ids alone: the tree cannot re-collapse where
  // the spent coins were.
  std::vector<Id> keys;
  for (const auto& object : chunk.witness.objects) keys.push_back(object.id);
  TracedChunk bad = chunk;
  bad.witness.proof = small.world.state.tree().prove_many(keys);
  ASSERT_NE(bad.witness.proof, chunk.witness.proof);
  const auto result = replay_chunk(ReplayPoint::start(small.world.state.root(), 1), bad, small.txs, small.world.params);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().reason.find("chunk replay: the witness cannot carry the chunk's writes"), std::string::npos)
      << result.error().reason;
}

TEST_F(Tampering, AWrongClaimedPostRoot) {
  TracedChunk bad = chunk;
  bad.post_root[0] ^= 1;
  const std::string reason = rejection(bad, small.txs);
  EXPECT_NE(reason.find("claimed post-state root " + base::to_hex(bad.post_root) + " but replay gives " +
                        base::to_hex(chunk.post_root)),
            std::string::npos)
      << reason;
}

TEST_F(Tampering, AProofForAnotherRoot) {
  // The same ids proved in the post-state.
  auto post = small.world.state;
  ASSERT_TRUE(post.apply(execute_pulse(small.world.state, small.txs, small.world.params, 1).value().writes).ok());
  std::vector<Id> keys;
  for (const auto& object : chunk.witness.objects) keys.push_back(object.id);
  TracedChunk bad = chunk;
  bad.witness.proof = post.tree().prove_many(keys);
  EXPECT_NE(rejection(bad, small.txs).find("the proof does not verify against pre_root"), std::string::npos);
  // And a pre_root that is not the proof's: refused before the proof, as
  // not the state the replay is at.
  bad = chunk;
  bad.witness.pre_root = post.root();
  EXPECT_NE(rejection(bad, small.txs).find("is not the state the replay reached"), std::string::npos);
}

TEST_F(Tampering, ReorderedOrMissingTransactions) {
  std::vector<Transaction> reordered = small.txs;
  std::swap(reordered[0], reordered[1]);  // alice's nonces 1 then 0
  EXPECT_NE(rejection(chunk, reordered).find("claimed post-state root"), std::string::npos);
  std::vector<Transaction> bob_first = {small.txs[2], small.txs[0], small.txs[1]};
  EXPECT_FALSE(replay_chunk(start(), chunk, bob_first, small.world.params).ok());
  const std::vector<Transaction> fewer(small.txs.begin(), small.txs.end() - 1);
  const auto result = replay_chunk(start(), chunk, fewer, small.world.params);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, base::Errc::invalid_argument);
}

// usage_before used to be taken on trust: inflated to the Pulse's limit it
// turned every transaction into budget_exceeded, so the same transactions
// and witness replayed to a second post-state root (the pre-state's).
TEST_F(Tampering, AnInflatedUsageBefore) {
  TracedChunk bad = chunk;
  bad.usage_before.transactions = small.world.params.limits.max_transactions;
  bad.post_root = bad.witness.pre_root;  // nothing applies
  // Replayed from the totals the chunk claims, it reaches that other root:
  // the attack, had the replayer no totals of its own.
  const ReplayPoint claimed{1, bad.first_tx, bad.witness.pre_root, bad.usage_before};
  const auto other = replay_chunk(claimed, bad, small.txs, small.world.params);
  ASSERT_TRUE(other.ok()) << other.error().reason;
  EXPECT_NE(other->root, chunk.post_root);
  // From where the Pulse's replay really is, it is refused.
  const std::string reason = rejection(bad, small.txs);
  EXPECT_NE(reason.find("usage_before (" + std::to_string(bad.usage_before.transactions) +
                        " transactions, 0 bytes) is not the usage the replay reached (0 transactions, 0 bytes)"),
            std::string::npos)
      << reason;
  // And a chunk that does not start at the replay's next transaction.
  bad = chunk;
  bad.first_tx = 1;
  EXPECT_NE(rejection(bad, small.txs).find("the chunk starts at transaction 1, the replay is at 0"), std::string::npos);
}

TEST_F(Tampering, ChunksOverTheCapsAreRefusedBeforeAnyWork) {
  TracedChunk bad = chunk;
  bad.tx_count = static_cast<std::uint32_t>(kMaxChunkTransactions + 1);
  EXPECT_NE(rejection(bad, small.txs).find("1025 transactions, over the 1024 a chunk may take"), std::string::npos);

  // A witness padded with absent ids past the byte cap.
  bad = chunk;
  bad.witness.objects.resize(bad.witness.objects.size() + kMaxTracedChunkBytes / 33);  // 33 bytes each
  ASSERT_GT(codec::encoded_size(bad), kMaxTracedChunkBytes);
  const std::string reason = rejection(bad, small.txs);
  EXPECT_NE(reason.find("bytes, over the 4194304 a chunk may take"), std::string::npos) << reason;

  // The decoder refuses such bytes before decoding them.
  const base::Bytes bytes = codec::encode(bad);
  const auto decoded = decode_traced_chunk(bytes);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code, base::Errc::length_over_max);
  EXPECT_NE(decoded.error().reason.find("over the 4194304 a chunk may take"), std::string::npos);
  EXPECT_EQ(decode_traced_chunk(codec::encode(chunk)).value(), chunk);

  // The tracer never makes chunks a replayer would refuse.
  TraceOptions options;
  options.max_txs_per_chunk = kMaxChunkTransactions + 1;
  EXPECT_EQ(trace_pulse(small.world.state, small.txs, small.world.params, 1, options).error().code,
            base::Errc::invalid_argument);
  options = {};
  options.max_witness_bytes = kMaxTracedChunkBytes;
  EXPECT_EQ(trace_pulse(small.world.state, small.txs, small.world.params, 1, options).error().code,
            base::Errc::invalid_argument);
}

TEST_F(Tampering, ObjectsOutOfOrder) {
  TracedChunk bad = chunk;
  ASSERT_GE(bad.witness.objects.size(), 2u);
  std::swap(bad.witness.objects[0], bad.witness.objects[1]);
  EXPECT_NE(rejection(bad, small.txs).find("out of order"), std::string::npos);
}

TEST(Trace, ABadSignatureIsCaughtOnlyWhenReplayChecksSignatures) {
  SmallPulse small;
  small.txs[1].auth.parts.at(0).at(5) ^= 1;  // bad_signature in execution
  const auto traced = check_both_ways(small.world.state, small.txs, small.world.params, {});
  EXPECT_EQ(traced.outcome.receipts[1].status, TxStatus::bad_signature);
  // Taking every signature as valid replays a different Pulse.
  EXPECT_FALSE(replay_chunk(ReplayPoint::start(small.world.state.root(), 1), traced.chunks[0], small.txs,
                            small.world.params, false)
                   .ok());
}

}  // namespace
}  // namespace sion::exec
