#include "sion/wallet/node_api.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fake_node.hpp"
#include "sion/wallet/tx_batch.hpp"

namespace sion::wallet {
namespace {

using testing::contains;
using testing::FakeNode;
using testing::hash_of_byte;
using testing::Json;

// A transport that answers every request with one reply, and remembers the request.
struct Canned {
  HttpReply reply;
  std::string method, path, body, content_type;
  HttpCall call() {
    return [this](std::string_view m, std::string_view p, std::string_view b,
                  std::string_view c) -> base::Result<HttpReply> {
      method = m;
      path = p;
      body = b;
      content_type = c;
      return reply;
    };
  }
};

exec::Transaction some_transaction() {
  exec::Transaction tx;
  tx.payload.chain_id = 5;
  tx.payload.nonce = 3;
  tx.payload.body = exec::Transfer{{hash_of_byte(1)}, {exec::Output{hash_of_byte(2), 1000}}};
  return tx;
}

TEST(NodeApi, Submits) {
  Canned node;
  NodeApi api(node.call());
  const auto tx = some_transaction();
  const auto id = exec::tx_id(tx.payload);
  node.reply = testing::json_reply(202, Json{{"tx_id", base::to_hex(id)}, {"status", "held"}});
  const auto admitted = api.submit(tx);
  ASSERT_TRUE(admitted) << admitted.error().to_string();
  EXPECT_TRUE(admitted->admitted());
  EXPECT_TRUE(admitted->held);
  EXPECT_EQ(admitted->tx_id, id);
  EXPECT_EQ(node.method, "POST");
  EXPECT_EQ(node.path, "/v1/transactions");
  EXPECT_EQ(node.content_type, "application/octet-stream");
  EXPECT_EQ(node.body, std::string(reinterpret_cast<const char*>(codec::encode(tx).data()), codec::encode(tx).size()));

  // A refusal is an answer, with the node's code.
  node.reply = testing::error_reply(422, "fee_below_floor", "fee 3 is below the floor");
  const auto refused = api.submit(tx);
  ASSERT_TRUE(refused);
  ASSERT_FALSE(refused->admitted());
  EXPECT_EQ(refused->refusal->status, 422u);
  EXPECT_EQ(refused->refusal->code, "fee_below_floor");
  EXPECT_EQ(refused->refusal->to_string(), "422 fee_below_floor: fee 3 is below the floor");
  node.reply = {503, "text/html", "<h1>busy</h1>"};
  const auto odd = api.submit(tx);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->refusal->code, "");
  EXPECT_EQ(odd->refusal->message, "<h1>busy</h1>");

  // Admitted under another id, an unknown status, an unknown field.
  node.reply = testing::json_reply(202, Json{{"tx_id", base::to_hex(hash_of_byte(9))}, {"status", "pending"}});
  EXPECT_TRUE(contains(api.submit(tx).error().reason, "the node admitted tx id"));
  node.reply = testing::json_reply(202, Json{{"tx_id", base::to_hex(id)}, {"status", "maybe"}});
  EXPECT_TRUE(contains(api.submit(tx).error().reason, "POST /v1/transactions: $.status: expected"));
  node.reply = testing::json_reply(202, Json{{"tx_id", base::to_hex(id)}, {"status", "pending"}, {"x", 1}});
  EXPECT_TRUE(contains(api.submit(tx).error().reason, "unknown field \"x\""));
  node.reply = {202, "text/plain", "{}"};
  EXPECT_TRUE(contains(api.submit(tx).error().reason, "expected application/json"));

  // A transport failure is passed on as it is.
  NodeApi down([](std::string_view, std::string_view, std::string_view, std::string_view) -> base::Result<HttpReply> {
    return base::fail(base::Errc::io_error, "connection refused");
  });
  const auto failed = down.submit(tx);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, base::Errc::io_error);
  EXPECT_EQ(failed.error().reason, "POST /v1/transactions: connection refused");
}

