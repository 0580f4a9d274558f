// The API's routes on a real node, through http::Server::dispatch (no
// socket): what the node answers is what the wallet's parsers read
// (docs/api.md), and an event stream whose client left is no longer
// subscribed.

#include "sion/node/api.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api_fixture.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/http/parse.hpp"
#include "sion/http/sse_reader.hpp"
#include "sion/wallet/api_replies.hpp"

namespace sion::node {
namespace {

using testing::hybrid;

// Alice pays Bob once per Pulse, on a node whose API is registered on a
// server that never starts.
struct ApiFixture {
  base::testing::TempDir dir;
  crypto::SigningBundle alice = hybrid(1);
  crypto::SigningBundle validator = hybrid(3);
  exec::Id bob{};
  exec::Genesis genesis;
  std::unique_ptr<Node> node;
  http::Server server;
  std::unique_ptr<Api> api;
  exec::Id coin = exec::genesis_coin_id(0);  // what Alice spends next
  std::uint64_t nonce = 0;
  std::uint64_t now = 1'767'225'600'000;

  ApiFixture() {
    bob.fill(0xb0);
    genesis.params.chain_id = 7;
    genesis.accounts.push_back({alice.public_bundle(), {1'000'000'000}});
    genesis.validators.push_back({validator.public_bundle()});
    genesis.consensus.pulse_vote_legs = {crypto::Scheme::ml_dsa_44};  // a hybrid bundle has no SLH-DSA key
    node = testing::open_test_node(dir.str(), genesis);
    ApiOptions api_options;
    api_options.admission_threads = 1;
    api = std::make_unique<Api>(*node, server, api_options);
    EXPECT_TRUE(api->register_routes());
  }

  // Pulse (height + 1): one transfer of 1000 to Bob. Returns its tx id.
  exec::Id pulse() {
    const exec::Output output{bob, 1000};
    const exec::Transaction tx = exec::make_transfer(alice, genesis.params, nonce++, {&coin, 1}, {&output, 1}).value();
    const exec::Id id = exec::tx_id(tx.payload);
    coin = exec::coin_id(id, 1);
    EXPECT_TRUE(node->submit(codec::encode(tx), now).value().verdict.ok());
    now += 1000;
    EXPECT_TRUE(node->produce(now).value());
    return id;
  }

  http::Response get(const std::string& target, const std::string& fields = "") {
    const std::string text = "GET " + target + " HTTP/1.1\r\n" + fields + "\r\n";
    return server.dispatch(http::parse_request(base::as_bytes(text), server.options()).value());
  }
};

TEST(Api, AStreamWhoseClientLeftIsNoLongerSubscribed) {
  ApiFixture f;
  // An idle chain, and a filter no event matches: no push would ever fail
  // to tell the node that these clients left.
  const std::vector<std::string> requests = {"/v1/events", "/v1/events?account=" + std::string(64, 'e')};
  for (const std::string& target : requests) {
    for (int i = 0; i < 3; ++i) {
      const http::Response answer = f.get(target);
      EXPECT_EQ(answer.status, 200u) << answer.body;
      EXPECT_EQ(f.node->events().subscribers(), 0u) << target;
    }
  }
  // A subscriber still there (its stream not yet detached) is counted.
  bool delivered = false;
  const auto kept = f.node->events().subscribe(0, true, {}, [&](const Event&) { return delivered = true; });
  EXPECT_EQ(f.node->events().subscribers(), 1u);
  f.node->events().unsubscribe(kept.id);
}

TEST(Api, RepliesAreWhatTheWalletReads) {
  ApiFixture f;
  const exec::Id first = f.pulse();
  f.pulse();
  const exec::Id bob_coin = exec::coin_id(first, 0);  // Bob's 1000 from Pulse 1

  // The object at the latest height and at an older retained one, whose
  // bytes the node no longer has: the proof shows it all the same.
  const std::string object = "/v1/objects/" + base::to_hex(bob_coin);
  const http::Response latest = f.get(object + "?proof=true");
  ASSERT_EQ(latest.status, 200u) << latest.body;
  auto now = wallet::parse_object_reply(latest.body, bob_coin, true, std::nullopt);
  ASSERT_TRUE(now) << now.error().to_string();
  EXPECT_TRUE(now->object);
  const http::Response older = f.get(object + "?proof=true&height=1");
  ASSERT_EQ(older.status, 200u) << older.body;
  auto then = wallet::parse_object_reply(older.body, bob_coin, true, 1);
  ASSERT_TRUE(then) << then.error().to_string();
  EXPECT_FALSE(then->object_served);
  EXPECT_FALSE(then->object);
  ASSERT_TRUE(then->proof && then->proof->leaf);
  EXPECT_EQ(then->proof->leaf->value_hash, state::object_hash(*now->object));  // the coin has not changed

  // Every transaction event, replayed from the start.
  const http::Response events = f.get("/v1/events", "Last-Event-ID: 0\r\n");
  ASSERT_EQ(events.status, 200u);
  http::SseParser parser;
  parser.feed(events.body);
  int transactions = 0;
  while (const auto event = parser.next()) {
    if (event->type != "transaction") continue;
    ++transactions;
    auto data = wallet::parse_tx_event_reply(event->data);
    ASSERT_TRUE(data) << data.error().to_string();
    EXPECT_TRUE(data->state.executed());
  }
  EXPECT_EQ(transactions, 2);

  const http::Response status = f.get("/v1/transactions/" + base::to_hex(first));
  ASSERT_EQ(status.status, 200u);
  auto state = wallet::parse_tx_state_reply(status.body, first);
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_EQ(state->height, 1u);
}

}  // namespace
}  // namespace sion::node
