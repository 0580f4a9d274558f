// The API's routes on a real node, through http::Server::dispatch (no
// socket): what the node answers is what the wallet's parsers read
// (docs/api.md), and an event stream whose client left is no longer
// subscribed.

#include "sion/node/api.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api_fixture.hpp"
#include "sion/agents/kinds.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/http/parse.hpp"
#include "sion/http/sse_reader.hpp"
#include "sion/streams/payer.hpp"
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

// An agent's life through the node: the mempool admits the owner's spawn,
// the agent's own payment and a batch's members, the Pulses execute them,
// and GET /v1/agents/{id} shows the allotment and the standing, revoked at
// the end (docs/agents.md, docs/api.md).
TEST(Api, AnAgentSpawnedPaysThroughABatchAndIsRevoked) {
  ApiFixture f;
  const crypto::SigningBundle agent_keys = hybrid(7);
  agents::Caveats caveats;
  caveats.expiry_height = 1000;
  caveats.per_payment = 5'000;
  caveats.period_cap = 1'000'000;
  caveats.period_length = 100;
  caveats.actions = agents::kAllActions;
  caveats.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  const exec::Id alice = exec::account_id(f.alice.public_bundle());
  const auto submit_and_produce = [&](const std::vector<exec::Transaction>& txs) {
    for (const auto& tx : txs) {
      const auto outcome = f.node->submit(codec::encode(tx), f.now).value();
      EXPECT_TRUE(outcome.verdict.ok()) << outcome.verdict.reason;
    }
    f.now += 1000;
    EXPECT_TRUE(f.node->produce(f.now).value());
  };
  const auto by_alice = [&](exec::TxBody body) {
    const exec::Transaction tx =
        exec::make_signed(f.alice, f.genesis.params, alice, f.nonce++, std::move(body)).value();
    f.coin = exec::coin_id(exec::tx_id(tx.payload), 0);  // the change
    return tx;
  };

  // A keyed agent and a keyless one controlled by Alice, in one Pulse.
  const exec::Transaction keyed_spawn =
      by_alice(exec::SpawnAgent{0, agents::Keyed{agent_keys.id()}, caveats, 100'000, {f.coin}});
  const exec::Transaction keyless_spawn =
      by_alice(exec::SpawnAgent{1, agents::Keyless{alice}, caveats, 100'000, {f.coin}});
  submit_and_produce({keyed_spawn, keyless_spawn});
  const exec::Id keyed = agents::lineage_id(agents::child_of_account(alice, 0));
  const exec::Id keyless = agents::lineage_id(agents::child_of_account(alice, 1));

  // The keyed agent pays Bob with its own keys.
  const exec::Transaction pay =
      exec::make_signed(agent_keys, f.genesis.params, keyed, 0, exec::AgentPay{f.bob, 1'500}).value();
  submit_and_produce({pay});
  const http::Response shown = f.get("/v1/agents/" + base::to_hex(keyed));
  ASSERT_EQ(shown.status, 200u) << shown.body;
  const auto view = nlohmann::json::parse(shown.body);
  EXPECT_EQ(view["allotment"]["balance"].get<std::uint64_t>(), 100'000 - 1'500 - pay.payload.fee);
  EXPECT_EQ(view["allotment"]["nonce"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(view["allotment"]["moved_this_period"].get<std::uint64_t>(), 1'500u);
  EXPECT_EQ(view["standing"]["status"], "success");
  EXPECT_EQ(view["lineage"]["depth"].get<std::uint64_t>(), 1u);

  // Alice opens a batch for two payments of the keyless agent; its members
  // carry no signature.
  const std::vector<exec::MemberIntent> intents = {{keyless, 0, exec::AgentPay{f.bob, 10}},
                                                   {keyless, 1, exec::AgentPay{f.bob, 20}}};
  const exec::MemberBatch batch = exec::make_member_batch(f.genesis.params, intents).value();
  const exec::Transaction open = by_alice(exec::OpenBatch{batch.root, batch.count(), 100, {f.coin}});
  submit_and_produce({open});
  submit_and_produce(batch.members(agents::batch_id(exec::tx_id(open.payload))).value());
  const auto members_view = nlohmann::json::parse(f.get("/v1/agents/" + base::to_hex(keyless)).body);
  EXPECT_EQ(members_view["allotment"]["nonce"].get<std::uint64_t>(), 2u);
  EXPECT_EQ(members_view["allotment"]["moved_this_period"].get<std::uint64_t>(), 30u);

  // Revoked by Alice: the view says so, and its next payment fails.
  submit_and_produce({by_alice(exec::Restrict{keyed, agents::Revoke{}, {f.coin}})});
  const auto revoked = nlohmann::json::parse(f.get("/v1/agents/" + base::to_hex(keyed)).body);
  EXPECT_EQ(revoked["standing"]["status"], "agent_revoked");

  EXPECT_EQ(f.get("/v1/agents/" + base::to_hex(f.bob)).status, 404u);
  EXPECT_EQ(f.get("/v1/agents/zz").status, 400u);
}

// GET /v1/streams/{id} (docs/api.md): a stream Alice opens to Bob, its
// fields as opened; 404 not_found for an id holding no stream, 400 for one
// that is not 64 hex digits.
TEST(Api, AStreamOpenedIsShownAndAMissingOneIsNotFound) {
  ApiFixture f;
  const exec::Id alice = exec::account_id(f.alice.public_bundle());
  streams::Hash seed{};
  seed.fill(0x33);
  const streams::StreamPayer payer = streams::StreamPayer::create(seed, 100).value();
  const exec::OpenStream body{f.bob, 7, 100, payer.anchor(), payer.checkpoint_root(), 500, 40, {f.coin}};
  const exec::Transaction open = exec::make_signed(f.alice, f.genesis.params, alice, f.nonce++, body).value();
  const auto outcome = f.node->submit(codec::encode(open), f.now).value();
  ASSERT_TRUE(outcome.verdict.ok()) << outcome.verdict.reason;
  f.now += 1000;
  ASSERT_TRUE(f.node->produce(f.now).value());
  const exec::Id id = streams::stream_id(exec::tx_id(open.payload));

  const http::Response shown = f.get("/v1/streams/" + base::to_hex(id));
  ASSERT_EQ(shown.status, 200u) << shown.body;
  const auto view = nlohmann::json::parse(shown.body);
  EXPECT_EQ(view["id"], base::to_hex(id));
  EXPECT_EQ(view["payer"], base::to_hex(alice));
  EXPECT_EQ(view["payee"], base::to_hex(f.bob));
  EXPECT_EQ(view["price"].get<std::uint64_t>(), 7u);
  EXPECT_EQ(view["length"].get<std::uint64_t>(), 100u);
  EXPECT_EQ(view["anchor"], base::to_hex(payer.anchor()));
  EXPECT_EQ(view["checkpoint_root"], base::to_hex(payer.checkpoint_root()));
  EXPECT_EQ(view["checkpoint_spacing"].get<std::uint64_t>(), 16u);
  EXPECT_EQ(view["deposit"].get<std::uint64_t>(), 500u);
  EXPECT_EQ(view["expiry_height"].get<std::uint64_t>(), 40u);
  EXPECT_EQ(view["settled"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(view["settled_element"], base::to_hex(payer.anchor()));
  EXPECT_EQ(view["height"].get<std::uint64_t>(), 1u);
  EXPECT_FALSE(view["expired"].get<bool>());

  const http::Response missing = f.get("/v1/streams/" + base::to_hex(f.bob));
  EXPECT_EQ(missing.status, 404u);
  EXPECT_EQ(nlohmann::json::parse(missing.body)["error"]["code"], "not_found") << missing.body;
  EXPECT_EQ(f.get("/v1/streams/zz").status, 400u);
}

}  // namespace
}  // namespace sion::node