TEST(NodeApi, SubmitsBatches) {
  Canned node;
  NodeApi api(node.call());
  const base::Bytes a = {0x01, 0x02};
  const base::Bytes b = {0xff};
  const std::vector<base::ByteView> encodings = {a, b};
  const std::vector<exec::Id> ids = {hash_of_byte(1), hash_of_byte(2)};
  const Json admitted{{"tx_id", base::to_hex(ids[0])}, {"status", "held"}};
  const Json refused{{"tx_id", base::to_hex(ids[1])}, {"error", {{"code", "bad_signature"}, {"message", "no"}}}};
  node.reply = testing::json_reply(200, Json{{"results", {admitted, refused}}});
  const auto results = api.submit_batch(encodings, ids);
  ASSERT_TRUE(results) << results.error().to_string();
  ASSERT_EQ(results->size(), 2u);
  EXPECT_TRUE((*results)[0].admitted());
  EXPECT_TRUE((*results)[0].held);
  EXPECT_EQ((*results)[0].tx_id, ids[0]);
  ASSERT_FALSE((*results)[1].admitted());
  EXPECT_EQ((*results)[1].refusal->code, "bad_signature");
  EXPECT_EQ((*results)[1].refusal->message, "no");
  EXPECT_EQ(node.path, "/v1/transactions/batch");
  EXPECT_EQ(node.content_type, "application/octet-stream");
  EXPECT_EQ(base::to_hex(base::as_bytes(node.body)), "0202010201ff");  // docs/api.md's example

  // A refused item without an id; a whole-request refusal is every item's.
  const Json undecoded{{"error", {{"code", "bad_encoding"}, {"message", "truncated"}}}};
  node.reply = testing::json_reply(200, Json{{"results", {admitted, undecoded}}});
  ASSERT_TRUE(api.submit_batch(encodings, ids));
  node.reply = testing::error_reply(503, "busy", "later");
  const auto busy = api.submit_batch(encodings, ids);
  ASSERT_TRUE(busy);
  ASSERT_EQ(busy->size(), 2u);
  for (const Submission& item : *busy) EXPECT_EQ(item.refusal->to_string(), "503 busy: later");

  // Replies that break docs/api.md: too few results, another id, a result
  // with both an error and a status, an unknown field; not 200.
  node.reply = testing::json_reply(200, Json{{"results", {admitted}}});
  EXPECT_TRUE(contains(api.submit_batch(encodings, ids).error().reason, "1 results for 2 transactions"));
  node.reply = testing::json_reply(200, Json{{"results", {refused, admitted}}});
  EXPECT_TRUE(contains(api.submit_batch(encodings, ids).error().reason, "result 0 names tx id"));
  Json both = refused;
  both["status"] = "pending";
  node.reply = testing::json_reply(200, Json{{"results", {admitted, both}}});
  EXPECT_TRUE(contains(api.submit_batch(encodings, ids).error().reason, "unknown field \"status\""));
  node.reply = testing::json_reply(200, Json{{"results", {admitted, refused}}, {"x", 1}});
  EXPECT_TRUE(contains(api.submit_batch(encodings, ids).error().reason, "unknown field \"x\""));
  node.reply = testing::json_reply(202, Json{{"results", {admitted, refused}}});
  EXPECT_TRUE(contains(api.submit_batch(encodings, ids).error().reason, "unexpected status 202"));

  // What the node would refuse whole is not sent.
  EXPECT_EQ(api.submit_batch({}).error().code, base::Errc::invalid_argument);
  const std::vector<base::ByteView> too_many(kMaxBatchTransactions + 1, base::ByteView(a));
  EXPECT_EQ(api.submit_batch(too_many).error().code, base::Errc::invalid_argument);
  EXPECT_EQ(api.submit_batch(encodings, {&ids[0], 1}).error().code, base::Errc::invalid_argument);
}

