// POST /v1/transactions/batch (docs/api.md) on a real node: through
// http::Server::dispatch for the answers to every kind of body, and over a
// loopback socket from the wallet's NodeApi::submit_batch. Two admission
// workers, so a batch is split into chunks.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api_fixture.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/http/parse.hpp"
#include "sion/node/api.hpp"
#include "sion/node/submission_body.hpp"
#include "sion/wallet/api_replies.hpp"
#include "sion/wallet/http_transport.hpp"
#include "sion/wallet/node_api.hpp"
#include "sion/wallet/tx_batch.hpp"

namespace sion::node {
namespace {

constexpr std::size_t kSenders = 4;

using testing::hybrid;
using testing::text;

// kSenders accounts with two genesis coins each (coins 2a and 2a + 1), one
// validator, and the node's API on a server that starts only when a test
// asks.
struct BatchFixture {
  base::testing::TempDir dir;
  std::vector<crypto::SigningBundle> senders;
  exec::Genesis genesis;
  exec::Id bob{};
  std::unique_ptr<Node> node;
  http::Server server;
  std::unique_ptr<Api> api;
  std::uint64_t now = 1'767'225'600'000;

  static http::ServerOptions server_options() {
    http::ServerOptions options;
    options.port = 0;
    options.io_threads = 1;
    return options;
  }

  BatchFixture() : server(server_options()) {
    bob.fill(0xb0);
    genesis.params.chain_id = 7;
    for (std::size_t a = 0; a < kSenders; ++a) {
      senders.push_back(hybrid(static_cast<std::uint8_t>(10 + a)));
      genesis.accounts.push_back({senders.back().public_bundle(), {1'000'000'000, 1'000'000'000}});
    }
    genesis.validators.push_back({hybrid(3).public_bundle()});
    genesis.consensus.pulse_vote_legs = {crypto::Scheme::ml_dsa_44};  // a hybrid bundle has no SLH-DSA key
    node = testing::open_test_node(dir.str(), genesis);
    ApiOptions api_options;
    api_options.admission_threads = 2;
    api = std::make_unique<Api>(*node, server, api_options);
    EXPECT_TRUE(api->register_routes());
  }
  ~BatchFixture() {
    server.stop();
    api.reset();
  }

  // Sender a's transfer at `nonce` spending `coin`.
  exec::Transaction pay(std::size_t a, std::uint64_t nonce, const exec::Id& coin) const {
    const exec::Output output{bob, 1000};
    return exec::make_transfer(senders[a], genesis.params, nonce, {&coin, 1}, {&output, 1}, std::nullopt,
                               crypto::Hedging::deterministic)
        .value();
  }
  static exec::Id coin(std::size_t a, std::size_t k) {
    return exec::genesis_coin_id(static_cast<std::uint32_t>(2 * a + k));
  }
  static exec::Id change_of(const exec::Transaction& tx) { return exec::coin_id(exec::tx_id(tx.payload), 1); }

