#include "sion/node/node.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "sion/base/testing/temp_dir.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/wallet/log_head.hpp"

namespace sion::node {
namespace {

using base::testing::TempDir;

crypto::SigningBundle bundle(std::uint8_t seed_byte, crypto::Profile profile = crypto::Profile::dual) {
  crypto::KeySeed seed{};
  seed.fill(seed_byte);
  return crypto::SigningBundle::from_seed(profile, seed).value();
}

// Two funded dual-key accounts and one validator.
struct Fixture {
  crypto::SigningBundle alice = bundle(1);
  crypto::SigningBundle bob = bundle(2);
  crypto::SigningBundle validator = bundle(3);
  exec::Genesis genesis;

  Fixture() {
    genesis.params.chain_id = 7;
    genesis.accounts.push_back({alice.public_bundle(), {1'000'000'000}});
    genesis.accounts.push_back({bob.public_bundle(), {1'000'000'000}});
    genesis.validators.push_back({validator.public_bundle()});
  }

  NodeOptions options(const std::string& dir) const {
    NodeOptions out;
    out.data_dir = dir;
    out.genesis = genesis;
    out.validator = std::make_shared<const crypto::SigningBundle>(bundle(3));
    out.sync_writes = false;
    out.execution_threads = 2;
    return out;
  }

  exec::Id alice_id() const { return exec::account_id(alice.public_bundle()); }
  exec::Id bob_id() const { return exec::account_id(bob.public_bundle()); }

  // Alice's k-th transfer of 1000 to Bob, spending the change of the one before.
  std::vector<exec::Transaction> alice_chain(std::size_t count) const {
    std::vector<exec::Transaction> out;
    exec::Id coin = exec::genesis_coin_id(0);
    for (std::size_t k = 0; k < count; ++k) {
      const std::vector<exec::Id> inputs{coin};
      const std::vector<exec::Output> outputs{{bob_id(), 1000}};
      out.push_back(exec::make_transfer(alice, genesis.params, k, inputs, outputs).value());
      coin = exec::coin_id(exec::tx_id(out.back().payload), 1);  // the change, after one output
    }
    return out;
  }
};

base::Bytes encoded(const exec::Transaction& tx) { return codec::encode(tx); }

TEST(Node, RefusesAValidatorTheGenesisDoesNotList) {
  Fixture fixture;
  TempDir dir;
  NodeOptions options = fixture.options(dir.str());
  options.validator = std::make_shared<const crypto::SigningBundle>(bundle(9));
  auto node = Node::open(options);
  ASSERT_FALSE(node);
  EXPECT_NE(node.error().reason.find("not one of the genesis file's validators"), std::string::npos);
}

TEST(Node, AdmitsProducesStoresAndAnnounces) {
  Fixture fixture;
  TempDir dir;
  auto node = Node::open(fixture.options(dir.str())).value();
  std::vector<Event> events;
  node->events().subscribe(0, true, {}, [&](const Event& e) { return events.push_back(e), true; });

  // Nothing to include: no Pulse.
  EXPECT_FALSE(node->produce(1000).value().has_value());

  const auto transfers = fixture.alice_chain(3);
  for (const auto& tx : transfers) {
    const auto outcome = node->submit(encoded(tx), 1000).value();
    EXPECT_TRUE(outcome.verdict.ok()) << outcome.verdict.reason;
  }
  // A bad signature is refused with its code; garbage bytes are invalid input.
  const std::vector<exec::Id> bob_coin{exec::genesis_coin_id(1)};
  const std::vector<exec::Output> to_alice{{fixture.alice_id(), 1000}};
  exec::Transaction forged = exec::make_transfer(fixture.bob, fixture.genesis.params, 0, bob_coin, to_alice).value();
  std::get<exec::Transfer>(forged.payload.body).outputs[0].amount = 2000;  // no longer what Bob signed
  EXPECT_EQ(node->submit(encoded(forged), 1000).value().verdict.code, policy::PolicyCode::bad_signature);
  const base::Bytes garbage{1, 2, 3};
  EXPECT_FALSE(node->submit(garbage, 1000));

  const auto tx_id = exec::tx_id(transfers[2].payload);
  EXPECT_EQ(node->transaction(tx_id).value().kind, Node::TxView::Kind::pooled);
  const auto height = node->produce(2000).value();
  ASSERT_TRUE(height);
  EXPECT_EQ(*height, 1u);
  const auto view = node->transaction(tx_id).value();
  ASSERT_EQ(view.kind, Node::TxView::Kind::executed);
  EXPECT_EQ(view.record->location.height, 1u);
  EXPECT_EQ(view.record->location.position, 2u);
  EXPECT_EQ(view.record->receipt.status, exec::TxStatus::success);
  EXPECT_EQ(node->mempool().transactions, 0u);
  // The signatures were checked on admission: the Pulse hit the cache.
  EXPECT_GE(node->verify_cache().hits(), 3u);

  // One pulse event and one per executed transaction, ids in order.
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].type, "pulse");
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(events[i].type, "transaction");
    EXPECT_EQ(events[i].id, events[i - 1].id + 1);
    EXPECT_TRUE(events[i].accounts.count(fixture.bob_id()));
  }

  // The signed log head covers the genesis header and Pulse 1.
  const SignedLogHead head = node->signed_log_head();
  EXPECT_EQ(head.head.size, 2u);
  EXPECT_TRUE(wallet::verify_log_head(fixture.validator.public_bundle(), head.head, head.signature));

  // Its published data is served for sampling.
  const auto published = node->published(1).value();
  EXPECT_EQ(published->commitment, node->chain().header(1).value().data);
  EXPECT_EQ(node->published(2).error().code, base::Errc::not_found);
}

TEST(Node, RestartResumesAtTheLastPulse) {
  Fixture fixture;
  TempDir dir;
  commit::Hash root{};
  {
    auto node = Node::open(fixture.options(dir.str())).value();
    for (const auto& tx : fixture.alice_chain(2)) ASSERT_TRUE(node->submit(encoded(tx), 1).value().verdict.ok());
    ASSERT_TRUE(node->produce(10).value());
    root = node->chain().head().state_root;
  }
  auto node = Node::open(fixture.options(dir.str())).value();
  EXPECT_EQ(node->chain().height(), 1u);
  EXPECT_EQ(node->chain().head().state_root, root);
  // The next nonce continues where the chain is.
  const auto more = fixture.alice_chain(3);
  EXPECT_EQ(node->submit(encoded(more[0]), 20).value().verdict.code, policy::PolicyCode::nonce_too_low);
  EXPECT_TRUE(node->submit(encoded(more[2]), 20).value().verdict.ok());
  EXPECT_EQ(node->produce(30).value().value(), 2u);
}

TEST(Node, AnotherGenesisIsRefused) {
  Fixture fixture;
  TempDir dir;
  { ASSERT_TRUE(Node::open(fixture.options(dir.str()))); }
  NodeOptions options = fixture.options(dir.str());
  options.genesis.params.chain_id = 8;
  EXPECT_FALSE(Node::open(options));
}

TEST(Node, AStorageFailureStopsProductionAndIsReported) {
  Fixture fixture;
  TempDir dir;
  auto fail = std::make_shared<std::atomic<bool>>(false);
  NodeOptions options = fixture.options(dir.str());
  options.write_fault = [fail]() -> base::Status {
    if (*fail) return base::fail(base::Errc::io_error, "injected: no space left on device");
    return {};
  };
  auto node = Node::open(options).value();
  const auto transfers = fixture.alice_chain(1);
  ASSERT_TRUE(node->submit(encoded(transfers[0]), 1).value().verdict.ok());
  *fail = true;
  const auto produced = node->produce(10);
  ASSERT_FALSE(produced);
  EXPECT_NE(produced.error().reason.find("no space left"), std::string::npos);
  ASSERT_TRUE(node->failure());
  // Nothing was committed, and nothing more is produced, even once the disk recovers.
  EXPECT_EQ(node->chain().height(), 0u);
  *fail = false;
  EXPECT_FALSE(node->produce(20));
  EXPECT_EQ(node->chain().height(), 0u);
}

}  // namespace
}  // namespace sion::node