TEST(NodeApi, ReadsTransactionStatusAndAccounts) {
  Canned node;
  NodeApi api(node.call());
  const exec::Id id = hash_of_byte(4);
  node.reply =
      testing::json_reply(200, Json{{"status", "executed"},
                                    {"height", 12},
                                    {"index", 3},
                                    {"pulse_hash", base::to_hex(hash_of_byte(5))},
                                    {"receipt",
                                     {{"tx_id", base::to_hex(id)},
                                      {"status", "success"},
                                      {"status_code", 0},
                                      {"fee_paid", 24067},
                                      {"coins_created", 2},
                                      {"coin_ids", {base::to_hex(hash_of_byte(6)), base::to_hex(hash_of_byte(7))}},
                                      {"later", true}}},
                                    {"something_new", 1}});  // informational replies may grow
  const auto state = api.tx_status(id);
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_EQ(node.path, "/v1/transactions/" + base::to_hex(id));
  EXPECT_TRUE(state->executed());
  EXPECT_EQ(state->height, 12u);
  EXPECT_EQ(state->receipt->fee_paid, 24067u);
  EXPECT_EQ(state->receipt->coin_ids.size(), 2u);

  node.reply = testing::json_reply(200, Json{{"status", "executed"}, {"height", 12}});
  EXPECT_TRUE(contains(api.tx_status(id).error().reason, "an executed transaction needs"));
  node.reply = testing::error_reply(404, "not_found", "no such transaction");
  const auto missing = api.tx_status(id);
  EXPECT_EQ(missing.error().code, base::Errc::not_found);
  EXPECT_EQ(missing.error().reason,
            "GET /v1/transactions/" + base::to_hex(id) + ": 404 not_found: no such transaction");
  node.reply = testing::error_reply(429, "rate_limited", "slow down");
  EXPECT_EQ(api.tx_status(id).error().code, base::Errc::io_error);

  node.reply = testing::json_reply(200, Json{{"id", base::to_hex(id)},
                                             {"height", 4},
                                             {"exists", true},
                                             {"nonce", 2},
                                             {"keys_id", base::to_hex(hash_of_byte(8))},
                                             {"coins", {{{"id", base::to_hex(hash_of_byte(9))}, {"amount", 700}}}},
                                             {"balance", 700}});
  const auto account = api.account(id);
  ASSERT_TRUE(account) << account.error().to_string();
  EXPECT_EQ(account->nonce, 2u);
  ASSERT_EQ(account->coins.size(), 1u);
  EXPECT_EQ(account->coins[0].amount, 700u);
  EXPECT_FALSE(api.account(hash_of_byte(1)));  // the reply names another account
}

