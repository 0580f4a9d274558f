// Four validators in one process, each a full Service (node, consensus
// driver, transport on loopback, API): they agree on every Pulse and state
// root, and one that was stopped catches up after a restart.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "chain_fixture.hpp"
#include "sion/base/clock.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/codec/codec.hpp"
#include "sion/http/testing/raw_socket.hpp"
#include "sion/node/batch_payload.hpp"
#include "sion/node/service.hpp"

namespace sion::node {
namespace {

using namespace std::chrono_literals;
using http::testing::eventually;

constexpr std::size_t kValidators = 4;

crypto::KeySeed validator_seed(std::size_t i) {
  crypto::KeySeed seed{};
  seed.fill(static_cast<std::uint8_t>(0x90 + i));
  return seed;
}

struct Network {
  testing::ChainFixture chain;
  std::vector<base::testing::TempDir> dirs{kValidators};
  std::vector<std::unique_ptr<Service>> services{kValidators};

  Network() {
    for (std::size_t i = 0; i < kValidators; ++i) {
      const auto bundle = crypto::SigningBundle::from_seed(crypto::Profile::hybrid, validator_seed(i)).value();
      chain.genesis.validators.push_back({bundle.public_bundle(), 1});
    }
    chain.genesis.consensus = exec::consensus_rules_for(chain.genesis.validators);
  }

  void start(std::size_t i) {
    ServiceOptions options;
    options.node.data_dir = dirs[i].str();
    options.node.genesis = chain.genesis;
    options.node.validator = std::make_shared<const crypto::SigningBundle>(
        crypto::SigningBundle::from_seed(crypto::Profile::hybrid, validator_seed(i)).value());
    options.node.sync_writes = false;
    options.node.execution_threads = 1;
    options.server.port = 0;
    ConsensusDriverOptions& consensus = options.consensus.emplace();
    consensus.profile = crypto::Profile::hybrid;
    consensus.seed = validator_seed(i);
    consensus.timing.min_block_interval_ms = 10;
    consensus.timing.idle_block_interval_ms = 100;
    consensus.timing.round_timeout_ms = 600;
    consensus.timing.max_round_timeout_ms = 2400;
    auto service = Service::start(std::move(options));
    ASSERT_TRUE(service) << service.error().to_string();
    services[i] = std::move(service).value();
    // Ephemeral ports: every running validator learns where the others are.
    for (std::size_t a = 0; a < kValidators; ++a) {
      for (std::size_t b = 0; b < kValidators; ++b) {
        if (a == b || !services[a] || !services[b]) continue;
        ASSERT_TRUE(services[a]->consensus()->transport().set_peer_address(static_cast<std::uint32_t>(b), "127.0.0.1",
                                                                           services[b]->consensus()->port()));
      }
    }
  }

  std::uint64_t height(std::size_t i) {
    auto lock = services[i]->node().read_lock();
    return services[i]->node().chain().height();
  }

  // Submits the next transfer of every account to validator `to`.
  std::vector<exec::Id> submit_round(std::size_t to) {
    std::vector<exec::Id> ids;
    for (std::size_t k = 0; k < testing::ChainFixture::kAccounts; ++k) {
      const exec::Transaction tx = chain.transfer(k);
      // The pool's clock is the wall clock the service's expiry sweep
      // reads: a made-up time would expire the transaction at the next sweep.
      const auto outcome = services[to]->node().submit(tx, base::unix_time_ms());
      EXPECT_TRUE(outcome && outcome->verdict.ok()) << (outcome ? outcome->verdict.reason : outcome.error().reason);
      ids.push_back(exec::tx_id(tx.payload));
    }
    return ids;
  }

  bool executed_everywhere(const std::vector<exec::Id>& ids, const std::vector<std::size_t>& at) {
    for (const std::size_t i : at) {
      for (const exec::Id& id : ids) {
        const auto view = services[i]->node().transaction(id);
        if (!view || view->kind != Node::TxView::Kind::executed) return false;
      }
    }
    return true;
  }

  // Follows what executed, so the next round's transfers are valid.
  void observe(std::size_t from) {
    auto lock = services[from]->node().read_lock();
    const ChainStore& store = services[from]->node().chain();
    for (std::uint64_t h = 1; h <= store.height(); ++h) chain.observe(store.body(h).value());
  }

  // What each running validator holds of `ids` and what its consensus
  // reports: said when a wait fails.
  std::string describe(const std::vector<exec::Id>& ids) {
    static constexpr const char* kKinds[] = {"unknown", "pooled", "executed", "removed"};
    std::ostringstream out;
    for (std::size_t i = 0; i < kValidators; ++i) {
      if (!services[i]) continue;
      const Node& node = services[i]->node();
      out << "\n  validator " << i << ": height " << height(i) << ", pool " << node.mempool().transactions
          << ", the round's transactions:";
      for (const exec::Id& id : ids) {
        const auto view = node.transaction(id);
        if (!view) {
          out << " ?";
          continue;
        }
        out << " " << kKinds[static_cast<int>(view->kind)];
        if (view->kind == Node::TxView::Kind::removed) {
          out << "/" << policy::removal_reason_name(view->outcome->reason) << "@" << view->outcome->height;
        }
      }
      const ConsensusStatus s = node.consensus().status();
      out << "; round " << s.round << ", high qc " << s.high_qc_round << ", voted " << s.last_voted_round
          << ", delivered " << s.delivered_height << ", timeouts " << s.timeouts << ", batches made " << s.batches_made
          << ", refused " << s.batches_refused << ", inbox dropped " << s.inbox_dropped << ", connected to";
      for (const std::uint32_t peer : s.connected) out << " " << peer;
      if (s.halted) out << ", halted: " << *s.halted;
    }
    return out.str();
  }

