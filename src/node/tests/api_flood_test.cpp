// The node's API (docs/api.md) under more than 10,000 requests that are
// valid HTTP but wrong for its routes, sent over loopback sockets from two
// threads on kept-alive and fresh connections: bodies that are not the JSON,
// hex or encoding POST /v1/transactions takes, transactions the mempool
// refuses, bodies over the limit, content types it does not take, path and
// query parameters that are not numbers or ids, unknown routes and methods.
// Each gets its documented status and error code. Meanwhile a well-behaved
// client keeps submitting transfers and reading the status, answered
// correctly and in bounded time, and its transfers are executed; at the end
// the node's counters (GET /metrics) account for every refused submission.
// (The HTTP layer's own flood, of requests that are not valid HTTP, is
// src/http/tests/flood_test.cpp.)

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api_fixture.hpp"
#include "sion/base/testing/sanitizers.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/http/client.hpp"
#include "sion/http/testing/raw_socket.hpp"
#include "sion/node/service.hpp"
#include "sion/wallet/api_replies.hpp"

namespace sion::node {
namespace {

using namespace std::chrono_literals;
namespace raw = http::testing;

constexpr int kFloodThreads = 2;
constexpr int kRequestsPerThread = 5'100;
constexpr std::size_t kMaxBody = 64 * 1024;
constexpr std::size_t kTransfers = 300;           // the most the well-behaved client submits
constexpr std::uint64_t kMaxPooled = 6;           // it waits while the mempool holds this many
constexpr auto kInterval = 100ms;                 // a Pulse every interval, when there is something to include
constexpr std::int64_t kWorstMicros = 2'000'000;  // a well-behaved request's bound (not under a sanitizer)

const std::string kMaxU64 = "18446744073709551615";

using testing::hybrid;
using testing::text;

std::string request_text(std::string_view method, std::string_view target, std::string_view fields = {},
                         std::string_view body = {}) {
  std::string out = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  out += fields;
  if (!body.empty() || method == "POST") out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "\r\n";
  out += body;
  return out;
}

std::string submit_text(std::string_view content_type, std::string_view body) {
  const std::string fields =
      content_type.empty() ? std::string() : "Content-Type: " + std::string(content_type) + "\r\n";
  return request_text("POST", "/v1/transactions", fields, body);
}

std::string json_body(std::string_view hex) { return "{\"transaction\":\"" + std::string(hex) + "\"}"; }

// One malformed request and the answer docs/api.md (and docs/http.md, for
// what the server refuses before any route) gives it.
struct Case {
  std::string label;
  std::string request;
  unsigned status = 0;
  std::string code;
  bool submission = false;  // POST /v1/transactions
};

// Alice, the well-behaved client's sender; Mallory, whose transactions are
// never admitted; Carol, whose coin Mallory tries to spend; one validator.
struct World {
  crypto::SigningBundle alice = hybrid(1);
  crypto::SigningBundle mallory = hybrid(2);
  crypto::SigningBundle carol = hybrid(4);
  exec::Genesis genesis;
  exec::Id bob{};
  std::vector<exec::Transaction> transfers;  // Alice's, each spending the change of the one before