  http::Response post(std::string_view content_type, const std::string& body,
                      std::string_view target = "/v1/transactions/batch") {
    const std::string request = "POST " + std::string(target) +
                                " HTTP/1.1\r\nContent-Type: " + std::string(content_type) +
                                "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return server.dispatch(http::parse_request(base::as_bytes(request), server.options()).value());
  }
  http::Response post_batch(const std::vector<exec::Transaction>& txs) {
    std::vector<base::Bytes> encodings;
    for (const exec::Transaction& tx : txs) encodings.push_back(codec::encode(tx));
    const std::vector<base::ByteView> views(encodings.begin(), encodings.end());
    return post("application/octet-stream", text(wallet::encode_tx_batch(views)));
  }
  std::string tx_status(const exec::Id& id) {
    const std::string request = "GET /v1/transactions/" + base::to_hex(id) + " HTTP/1.1\r\n\r\n";
    const http::Response answer =
        server.dispatch(http::parse_request(base::as_bytes(request), server.options()).value());
    auto state = wallet::parse_tx_state_reply(answer.body, id);
    return state ? state->status : "unreadable: " + answer.body;
  }
  void produce() {
    now += 1000;
    ASSERT_TRUE(node->produce(now).value());
  }
  std::uint64_t submission_errors(std::string_view code) const {
    for (const auto& [name, count] : api->submission_errors()) {
      if (name == code) return count;
    }
    return 0;
  }
};

std::vector<wallet::Submission> results_of(const http::Response& answer, std::size_t count) {
  EXPECT_EQ(answer.status, 200u) << answer.body;
  auto results = wallet::parse_batch_submission_reply(answer.body, count);
  EXPECT_TRUE(results) << results.error().to_string() << "\n" << answer.body;
  return results ? *results : std::vector<wallet::Submission>(count);
}

std::string error_code(const http::Response& answer) {
  return wallet::parse_api_error(answer.status, answer.content_type, answer.body).code;
}

TEST(ApiBatch, TransfersOfManySendersAndChainedNoncesAreAdmittedThenExecuted) {
  BatchFixture f;
  // Every sender's nonces 0, 1, 2, each spending the change of the one
  // before (so the later ones need the earlier ones pooled), interleaved as
  // the load generator sends them.
  std::vector<exec::Transaction> txs;
  std::vector<exec::Id> last(kSenders);
  for (std::size_t a = 0; a < kSenders; ++a) last[a] = BatchFixture::coin(a, 0);
  for (std::uint64_t nonce = 0; nonce < 3; ++nonce) {
    for (std::size_t a = 0; a < kSenders; ++a) {
      txs.push_back(f.pay(a, nonce, last[a]));
      last[a] = BatchFixture::change_of(txs.back());
    }
  }
  const auto results = results_of(f.post_batch(txs), txs.size());
  for (std::size_t i = 0; i < txs.size(); ++i) {
    ASSERT_TRUE(results[i].admitted()) << i << ": " << results[i].refusal->to_string();
    EXPECT_EQ(results[i].tx_id, exec::tx_id(txs[i].payload)) << i;
    EXPECT_FALSE(results[i].held) << i;
  }
  f.produce();
  for (const exec::Transaction& tx : txs) EXPECT_EQ(f.tx_status(exec::tx_id(tx.payload)), "executed");
}

TEST(ApiBatch, AHeldNonceBecomesPendingWhenALaterBatchFillsTheGap) {
  BatchFixture f;
  // Nonce 1 spends the sender's second genesis coin, so it needs nothing
  // pooled: it waits for nonce 0.
  const exec::Transaction second = f.pay(0, 1, BatchFixture::coin(0, 1));
  const exec::Transaction first = f.pay(0, 0, BatchFixture::coin(0, 0));
  const auto held = results_of(f.post_batch({second}), 1);
  ASSERT_TRUE(held[0].admitted());
  EXPECT_TRUE(held[0].held);
  EXPECT_EQ(f.tx_status(exec::tx_id(second.payload)), "held");
  const auto pending = results_of(f.post_batch({first}), 1);
  ASSERT_TRUE(pending[0].admitted());
  EXPECT_FALSE(pending[0].held);
  EXPECT_EQ(f.tx_status(exec::tx_id(second.payload)), "pending");
  f.produce();
  EXPECT_EQ(f.tx_status(exec::tx_id(first.payload)), "executed");
  EXPECT_EQ(f.tx_status(exec::tx_id(second.payload)), "executed");
}

TEST(ApiBatch, EachItemOfAMixedBatchGetsItsOwnAnswerInOrder) {
  BatchFixture f;
  const exec::Transaction good = f.pay(0, 0, BatchFixture::coin(0, 0));
  const exec::Transaction other = f.pay(1, 0, BatchFixture::coin(1, 0));
  exec::Transaction forged = f.pay(2, 0, BatchFixture::coin(2, 0));
  forged.auth = f.pay(2, 0, BatchFixture::coin(2, 1)).auth;  // another payload's signatures
  const std::string good_hex = base::to_hex(codec::encode(good));
  const std::string body = "{\"transactions\":[\"" + good_hex + "\",\"0G\",\"0102\",\"" +
                           base::to_hex(codec::encode(forged)) + "\",\"" + good_hex + "\",\"" +
                           base::to_hex(codec::encode(other)) + "\"]}";
  const auto results = results_of(f.post("application/json", body), 6);
  ASSERT_TRUE(results[0].admitted());
  EXPECT_EQ(results[0].tx_id, exec::tx_id(good.payload));
  const auto refused = [&](std::size_t i, std::string_view code) {
    ASSERT_FALSE(results[i].admitted()) << i;
    EXPECT_EQ(results[i].refusal->code, code) << i << ": " << results[i].refusal->message;
    EXPECT_FALSE(results[i].refusal->message.empty()) << i;
  };
  refused(1, "bad_hex");
  EXPECT_EQ(results[1].tx_id, exec::Id{});  // never decoded: no id
  refused(2, "bad_encoding");
  refused(3, "bad_signature");
  EXPECT_EQ(results[3].tx_id, exec::tx_id(forged.payload));
  refused(4, "already_pooled");
  EXPECT_EQ(results[4].tx_id, exec::tx_id(good.payload));
  ASSERT_TRUE(results[5].admitted());
  EXPECT_EQ(results[5].tx_id, exec::tx_id(other.payload));
  // Counted as the single route counts them.
  EXPECT_EQ(f.submission_errors("bad_hex"), 1u);
  EXPECT_EQ(f.submission_errors("bad_encoding"), 1u);
  f.produce();
  EXPECT_EQ(f.tx_status(exec::tx_id(good.payload)), "executed");
  EXPECT_EQ(f.tx_status(exec::tx_id(other.payload)), "executed");
}

TEST(ApiBatch, ABodyThatIsNotABatchIsRefusedWhole) {
  BatchFixture f;
  const std::string hex = base::to_hex(codec::encode(f.pay(0, 0, BatchFixture::coin(0, 0))));
  const auto expect = [&](const http::Response& answer, unsigned status, std::string_view code, std::string what) {
    EXPECT_EQ(answer.status, status) << what << ": " << answer.body;
    EXPECT_EQ(error_code(answer), code) << what << ": " << answer.body;
  };
  // JSON: the count, then the shape.
  expect(f.post("application/json", "{\"transactions\":[]}"), 400, "bad_request", "empty");
  std::string many = "{\"transactions\":[";
  for (std::size_t i = 0; i <= wallet::kMaxBatchTransactions; ++i) many += (i == 0 ? "\"00\"" : ",\"00\"");
  many += "]}";
  const http::Response too_many = f.post("application/json", many);
  expect(too_many, 400, "bad_request", "257 transactions");
  EXPECT_NE(too_many.body.find("257"), std::string::npos) << too_many.body;
  EXPECT_NE(too_many.body.find("256"), std::string::npos) << too_many.body;
  for (const std::string& body :
       {std::string("[]"), std::string("{}"), std::string("{\"transactions\":\"" + hex + "\"}"),
        std::string("{\"transactions\":[\"" + hex + "\"],\"fee\":1}"), std::string("{\"transaction\":[\"00\"]}"),
        std::string("{\"transactions\":[\"00\",5]}"), std::string("{\"transactions\":[null]}"),
        std::string("{\"transactions\":[\"00\""), std::string("")}) {
    expect(f.post("application/json", body), 400, "bad_json", body);
  }
  // Octet-stream: a count out of range, then broken framing.
  expect(f.post("application/octet-stream", std::string(1, '\0')), 400, "bad_request", "count 0");
  expect(f.post("application/octet-stream", "\x81\x02"), 400, "bad_request", "count 257");
  const base::Bytes encoded = codec::encode(f.pay(0, 0, BatchFixture::coin(0, 0)));
  const std::vector<base::ByteView> one = {encoded};
  const std::string body = text(wallet::encode_tx_batch(one));
  expect(f.post("application/octet-stream", body.substr(0, body.size() - 1)), 400, "bad_encoding", "truncated");
  expect(f.post("application/octet-stream", body + "x"), 400, "bad_encoding", "trailing byte");
  expect(f.post("application/octet-stream", ""), 400, "bad_encoding", "empty body");
  expect(f.post("application/octet-stream", "\x02\x01"), 400, "bad_encoding", "second element missing");
  expect(f.post("text/plain", body), 415, "unsupported_media_type", "text/plain");
  EXPECT_EQ(f.submission_errors("bad_encoding"), 4u);
  EXPECT_EQ(f.node->mempool().transactions, 0u);
}

TEST(ApiBatch, BodyParserKnownAnswer) {
  // docs/api.md's example: two elements, 01 02 and ff.
  const base::Bytes a = {0x01, 0x02};
  const base::Bytes b = {0xff};
  const std::vector<base::ByteView> views = {a, b};
  const base::Bytes body = wallet::encode_tx_batch(views);
  EXPECT_EQ(base::to_hex(body), "0202010201ff");
  EXPECT_EQ(body, codec::encode(wallet::TxBatchBody{a, b}));
  const std::string type = "application/octet-stream";
  auto parsed = submitted_batch(&type, text(body));
  ASSERT_TRUE(std::holds_alternative<std::vector<BatchElement>>(parsed));
  const auto& elements = std::get<std::vector<BatchElement>>(parsed);
  ASSERT_EQ(elements.size(), 2u);
  EXPECT_EQ(elements[0].bytes, a);
  EXPECT_EQ(elements[1].bytes, b);
}

TEST(ApiBatch, TheWalletSubmitsABatchOverLoopback) {
  BatchFixture f;
  ASSERT_TRUE(f.server.start());
  auto call = wallet::http_call_for("http://127.0.0.1:" + std::to_string(f.server.port()));
  ASSERT_TRUE(call);
  wallet::NodeApi client(std::move(call).value());
  std::vector<base::Bytes> encodings;
  std::vector<exec::Id> ids;
  for (std::size_t a = 0; a < kSenders; ++a) {
    const exec::Transaction tx = f.pay(a, 0, BatchFixture::coin(a, 0));
    encodings.push_back(codec::encode(tx));
    ids.push_back(exec::tx_id(tx.payload));
  }
  encodings.push_back(encodings.front());  // a duplicate: refused, named by its id
  ids.push_back(ids.front());
  const std::vector<base::ByteView> views(encodings.begin(), encodings.end());
  auto results = client.submit_batch(views, ids);
  ASSERT_TRUE(results) << results.error().to_string();
  ASSERT_EQ(results->size(), kSenders + 1);
  for (std::size_t a = 0; a < kSenders; ++a) EXPECT_TRUE((*results)[a].admitted()) << a;
  ASSERT_FALSE(results->back().admitted());
  EXPECT_EQ(results->back().refusal->code, "already_pooled");
  // The client refuses to send what the node would refuse whole.
  EXPECT_EQ(client.submit_batch({}).error().code, base::Errc::invalid_argument);
}

}  // namespace
}  // namespace sion::node