  void expect_same_chain(const std::vector<std::size_t>& at) {
    const std::uint64_t top = height(at.front());
    for (const std::size_t i : at) ASSERT_EQ(height(i), top) << "validator " << i;
    for (std::uint64_t h = 1; h <= top; ++h) {
      exec::PulseHeader first;
      for (const std::size_t i : at) {
        auto lock = services[i]->node().read_lock();
        const exec::PulseHeader header = services[i]->node().chain().header(h).value();
        if (i == at.front()) {
          first = header;
        } else {
          EXPECT_EQ(exec::pulse_hash(header), exec::pulse_hash(first)) << "height " << h << " validator " << i;
          EXPECT_EQ(header.state_root, first.state_root) << "height " << h << " validator " << i;
        }
      }
    }
  }
};

TEST(ConsensusDriver, FourValidatorsAgreeOnEveryPulseAndCertifyIt) {
  Network net;
  for (std::size_t i = 0; i < kValidators; ++i) net.start(i);
  const std::vector<std::size_t> all = {0, 1, 2, 3};
  const auto first = net.submit_round(0);
  ASSERT_TRUE(eventually([&] { return net.executed_everywhere(first, all); }, 30s)) << net.describe(first);
  net.observe(0);
  const auto second = net.submit_round(2);
  ASSERT_TRUE(eventually([&] { return net.executed_everywhere(second, all); }, 30s)) << net.describe(second);
  ASSERT_TRUE(eventually([&] { return net.height(0) == net.height(3) && net.height(1) == net.height(2); }, 10s));
  net.expect_same_chain(all);
  // Every Pulse gets its certificate, the same at every validator.
  const std::uint64_t top = net.height(0);
  ASSERT_TRUE(eventually([&] { return net.services[1]->node().consensus().certificate(top).has_value(); }, 10s));
  const auto certificate = net.services[1]->node().consensus().certificate(top).value();
  auto lock = net.services[1]->node().read_lock();
  EXPECT_EQ(certificate.body.state_root, net.services[1]->node().chain().header(top).value().state_root);
  for (std::size_t i = 0; i < kValidators; ++i) {
    EXPECT_TRUE(net.services[i]->node().consensus().status().running) << i;
    EXPECT_FALSE(net.services[i]->node().failure().has_value()) << i;
  }
}

TEST(ConsensusDriver, AStoppedValidatorCatchesUpAfterRestart) {
  Network net;
  for (std::size_t i = 0; i < kValidators; ++i) net.start(i);
  const auto first = net.submit_round(1);
  ASSERT_TRUE(eventually([&] { return net.executed_everywhere(first, {0, 1, 2, 3}); }, 30s)) << net.describe(first);
  net.observe(0);
  net.services[3].reset();  // three of four: still a quorum
  const auto second = net.submit_round(0);
  ASSERT_TRUE(eventually([&] { return net.executed_everywhere(second, {0, 1, 2}); }, 30s)) << net.describe(second);
  net.observe(0);
  const auto third = net.submit_round(2);
  ASSERT_TRUE(eventually([&] { return net.executed_everywhere(third, {0, 1, 2}); }, 30s)) << net.describe(third);
  net.start(3);
  ASSERT_TRUE(eventually([&] { return net.executed_everywhere(third, {3}); }, 60s)) << net.describe(third);
  ASSERT_TRUE(eventually([&] { return net.height(3) == net.height(0); }, 10s));
  net.expect_same_chain({0, 1, 2, 3});
}

TEST(BatchPayload, CheckRefusesWhatAnHonestValidatorWouldNotBatch) {
  testing::ChainFixture chain;
  base::Executor executor(1);
  std::vector<std::shared_ptr<const exec::Transaction>> txs;
  for (std::uint64_t k = 0; k < 3; ++k) txs.push_back(std::make_shared<const exec::Transaction>(chain.transfer(k)));
  consensus::Batch batch;
  batch.payload = encode_batch_payload(txs);
  batch.header.item_count = 3;
  EXPECT_TRUE(check_batch(batch, chain.params, &executor, nullptr));
  EXPECT_EQ(decode_batch_payload(batch.payload).value().transactions.size(), 3u);

  batch.header.item_count = 4;
  EXPECT_NE(check_batch(batch, chain.params, &executor, nullptr).error().reason.find("header says 4"),
            std::string::npos);

  exec::Transaction forged = *txs[1];
  forged.payload.nonce += 1;  // the signature no longer covers the payload
  txs[1] = std::make_shared<const exec::Transaction>(forged);
  batch.payload = encode_batch_payload(txs);
  batch.header.item_count = 3;
  const auto refused = check_batch(batch, chain.params, &executor, nullptr);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().reason.find("transaction 1 has a signature"), std::string::npos) << refused.error().reason;

  batch.payload = {0x01, 0x02};
  EXPECT_TRUE(check_batch(batch, chain.params, &executor, nullptr).error().is_invalid_input());

  exec::ChainParams tight = chain.params;
  tight.limits.max_transactions = 2;
  batch.payload = encode_batch_payload(std::span(txs).first(3));
  EXPECT_NE(check_batch(batch, tight, &executor, nullptr).error().reason.find("exceed one Pulse"), std::string::npos);
}

}  // namespace
}  // namespace sion::node