TEST(NodeApi, ReadsTheFakeNodesRoutes) {
  FakeNode node;
  node.add_pulse(3000, {{hash_of_byte(1), state::Object{2, 1, base::Bytes(40, 1)}}});
  node.add_pulse(10, {});
  node.sign_head();
  NodeApi api(node.call());

  const auto status = api.status();
  ASSERT_TRUE(status) << status.error().to_string();
  EXPECT_EQ(status->height, 2u);
  EXPECT_EQ(status->chain_id, 5u);

  const auto head = api.log_head();
  ASSERT_TRUE(head) << head.error().to_string();
  EXPECT_EQ(head->head, node.log().head());
  EXPECT_EQ(head->signer, exec::account_id(node.validator().public_bundle()));

  const auto pulse = api.pulse(std::nullopt);
  ASSERT_TRUE(pulse) << pulse.error().to_string();
  EXPECT_EQ(node.requests.back(), "GET /v1/pulses/latest");
  EXPECT_EQ(pulse->height, 2u);
  EXPECT_EQ(pulse->header, node.pulse(2).header);
  EXPECT_EQ(pulse->hash, exec::pulse_hash(pulse->header));
  EXPECT_EQ(pulse->header.parent, node.pulse(1).hash);
  EXPECT_EQ(node.pulse(1).header.parent, exec::pulse_hash(node.genesis_header()));
  EXPECT_EQ(pulse->header.data, node.pulse(2).data);

  const auto availability = api.availability(1);
  ASSERT_TRUE(availability) << availability.error().to_string();
  EXPECT_EQ(availability->availability.data_root().value(), node.pulse(1).data.data_root);

  const auto share = api.share(1, 3, 2);
  ASSERT_TRUE(share) << share.error().to_string();
  EXPECT_EQ(share->row(), 3u);
  EXPECT_EQ(share->column(), 2u);
  EXPECT_TRUE(da::verify_share(*share, node.pulse(1).data));

  // Entry h is Pulse h; entry 0 the genesis header (log size height + 1).
  const auto inclusion = api.inclusion(2, 3);
  ASSERT_TRUE(inclusion) << inclusion.error().to_string();
  EXPECT_EQ(node.requests.back(), "GET /v1/log/inclusion/2?size=3");
  EXPECT_EQ(inclusion->proof.leaf_index, 2u);
  EXPECT_EQ(inclusion->size, 3u);
  EXPECT_EQ(inclusion->pulse_hash, node.pulse(2).hash);
  EXPECT_TRUE(commit::verify_inclusion(kHeaderLogHasher, header_log_leaf_hash(inclusion->pulse_hash), inclusion->proof,
                                       node.log().head()));
  const auto genesis = api.inclusion(0);
  ASSERT_TRUE(genesis) << genesis.error().to_string();
  EXPECT_EQ(genesis->pulse_hash, exec::pulse_hash(node.genesis_header()));
  EXPECT_EQ(genesis->proof.leaf_index, 0u);

  const auto consistency = api.consistency(1, 3);
  ASSERT_TRUE(consistency) << consistency.error().to_string();
  EXPECT_EQ(node.requests.back(), "GET /v1/log/consistency?from=1&to=3");
  EXPECT_TRUE(
      commit::verify_consistency(kHeaderLogHasher, *consistency, node.log().head(1).value(), node.log().head()));

  const auto object = api.object(hash_of_byte(1), true, 1);
  ASSERT_TRUE(object) << object.error().to_string();
  EXPECT_EQ(node.requests.back(), "GET /v1/objects/" + base::to_hex(hash_of_byte(1)) + "?proof=true&height=1");
  ASSERT_TRUE(object->object);
  EXPECT_EQ(object->object->data, base::Bytes(40, 1));
  ASSERT_TRUE(object->proof);
  EXPECT_TRUE(commit::verify_state_proof(object->state_root, hash_of_byte(1), state::object_hash(*object->object),
                                         *object->proof));
  const auto absent = api.object(hash_of_byte(2), true);
  ASSERT_TRUE(absent) << absent.error().to_string();
  EXPECT_FALSE(absent->object);

  EXPECT_EQ(api.pulse(9).error().code, base::Errc::not_found);
}