  World() {
    bob.fill(0xb0);
    genesis.params.chain_id = 7;
    genesis.accounts.push_back({alice.public_bundle(), {1'000'000'000}});    // coin 0
    genesis.accounts.push_back({mallory.public_bundle(), {1'000'000'000}});  // coin 1
    genesis.accounts.push_back({carol.public_bundle(), {1'000'000'000}});    // coin 2
    genesis.validators.push_back({hybrid(3).public_bundle()});
    genesis.consensus.pulse_vote_legs = {crypto::Scheme::ml_dsa_44};  // a hybrid bundle has no SLH-DSA key
    exec::Id coin = exec::genesis_coin_id(0);
    for (std::size_t k = 0; k < kTransfers; ++k) {
      const exec::Output output{bob, 1000};
      transfers.push_back(exec::make_transfer(alice, genesis.params, k, {&coin, 1}, {&output, 1}, std::nullopt,
                                              crypto::Hedging::deterministic)
                              .value());
      coin = exec::coin_id(exec::tx_id(transfers.back().payload), 1);  // the change, after one output
    }
  }

  exec::Id id_of(const crypto::SigningBundle& who) const { return exec::account_id(who.public_bundle()); }

  // A transfer by Mallory; valid unless the arguments make it otherwise.
  exec::Transaction mallory_pays(std::vector<exec::Id> inputs, exec::Amount amount, std::uint64_t nonce = 0,
                                 std::uint64_t chain_id = 7, std::optional<exec::Amount> fee = std::nullopt) const {
    exec::ChainParams params = genesis.params;
    params.chain_id = chain_id;
    const exec::Output output{bob, amount};
    return exec::make_transfer(mallory, params, nonce, inputs, {&output, 1}, fee, crypto::Hedging::deterministic)
        .value();
  }
};

// Every malformed request the flood sends. `flipped` holds Mallory's valid
// transfer with one byte changed, and the answer the node's admission gives
// it when submitted directly (the flood checks that the API answers the same
// under load): either 400 bad_encoding, or 422 with the mempool's code.
std::vector<Case> malformed_cases(const World& w, const std::vector<std::pair<std::string, Case>>& flipped,
                                  std::mt19937& random) {
  std::vector<Case> out;
  const auto add = [&](std::string label, std::string request, unsigned status, std::string code) {
    const bool submission = request.starts_with("POST /v1/transactions ");
    out.push_back(Case{std::move(label), std::move(request), status, std::move(code), submission});
  };
  const std::string octet = "application/octet-stream";
  const std::string json = "application/json";
  const exec::Transaction valid = w.mallory_pays({exec::genesis_coin_id(1)}, 1000);
  const std::string valid_bytes = text(codec::encode(valid));
  const std::string valid_hex = base::to_hex(codec::encode(valid));

  // ---- POST /v1/transactions: JSON that is not what the route takes ----
  for (const std::string& body :
       std::vector<std::string>{"",
                                "{",
                                "{\"transaction\":",
                                "{\"transaction\":\"" + valid_hex.substr(0, 100),
                                "null",
                                "5",
                                "[]",
                                "\"" + valid_hex + "\"",
                                "{}",
                                "{\"tx\":\"" + valid_hex + "\"}",
                                "{\"transaction\":5}",
                                "{\"transaction\":null}",
                                "{\"transaction\":true}",
                                "{\"transaction\":-1}",
                                "{\"transaction\":[\"" + valid_hex + "\"]}",
                                "{\"transaction\":{\"hex\":\"00\"}}",
                                "{\"transaction\":1e400}",
                                "{\"transaction\":\"" + valid_hex + "\",\"transaction\":\"" + valid_hex + "\"}",
                                "{\"transaction\":\"00\",\"transaction\":5}",
                                "{\"transaction\":\"" + valid_hex + "\",\"fee\":1}",
                                json_body(valid_hex) + " x",
                                json_body(valid_hex) + json_body(valid_hex),
                                "{'transaction':'00'}",
                                "{\"transaction\":\"00\",}",
                                "transaction=" + valid_hex,
                                "{\"transaction\":\"\xff\xfe\"}",
                                std::string(40, '[') + std::string(40, ']'),
                                "{\"transaction\":" + std::string(33, '[') + std::string(33, ']') + "}",
                                std::string(50'000, '['),
                                "{\"a\":" + std::string(20'000, '{')}) {
    add("bad json", submit_text(json, body), 400, "bad_json");
  }
  // ---- ... JSON whose hex is not hex of a transaction's bytes ----
  for (const std::string& hex :
       {valid_hex.substr(1), std::string("0"), std::string("zz"), std::string(""), "0x" + valid_hex,
        valid_hex.substr(0, 40) + "g" + valid_hex.substr(41), std::string(" 00"), std::string("00 "),
        std::string("0abcAB"), std::string(30'000, 'q')}) {
    add("bad hex", submit_text(json, json_body(hex)), 400, "bad_hex");
  }
  {
    std::string upper = valid_hex;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    add("upper-case hex", submit_text(json, json_body(upper)), 400, "bad_hex");
  }
  for (const std::string& hex : {std::string("00"), valid_hex.substr(0, 200), valid_hex + "00"}) {
    add("json, not an encoding", submit_text(json, json_body(hex)), 400, "bad_encoding");
  }
  // ---- ... codec bytes that are not a transaction ----
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{8}, std::size_t{33},
                                 std::size_t{100}, valid_bytes.size() / 2, valid_bytes.size() - 1}) {
    add("truncated", submit_text(octet, valid_bytes.substr(0, size)), 400, "bad_encoding");
  }
  add("trailing byte", submit_text(octet, valid_bytes + '\0'), 400, "bad_encoding");
  add("twice", submit_text(octet, valid_bytes + valid_bytes), 400, "bad_encoding");
  for (int i = 0; i < 40; ++i) {
    std::string garbage(1 + random() % (i < 35 ? 600 : kMaxBody - 1024), '\0');
    for (char& c : garbage) c = static_cast<char>(random());
    if (codec::decode<exec::Transaction>(base::as_bytes(garbage))) continue;  // (never: but then it is no case)
    add("random bytes", submit_text(octet, garbage), 400, "bad_encoding");
  }
  // ---- ... one byte flipped: the same answer as the node gave directly ----
  for (const auto& [hex, flip] : flipped) {
    out.push_back(flip);
    Case as_json = flip;
    as_json.label += " (json)";
    as_json.request = submit_text(json, json_body(hex));
    out.push_back(as_json);
  }
  // ---- ... transactions that decode and that the mempool refuses ----
  exec::Transaction forged = valid;
  std::get<exec::Transfer>(forged.payload.body).outputs[0].amount = 2000;  // not what Mallory signed
  exec::Transaction resigned = valid;
  resigned.auth = w.mallory_pays({exec::genesis_coin_id(1)}, 999).auth;  // signs another payload
  exec::Id missing{};
  missing.fill(0x77);
  exec::TxPayload as_carol = valid.payload;
  as_carol.sender = w.id_of(w.carol);
  const std::vector<std::pair<exec::Transaction, std::string>> refused = {
      {forged, "bad_signature"},
      {resigned, "bad_signature"},
      {w.transfers[0], "nonce_too_low"},  // executed before the flood
      {w.mallory_pays({exec::genesis_coin_id(1)}, 1000, 0, 8), "wrong_chain"},
      {w.mallory_pays({exec::genesis_coin_id(1)}, 1), "dust_output"},
      {w.mallory_pays({exec::genesis_coin_id(1)}, 1000, 0, 7, 1), "fee_below_floor"},
      {w.mallory_pays({missing}, 1000), "fee_unpayable"},
      {w.mallory_pays({exec::genesis_coin_id(1), missing}, 1000), "unknown_input"},
      {w.mallory_pays({exec::genesis_coin_id(1), exec::genesis_coin_id(2)}, 1000), "input_not_owned"},
      {w.mallory_pays({exec::genesis_coin_id(1)}, 1000, 1000), "nonce_too_far_ahead"},
      {exec::sign_transaction(w.mallory, as_carol, crypto::Hedging::deterministic).value(), "wrong_keys"},
  };
  for (const auto& [tx, code] : refused) {
    const base::Bytes bytes = codec::encode(tx);
    add("refused " + code, submit_text(octet, text(bytes)), 422, code);
    add("refused " + code + " (json)", submit_text(json, json_body(base::to_hex(bytes))), 422, code);
  }
  // ---- ... content types the route does not take (a valid body) ----
  for (const std::string& type :
       {std::string(), std::string("text/plain"), std::string("application/x-www-form-urlencoded"),
        std::string("application/octet-streamx"), std::string("application/json-seq"),
        std::string("multipart/form-data; boundary=x"), std::string("octet-stream"), std::string("application/ json"),
        std::string("*/*")}) {
    add("media type '" + type + "'", submit_text(type, valid_bytes), 415, "unsupported_media_type");
  }
  // Ones it takes, written as RFC 9110 §8.3.1 allows, with a body that is not a transaction.
  for (const std::string& type :
       {std::string("APPLICATION/OCTET-STREAM"), std::string("application/octet-stream ; x=1"),
        std::string("application/octet-stream;x=1")}) {
    add("media type '" + type + "'", submit_text(type, "\x01\x02"), 400, "bad_encoding");
  }
  for (const std::string& type : {std::string("Application/Json"), std::string("application/json ; charset=utf-8"),
                                  std::string("application/json;charset=utf-8")}) {
    add("media type '" + type + "'", submit_text(type, json_body("0102")), 400, "bad_encoding");
  }
  // ---- ... bodies over the limit (docs/http.md: 413 closes the connection) ----
  add("declared too large",
      "POST /v1/transactions HTTP/1.1\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
          std::to_string(kMaxBody + 1) + "\r\n\r\n" + valid_bytes,
      413, "body_too_large");
  add("declared huge",
      "POST /v1/transactions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: " +
          std::to_string(1ull << 40) + "\r\n\r\n{",
      413, "body_too_large");
  {
    const std::string chunk(40 * 1024, '7');
    std::string chunked =
        "POST /v1/transactions HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < 2; ++i) chunked += "a000\r\n" + chunk + "\r\n";
    chunked += "0\r\n\r\n";
    add("chunked too large", chunked, 413, "body_too_large");
  }
  add("length overflows", "POST /v1/transactions HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400,
      "bad_request");

  // ---- GET /v1/transactions/{id} ----
  const std::string some_id = base::to_hex(exec::tx_id(valid.payload));
  std::string upper_id = some_id;
  for (char& c : upper_id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::vector<std::string> bad_ids = {"abc",
                                            some_id.substr(1),
                                            some_id + "0",
                                            some_id + "00",
                                            std::string(64, 'g'),
                                            upper_id,
                                            "%20" + some_id.substr(1),
                                            some_id.substr(0, 63) + "%00",
                                            "0x" + some_id.substr(2),
                                            "-" + some_id.substr(1)};
  for (const std::string& id : bad_ids) add("bad tx id", request_text("GET", "/v1/transactions/" + id), 400, "bad_hex");
  add("unseen tx", request_text("GET", "/v1/transactions/" + std::string(64, '0')), 404, "not_found");

  // ---- Pulses, availability, shares ----
  const std::vector<std::string> bad_numbers = {
      "abc",  "-1",   "+1",     "1.5",  "0x1", "1e3", "99999999999999999999", "18446744073709551616",
      "%201", "1%00", "LATEST", "%2D1", " 1"};
  for (const std::string& n : bad_numbers) {
    if (n == " 1") continue;  // a space is not allowed in a target; %20 is the same parameter
    add("bad height", request_text("GET", "/v1/pulses/" + n), 400, "bad_request");
    add("bad height", request_text("GET", "/v1/pulses/" + n + "/availability"), 400, "bad_request");
    add("bad height", request_text("GET", "/v1/pulses/" + n + "/shares/0/0"), 400, "bad_request");
    add("bad row", request_text("GET", "/v1/pulses/1/shares/" + n + "/0"), 400, "bad_request");
    add("bad column", request_text("GET", "/v1/pulses/latest/shares/0/" + n), 400, "bad_request");
    add("bad height", request_text("GET", "/v1/log/inclusion/" + n), 400, "bad_request");
    add("bad size", request_text("GET", "/v1/log/inclusion/0?size=" + n), 400, "bad_request");
    add("bad object height", request_text("GET", "/v1/objects/" + some_id + "?height=" + n), 400, "bad_request");
    add("bad from", request_text("GET", "/v1/log/consistency?from=" + n + "&to=1"), 400, "bad_request");
    add("bad to", request_text("GET", "/v1/log/consistency?from=1&to=" + n), 400, "bad_request");
    add("bad event id", request_text("GET", "/v1/events", "Last-Event-ID: " + n + "\r\n"), 400, "bad_request");
  }
  for (const std::string& n : {std::string("0"), kMaxU64}) {
    add("no such pulse", request_text("GET", "/v1/pulses/" + n), 404, "not_found");
    add("no such pulse", request_text("GET", "/v1/pulses/" + n + "/availability"), 404, "not_found");
    add("no such pulse", request_text("GET", "/v1/pulses/" + n + "/shares/0/0"), 404, "not_found");
  }
  add("no such share", request_text("GET", "/v1/pulses/1/shares/" + kMaxU64 + "/0"), 404, "not_found");
  add("no such share", request_text("GET", "/v1/pulses/1/shares/0/4294967296"), 404, "not_found");
  // ---- Objects and accounts ----
  for (const std::string& id : bad_ids) {
    add("bad object id", request_text("GET", "/v1/objects/" + id), 400, "bad_hex");
    add("bad account id", request_text("GET", "/v1/accounts/" + id), 400, "bad_hex");
    add("bad event account", request_text("GET", "/v1/events?account=" + id), 400, "bad_hex");
  }
  add("bad event account", request_text("GET", "/v1/events?account="), 400, "bad_hex");
  for (const char* proof : {"yes", "1", "TRUE", "", "true%00"}) {
    add("bad proof flag", request_text("GET", "/v1/objects/" + some_id + "?proof=" + proof), 400, "bad_request");
  }
  add("object above the chain", request_text("GET", "/v1/objects/" + some_id + "?height=" + kMaxU64), 404, "not_found");
  add("query name twice", request_text("GET", "/v1/objects/" + some_id + "?proof=true&proof=true"), 400, "bad_request");
  // ---- The header log ----
  add("no such entry", request_text("GET", "/v1/log/inclusion/" + kMaxU64), 404, "not_found");
  add("no such size", request_text("GET", "/v1/log/inclusion/0?size=" + kMaxU64), 404, "not_found");
  add("empty log", request_text("GET", "/v1/log/inclusion/0?size=0"), 404, "not_found");
  for (const std::string& query :
       {std::string(), std::string("?from=1"), std::string("?to=1"), std::string("?from=&to="),
        std::string("?from=0&to=1"), std::string("?from=2&to=1"), "?from=" + kMaxU64 + "&to=1"}) {
    add("bad consistency sizes", request_text("GET", "/v1/log/consistency" + query), 400, "bad_request");
  }
  add("no such size", request_text("GET", "/v1/log/consistency?from=1&to=" + kMaxU64), 404, "not_found");
  // ---- Methods no route has, paths no route has, malformed escapes ----
  for (const auto& [method, target] :
       std::vector<std::pair<std::string, std::string>>{{"POST", "/v1/status"},
                                                        {"DELETE", "/v1/transactions"},
                                                        {"GET", "/v1/transactions"},
                                                        {"PUT", "/v1/transactions"},
                                                        {"POST", "/v1/transactions/" + some_id},
                                                        {"PUT", "/v1/pulses/1"},
                                                        {"DELETE", "/v1/pulses/latest/availability"},
                                                        {"PATCH", "/v1/accounts/" + some_id},
                                                        {"POST", "/v1/objects/" + some_id},
                                                        {"POST", "/metrics"},
                                                        {"HEAD", "/v1/status"},
                                                        {"OPTIONS", "/v1/log/head"},
                                                        {"DELETE", "/v1/events"},
                                                        {"POST", "/v1/log/consistency?from=1&to=1"}}) {
    add("wrong method", request_text(method, target), 405, "method_not_allowed");
  }
  for (const std::string& target :
       {std::string("/v1/nothing"), std::string("/v2/status"), std::string("/v1/status/"), std::string("/v1/pulses"),
        std::string("/v1/pulses/1/shares/0"), std::string("/V1/STATUS"), "/v1/transactions/" + some_id + "/x",
        std::string("/v1/log"), std::string("/metrics/x"), std::string("/"), std::string("/v1/transactions/"),
        std::string("/v1//status"), std::string("/v1/%73tatus/x")}) {
    add("no route", request_text("GET", target), 404, "not_found");
  }
  add("no route", submit_text(octet, valid_bytes).replace(5, 16, "/v1/transaction"), 404, "not_found");
  for (const char* target : {"/v1/pulses/%zz", "/v1/objects/%", "/v1/status?x=%g0"}) {
    add("bad escape", request_text("GET", target), 400, "bad_request");
  }
  return out;
}

// `name{label="value"} count` samples of one family in a Prometheus text.
std::map<std::string, std::uint64_t> samples(const std::string& metrics, const std::string& family,
                                             const std::string& label) {
  std::map<std::string, std::uint64_t> out;
  const std::string prefix = family + "{" + label + "=\"";
  std::size_t at = 0;
  while ((at = metrics.find(prefix, at)) != std::string::npos) {
    if (at != 0 && metrics[at - 1] != '\n') {
      at += prefix.size();
      continue;
    }
    const std::size_t value_start = at + prefix.size();
    const std::size_t quote = metrics.find('"', value_start);
    const std::size_t space = metrics.find(' ', quote);
    const std::size_t end = metrics.find('\n', space);
    out[metrics.substr(value_start, quote - value_start)] = std::stoull(metrics.substr(space + 1, end - space - 1));
    at = end;
  }
  return out;
}

std::uint64_t sample(const std::string& metrics, const std::string& name) {
  const std::size_t at = metrics.find("\n" + name + " ");
  if (at == std::string::npos) return 0;
  return std::stoull(metrics.substr(at + name.size() + 2));
}

TEST(ApiFlood, WellBehavedClientsAreServedThroughTenThousandMalformedRequests) {
  const auto started = std::chrono::steady_clock::now();
  const World w;
  base::testing::TempDir dir;
  ServiceOptions options;
  options.node.data_dir = dir.str();
  options.node.genesis = w.genesis;
  options.node.validator = std::make_shared<const crypto::SigningBundle>(hybrid(3));
  options.node.sync_writes = false;
  options.node.execution_threads = 1;
  options.server.port = 0;
  options.server.max_body_bytes = kMaxBody;
  options.api.admission_threads = 1;
  options.interval = kInterval;
  auto service = Service::start(options).value();
  Node& node = service->node();
  const std::string url = "http://127.0.0.1:" + std::to_string(service->api_port());
  http::Client client = http::Client::create(url).value();

  // Alice's first transfer is executed before the flood (so replaying it is nonce_too_low).
  {
    auto first = client.post("/v1/transactions", text(codec::encode(w.transfers[0])), "application/octet-stream");
    ASSERT_TRUE(first && first->status == 202) << (first ? first->body : first.error().to_string());
    ASSERT_TRUE(raw::eventually(
        [&] {
          return node.transaction(exec::tx_id(w.transfers[0].payload)).value().kind == Node::TxView::Kind::executed;
        },
        10s));
  }
  // Mallory's valid transfer with one byte flipped, at positions spread over
  // its encoding and in its signatures (the last bytes): the answer the
  // node's admission gives each, directly. None is admitted.
  std::vector<std::pair<std::string, Case>> flipped;
  {
    const base::Bytes valid = codec::encode(w.mallory_pays({exec::genesis_coin_id(1)}, 1000));
    std::vector<std::size_t> positions;
    for (std::size_t at = 0; at < valid.size(); at += valid.size() / 61 + 1) positions.push_back(at);
    for (std::size_t back = 1; back <= 64; back += 9) positions.push_back(valid.size() - back);
    for (const std::size_t at : positions) {
      base::Bytes bytes = valid;
      bytes[at] ^= 0x5a;
      Case flip{"byte " + std::to_string(at) + " flipped", submit_text("application/octet-stream", text(bytes)), 400,
                "bad_encoding", true};
      auto outcome = node.submit(bytes, 1);
      if (outcome) {
        ASSERT_FALSE(outcome->verdict.ok()) << flip.label << " was admitted";
        flip.status = 422;
        flip.code = policy::policy_code_name(outcome->verdict.code);
      } else {
        ASSERT_TRUE(outcome.error().is_invalid_input()) << outcome.error().to_string();
      }
      flipped.emplace_back(base::to_hex(bytes), std::move(flip));
    }
  }
  std::mt19937 random(20260101);
  const std::vector<Case> cases = malformed_cases(w, flipped, random);
  ASSERT_GE(cases.size(), 300u);

  const auto metrics_now = [&] {
    auto answer = client.get("/metrics");
    EXPECT_TRUE(answer && answer->status == 200);
    return answer ? answer->body : std::string();
  };
  const std::string before = metrics_now();

  // ---- The well-behaved client ----
  std::atomic<bool> flooding{true};
  std::atomic<int> good_status{0};
  std::atomic<std::int64_t> worst_micros{0};
  std::vector<std::string> good_failures;  // written by the well-behaved thread only
  std::vector<exec::Id> submitted{exec::tx_id(w.transfers[0].payload)};
  std::thread well_behaved([&] {
    http::Client good = http::Client::create(url).value();
    std::uint64_t pooled = 0;
    std::uint64_t last_height = 0;
    const auto timed = [&](auto call) {
      const auto t0 = std::chrono::steady_clock::now();
      auto answer = call();
      const auto micros =
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
      if (micros > worst_micros) worst_micros = micros;
      return answer;
    };
    while (flooding && good_failures.size() < 20) {
      if (pooled < kMaxPooled && submitted.size() < w.transfers.size()) {
        const exec::Transaction& tx = w.transfers[submitted.size()];
        const std::string body = text(codec::encode(tx));
        auto answer = timed([&] { return good.post("/v1/transactions", body, "application/octet-stream"); });
        auto reply = answer && answer->status == 202
                         ? wallet::parse_submission_reply(answer->body)
                         : base::Result<wallet::Submission>(base::fail(
                               base::Errc::invalid_value, answer ? answer->body : answer.error().to_string()));
        if (!reply || reply->tx_id != exec::tx_id(tx.payload) || reply->held) {
          good_failures.push_back("submit: " + (reply ? std::string("wrong reply") : reply.error().to_string()));
        } else {
          submitted.push_back(reply->tx_id);
        }
      }
      auto answer = timed([&] { return good.get("/v1/status"); });
      auto status = answer && answer->status == 200
                        ? wallet::parse_status_reply(answer->body)
                        : base::Result<wallet::NodeStatus>(base::fail(
                              base::Errc::invalid_value, answer ? answer->body : answer.error().to_string()));
      if (!status) {
        good_failures.push_back("status: " + status.error().to_string());
      } else if (status->chain_id != 7 || !status->producing || status->height < last_height) {
        good_failures.push_back("status: " + answer->body);
      } else {
        last_height = status->height;
        pooled = status->mempool_transactions;
        ++good_status;
      }
      std::this_thread::sleep_for(5ms);
    }
  });

  // ---- The flood ----
  std::mutex mutex;
  std::vector<std::string> wrong;                // what went wrong, the first few
  std::map<std::string, std::uint64_t> refused;  // submissions' answers by code
  std::atomic<std::uint64_t> answered{0};
  std::atomic<std::uint64_t> fresh_connections{0};
  std::vector<std::thread> flooders;
  for (int t = 0; t < kFloodThreads; ++t) {
    flooders.emplace_back([&, t] {
      std::mt19937 pick(static_cast<unsigned>(7 + t));
      std::vector<std::size_t> order(cases.size());
      std::map<std::string, std::uint64_t> mine;
      int kept = -1;  // the kept-alive connection
      std::string pending;
      const auto record = [&](std::string what) {
        std::lock_guard lock(mutex);
        if (wrong.size() < 20) wrong.push_back(std::move(what));
      };
      for (int i = 0; i < kRequestsPerThread; ++i) {
        // Every case once per round, in a new order each round.
        const std::size_t slot = static_cast<std::size_t>(i) % cases.size();
        if (slot == 0) {
          for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
          std::shuffle(order.begin(), order.end(), pick);
        }
        const Case& c = cases[order[slot]];
        const bool fresh = pick() % 4 == 0;
        int fd = fresh ? -1 : kept;
        if (fd < 0) {
          fd = raw::connect_raw(service->api_port(), 10s);
          if (fd < 0) {
            record(c.label + ": cannot connect");
            continue;
          }
          if (fresh) {
            ++fresh_connections;
          } else {
            kept = fd;
            pending.clear();
          }
        }
        std::string fresh_pending;
        std::string& buffer = fresh ? fresh_pending : pending;
        std::optional<raw::RawResponse> answer;
        if (raw::send_all(fd, c.request)) answer = raw::read_response(fd, buffer);
        if (!answer || fresh || answer->closes()) {
          ::close(fd);
          if (!fresh) kept = -1;
        }
        if (!answer) {
          record(c.label + ": no answer");
          continue;
        }
        ++answered;
        const wallet::ApiError error =
            wallet::parse_api_error(answer->status, answer->field("Content-Type").value_or(""), answer->body);
        if (answer->status != c.status || error.code != c.code || error.message.empty()) {
          record(c.label + ": expected " + std::to_string(c.status) + " " + c.code + ", got " +
                 std::to_string(answer->status) + " " + answer->body.substr(0, 300));
        }
        if (c.submission) ++mine[std::to_string(answer->status) + " " + error.code];
      }
      if (kept >= 0) ::close(kept);
      std::lock_guard lock(mutex);
      for (const auto& [code, count] : mine) refused[code] += count;
    });
  }
  for (auto& thread : flooders) thread.join();
  const auto flood_done = std::chrono::steady_clock::now();
  flooding = false;
  well_behaved.join();

  for (const std::string& what : wrong) ADD_FAILURE() << what;
  for (const std::string& what : good_failures) ADD_FAILURE() << "well-behaved client: " << what;
  const std::uint64_t sent = std::uint64_t{kFloodThreads} * kRequestsPerThread;
  EXPECT_EQ(answered.load(), sent);
  EXPECT_GE(fresh_connections.load(), sent / 5);
  EXPECT_GE(good_status.load(), 40);
  EXPECT_GE(submitted.size(), 15u) << "the well-behaved client's transfers";
  if (!base::testing::kSanitized) {
    EXPECT_LT(worst_micros.load(), kWorstMicros) << "a good request waited too long";
  }

  // Every transfer the well-behaved client submitted is executed, and nothing else.
  ASSERT_TRUE(raw::eventually([&] { return node.mempool().transactions == 0; }, 20s));
  for (const exec::Id& id : submitted) {
    auto answer = client.get("/v1/transactions/" + base::to_hex(id));
    ASSERT_TRUE(answer && answer->status == 200);
    const auto state = wallet::parse_tx_state_reply(answer->body, id);
    ASSERT_TRUE(state) << state.error().to_string();
    EXPECT_TRUE(state->executed()) << answer->body;
    EXPECT_TRUE(state->receipt && state->receipt->status == "success") << answer->body;
  }
  EXPECT_EQ(node.executed_transactions(), submitted.size());

  // The counters account for every refused submission: the mempool's by
  // policy code (422), the API's by error code (400, 415); what the server
  // refused before any route (413, 400 bad_request) and every other answer
  // of the flood is counted by status class.
  const std::string after = metrics_now();
  const auto delta = [&](const std::string& family, const std::string& label) {
    std::map<std::string, std::uint64_t> out = samples(after, family, label);
    for (const auto& [key, count] : samples(before, family, label)) out[key] -= count;
    std::erase_if(out, [](const auto& entry) { return entry.second == 0; });
    return out;
  };
  std::map<std::string, std::uint64_t> expect_policy;
  std::map<std::string, std::uint64_t> expect_api;
  std::uint64_t by_server = 0;
  for (const auto& [answer, count] : refused) {
    const std::string code = answer.substr(4);
    if (answer.starts_with("422 ")) {
      expect_policy[code] += count;
    } else if (answer.starts_with("400 bad_request") || answer.starts_with("413 ")) {
      by_server += count;
    } else {
      expect_api[code] += count;
    }
  }
  EXPECT_GE(by_server, 1u);
  EXPECT_EQ(delta("sion_mempool_refusals_total", "code"), expect_policy);
  EXPECT_EQ(delta("sion_api_submission_errors_total", "code"), expect_api);
  const auto classes = delta("sion_api_requests_total", "class");
  EXPECT_EQ(classes.count("4xx") ? classes.at("4xx") : 0, sent);
  EXPECT_EQ(classes.count("5xx"), 0u);
  EXPECT_EQ(sample(after, "sion_api_handler_errors_total"), 0u);
  EXPECT_EQ(sample(after, "sion_admission_busy_total"), 0u);

  service->stop();
  const auto seconds = [](auto d) {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) / 1000.0;
  };
  std::cout << "api flood: " << sent << " malformed requests (" << cases.size() << " kinds, " << fresh_connections
            << " on fresh connections) in " << seconds(flood_done - started) << " s; " << submitted.size()
            << " transfers executed, " << good_status << " status reads, worst " << worst_micros / 1000 << " ms; total "
            << seconds(std::chrono::steady_clock::now() - started) << " s\n";
}

}  // namespace
}  // namespace sion::node
