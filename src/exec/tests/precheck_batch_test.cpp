#include "sion/exec/precheck_batch.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "ledger_fixture.hpp"

namespace sion::exec {
namespace {

using testing::id_of;
using testing::signer;
using testing::World;

// Transactions of several shapes: two profiles (bundles of different
// lengths), one to three outputs, repeated past a Keccak lane width so that
// equal lengths share lanes, and malformed key bundles among them.
std::vector<Transaction> mixed_transactions() {
  World world;
  const auto hybrid = signer(1);
  const auto dual = signer(2, crypto::Profile::dual);
  std::vector<Transaction> txs;
  for (std::uint32_t i = 0; i < 11; ++i) {
    const auto& from = i % 3 == 0 ? dual : hybrid;
    std::vector<Output> outputs;
    for (std::uint32_t o = 0; o <= i % 3; ++o) outputs.push_back({id_of(hybrid), 1 + o + i});
    txs.push_back(world.transfer(from, i, {world.fund(id_of(from), 1'000'000)}, outputs));
  }
  txs[4].keys.parts.clear();           // no part
  txs[7].keys.parts[0].key.resize(3);  // a key of the wrong size
  return txs;
}

// Every id equals the one its definition gives, hashed alone
// (docs/ledger.md): lanes shared across transactions change nothing.
TEST(PrecheckBatch, EqualsTheIdsHashedOneByOne) {
  const auto txs = mixed_transactions();
  const auto batch = precheck_ids_batch(txs);
  ASSERT_EQ(batch.size(), txs.size());
  for (std::size_t i = 0; i < txs.size(); ++i) {
    const Id id = tx_id(txs[i].payload);
    EXPECT_EQ(batch[i].tx_id, id) << i;
    if (i == 4 || i == 7) {
      EXPECT_FALSE(batch[i].keys_id.has_value()) << i;
    } else {
      EXPECT_EQ(batch[i].keys_id, crypto::bundle_id(txs[i].keys)) << i;
    }
    EXPECT_EQ(batch[i].usage, tx_usage(txs[i])) << i;
    const auto& outputs = std::get<Transfer>(txs[i].payload.body).outputs;
    ASSERT_EQ(batch[i].coin_ids.size(), outputs.size() + 1) << i;
    for (std::uint32_t c = 0; c < batch[i].coin_ids.size(); ++c) EXPECT_EQ(batch[i].coin_ids[c], coin_id(id, c)) << i;
    EXPECT_EQ(batch[i], precheck_ids(txs[i])) << i;
  }
}

TEST(PrecheckBatch, NoTransactionsNoPrechecks) { EXPECT_TRUE(precheck_ids_batch({}).empty()); }

}  // namespace
}  // namespace sion::exec