// Replies that break docs/api.md: each refused, naming the route and the field.
TEST(NodeApi, RefusesMalformedReplies) {
  FakeNode node;
  node.add_pulse(100, {{hash_of_byte(1), state::Object{2, 1, base::Bytes(40, 1)}}});
  node.sign_head();
  NodeApi api(node.call());
  struct Case {
    std::string route;
    std::function<void(Json&)> edit;
    std::function<base::Status()> call;
    const char* expected;
  };
  const auto status_of = [](auto result) -> base::Status {
    if (!result) return base::fail(std::move(result).error());
    return {};
  };
  const std::vector<Case> cases = {
      {"/v1/log/head", [](Json& b) { b["root"] = std::string(62, '0'); }, [&] { return status_of(api.log_head()); },
       "GET /v1/log/head: $.root: expected 64 hex digits, got 62"},
      {"/v1/log/head", [](Json& b) { b["root"] = base::to_hex(hash_of_byte(1)); },
       [&] { return status_of(api.log_head()); }, "head_hex is not the head of size and root"},
      {"/v1/log/head", [](Json& b) { b["signer"] = "AB" + std::string(62, '0'); },
       [&] { return status_of(api.log_head()); }, "$.signer: expected lower-case hex digits"},
      {"/v1/log/head", [](Json& b) { b["head_hex"] = b["head_hex"].get<std::string>() + "00"; },
       [&] { return status_of(api.log_head()); }, "$.head_hex: not one canonical TreeHead encoding"},
      {"/v1/log/head", [](Json& b) { b["extra"] = 1; }, [&] { return status_of(api.log_head()); },
       "$: unknown field \"extra\""},
      {"/v1/log/head", [](Json& b) { b["size"] = -1; }, [&] { return status_of(api.log_head()); },
       "$.size: expected an unsigned integer"},
      {"/v1/pulses/1", [](Json& b) { b["header"]["data"]["original_width"] = 1.5; },
       [&] { return status_of(api.pulse(1)); }, "$.header.data.original_width"},
      {"/v1/pulses/1", [](Json& b) { b["header"]["height"] = 2; }, [&] { return status_of(api.pulse(1)); },
       "$: the header's JSON field \"height\" disagrees with header_hex"},
      {"/v1/pulses/1", [](Json& b) { b["header"]["params_hash"] = base::to_hex(hash_of_byte(9)); },
       [&] { return status_of(api.pulse(1)); }, "the header's JSON field \"params_hash\" disagrees with header_hex"},
      {"/v1/pulses/1", [](Json& b) { b["header_hex"] = b["header_hex"].get<std::string>().substr(2); },
       [&] { return status_of(api.pulse(1)); }, "$.header_hex: not one canonical PulseHeader encoding"},
      {"/v1/pulses/1", [](Json& b) { b["transactions"] = {"00"}; }, [&] { return status_of(api.pulse(1)); },
       "$.transactions[0]: expected 64 hex digits"},
      {"/v1/pulses/1/shares/0/1", [](Json& b) { b["column"] = 0; }, [&] { return status_of(api.share(1, 0, 1)); },
       "the reply is for share (0, 0)"},
      {"/v1/pulses/1/shares/0/1", [](Json& b) { b["proof_hex"] = "00"; }, [&] { return status_of(api.share(1, 0, 1)); },
       "$.proof_hex: not one canonical ShareProof encoding"},
      {"/v1/log/consistency?from=1&to=1", [](Json& b) { b["proof_hex"] = "0100000000000000020000000000000000"; },
       [&] { return status_of(api.consistency(1, 1)); }, "the proof is between sizes 1 and 2"},
      {"/v1/log/inclusion/1?size=2", [](Json& b) { b["proof_hex"] = "0100000000000000030000000000000000"; },
       [&] { return status_of(api.inclusion(1, 2)); }, "the proof is in the tree of size 3, not the reply's size 2"},
      {"/v1/log/inclusion/1?size=2", [](Json& b) { b["size"] = 3; }, [&] { return status_of(api.inclusion(1, 2)); },
       "the proof is in the tree of size 2, not the reply's size 3"},
      {"/v1/log/inclusion/1?size=2", [](Json& b) { b["proof_hex"] = "0000000000000000020000000000000000"; },
       [&] { return status_of(api.inclusion(1, 2)); }, "the proof is of entry 0, not entry 1"},
      {"/v1/log/inclusion/1?size=2", [](Json& b) { b["leaf_hash"] = b["pulse_hash"]; },
       [&] { return status_of(api.inclusion(1, 2)); }, "$: unknown field \"leaf_hash\""},
      {"/v1/objects/" + base::to_hex(hash_of_byte(1)) + "?proof=true", [](Json& b) { b.erase("proof_hex"); },
       [&] { return status_of(api.object(hash_of_byte(1))); }, "missing field \"proof_hex\""},
      {"/v1/objects/" + base::to_hex(hash_of_byte(1)) + "?proof=true", [](Json& b) { b["proof_hex"] = "0100"; },
       [&] { return status_of(api.object(hash_of_byte(1))); }, "$.proof_hex: not a StateProof"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.route);
    node.tamper = [&](const std::string& path, Json& body) {
      if (path == c.route) c.edit(body);
    };
    const auto result = c.call();
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, base::Errc::invalid_value);
    EXPECT_TRUE(contains(result.error().reason, c.expected)) << result.error().reason;
  }
  node.tamper = [](const std::string& path, Json& body) {
    if (path == "/v1/status") body["future_field"] = {{"a", 1}};
  };
  EXPECT_TRUE(api.status());  // informational: a newer node may add fields
}

}  // namespace
}  // namespace sion::wallet
