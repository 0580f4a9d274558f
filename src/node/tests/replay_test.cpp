// replay_chain: a stored chain replays from genesis; a store changed behind
// the chain store's back (a body, receipts, an index entry, an object, the
// coin index) is refused with the height and the field that differ.

#include "sion/node/replay.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include <array>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "chain_fixture.hpp"
#include "sion/base/endian.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/codec/codec.hpp"
#include "sion/state/kv_store.hpp"

namespace sion::node {
namespace {

using base::testing::TempDir;
using testing::ChainFixture;

// The chain's columns after the object store's own, in the order the chain
// store opens them (docs/state.md, "The node's chain").
const std::vector<std::string> kChainColumns = {"chain", "headers", "bodies", "receipts", "tx_index", "coins_by_owner"};
constexpr state::Column kChain = state::extra_column(0);
constexpr state::Column kBodies = state::extra_column(2);
constexpr state::Column kReceipts = state::extra_column(3);
constexpr state::Column kTxIndex = state::extra_column(4);
constexpr state::Column kCoinsByOwner = state::extra_column(5);
constexpr std::uint64_t kHeight = 5;

std::array<std::uint8_t, 8> height_key(std::uint64_t height) {
  std::array<std::uint8_t, 8> key{};
  base::store_be(key.data(), height);
  return key;
}

class Replay : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = ChainStore::open(dir.str());
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    ASSERT_TRUE((*store)->initialize(chain.genesis_writes, chain.genesis_root, chain.params).ok());
    for (std::uint64_t h = 1; h <= kHeight; ++h) {
      const auto tx = chain.transfer(h);
      auto committed = chain.commit(**store, std::span(&tx, 1));
      ASSERT_TRUE(committed.ok()) << committed.error().to_string();
    }
  }

  std::unique_ptr<ChainStore> open_read_only() {
    ChainStoreOptions options;
    options.read_only = true;
    auto store = ChainStore::open(dir.str(), options);
    EXPECT_TRUE(store.ok()) << store.error().to_string();
    return store ? std::move(*store) : nullptr;
  }

  // Changes the store's bytes directly, as a faulty disk or a bug would.
  void tamper(const std::function<void(const ChainStore&, state::KvBatch&)>& change) {
    state::KvBatch batch;
    {
      auto store = open_read_only();
      ASSERT_TRUE(store);
      change(*store, batch);
    }
    state::KvOptions options;
    options.create_if_missing = false;
    options.extra_columns = kChainColumns;
    auto kv = state::KvStore::open(dir.str(), options);
    ASSERT_TRUE(kv.ok()) << kv.error().to_string();
    ASSERT_TRUE((*kv)->write(std::move(batch)).ok());
  }

  // The error replaying the (tampered) store gives.
  base::Error replay_error() {
    auto store = open_read_only();
    if (!store) return base::Error{};
    auto report = replay_chain(*store, chain.genesis);
    EXPECT_FALSE(report.ok()) << "the tampered store replayed";
    return report.ok() ? base::Error{} : report.error();
  }

  TempDir dir;
  ChainFixture chain;
};

void expect_names(const base::Error& error, std::string_view height, std::string_view field) {
  EXPECT_EQ(error.code, base::Errc::corrupt_store) << error.to_string();
  EXPECT_NE(error.reason.find(std::string("replay: height ") + std::string(height) + ": "), std::string::npos)
      << error.reason;
  EXPECT_NE(error.reason.find(field), std::string::npos) << error.reason;
}

TEST_F(Replay, AStoredChainReplaysAndIsCounted) {
  auto store = open_read_only();
  ASSERT_TRUE(store);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> progress;
  ReplayOptions options;
  options.progress = [&progress](std::uint64_t height, std::uint64_t latest) { progress.emplace_back(height, latest); };
  auto report = replay_chain(*store, chain.genesis, options);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->pulses, kHeight);
  EXPECT_EQ(report->transactions, kHeight);
  EXPECT_EQ(report->state_root, store->head().state_root);
  EXPECT_EQ(report->objects, store->state().size());
  ASSERT_EQ(progress.size(), kHeight);
  EXPECT_EQ(progress.back(), std::make_pair(kHeight, kHeight));
}

TEST_F(Replay, AnotherGenesisIsRefusedAtHeightZero) {
  auto store = open_read_only();
  ASSERT_TRUE(store);
  exec::Genesis other = chain.genesis;
  other.accounts[0].coins[0] += 1;
  auto report = replay_chain(*store, other);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, base::Errc::invalid_value);
  EXPECT_NE(report.error().reason.find("replay: height 0: state_root"), std::string::npos) << report.error().reason;
  other = chain.genesis;
  other.params.chain_id += 1;
  report = replay_chain(*store, other);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().reason.find("replay: height 0: params"), std::string::npos) << report.error().reason;
}

TEST_F(Replay, ABodyRewrittenBreaksTheTransactionsRoot) {
  tamper([](const ChainStore& store, state::KvBatch& batch) {
    // Height 3 gets height 4's body (its reference to the body files).
    const base::Bytes ref = store.state().read_extra(kBodies, height_key(4)).value().value();
    batch.put(kBodies, height_key(3), ref);
  });
  expect_names(replay_error(), "3", "transactions_root");
}

TEST_F(Replay, AReceiptRewrittenIsNamed) {
  tamper([](const ChainStore& store, state::KvBatch& batch) {
    auto receipts = store.receipts(2).value();
    receipts[0].fee_paid += 1;
    const codec::List<exec::Receipt, exec::kMaxPublishedTransactions> list(receipts);
    batch.put(kReceipts, height_key(2), codec::encode(list));
  });
  expect_names(replay_error(), "2", "receipts: receipt 0 differs");
}

TEST_F(Replay, AMissingIndexEntryIsNamed) {
  tamper([](const ChainStore& store, state::KvBatch& batch) {
    batch.erase(kTxIndex, exec::tx_id(store.body(4).value()[0].payload));
  });
  expect_names(replay_error(), "4", "tx_index");
}

TEST_F(Replay, AStoredObjectChangedIsNamed) {
  const exec::Id account = chain.account(1);
  tamper([&account](const ChainStore& store, state::KvBatch& batch) {
    auto object = store.state().get(account).value().value();
    object.version += 1;
    // The objects column is the object store's own: KvBatch writes it
    // directly, as no API of the store would.
    batch.put(state::Column::objects, account, codec::encode(object));
  });
  const base::Error error = replay_error();
  expect_names(error, "5", "state: object " + base::to_hex(account) + " differs");
}

TEST_F(Replay, ACoinMissingFromTheOwnerIndexIsNamed) {
  const exec::Id owner = chain.account(2);
  tamper([&owner](const ChainStore& store, state::KvBatch& batch) {
    const auto coins = store.coins_of(owner).value();
    ASSERT_FALSE(coins.empty());
    std::array<std::uint8_t, 64> key{};
    std::copy(owner.begin(), owner.end(), key.begin());
    std::copy(coins[0].first.begin(), coins[0].first.end(), key.begin() + 32);
    batch.erase(kCoinsByOwner, key);
  });
  expect_names(replay_error(), "5", "coins_by_owner");
}

// The stores and the body files are checked together: a body whose bytes
// changed on disk is corrupt_store naming its file, and a store of the older
// format (bodies inside RocksDB, no "body_files" marker) is refused whole.
TEST_F(Replay, ABodyFileChangedOnDiskIsCorrupt) {
  const std::string file = dir.str() + "/bodies/00000000.blob";
  // Genesis's empty body (one byte, 0x00) is first, then one transfer per Pulse.
  {
    auto store = open_read_only();
    ASSERT_TRUE(store);
    const base::Bytes genesis_ref = store->state().read_extra(kBodies, height_key(0)).value().value();
    EXPECT_EQ(base::to_hex(genesis_ref),
              "00000000"
              "0000000000000000"
              "00000001"
              "527d5351");  // docs/state.md
  }
  {
    std::fstream bytes(file, std::ios::in | std::ios::out | std::ios::binary);
    bytes.seekp(200);
    const int was = bytes.peek();
    bytes.seekp(200);
    bytes.put(static_cast<char>(was ^ 0x40));
  }
  {
    auto store = open_read_only();
    ASSERT_TRUE(store);
    auto body = store->body(1);
    ASSERT_FALSE(body.ok());
    EXPECT_EQ(body.error().code, base::Errc::corrupt_store);
    EXPECT_NE(body.error().reason.find("00000000.blob"), std::string::npos) << body.error().reason;
  }
  const base::Error replayed = replay_error();
  EXPECT_EQ(replayed.code, base::Errc::corrupt_store);
  EXPECT_NE(replayed.reason.find("CRC-32C"), std::string::npos) << replayed.reason;
}

TEST_F(Replay, AStoreWithoutBodyFilesIsRefused) {
  tamper([](const ChainStore&, state::KvBatch& batch) { batch.erase(kChain, base::as_bytes("body_files")); });
  auto store = ChainStore::open(dir.str());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, base::Errc::unsupported);
  EXPECT_NE(store.error().reason.find("older format"), std::string::npos) << store.error().reason;
}

}  // namespace
}  // namespace sion::node
