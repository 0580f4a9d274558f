// libFuzzer target: the node's HTTP API (docs/api.md) as a client reaches
// it, through the server's route matching and the node's handlers
// (http::Server::dispatch, no socket), against a real node::Node opened once
// on a temporary data dir with a small genesis and two Pulses.
//
// Input: a route family byte (its value modulo 14: the path's fixed prefix
// and its natural method), a flags byte (bits 0-2 another method, 3-4 the
// content type, 5 a Last-Event-ID field), then up to four parts separated
// by NUL bytes: the path's rest (parameters), the query, the Last-Event-ID
// value and the body (the rest, NULs included). Bytes a request target may
// not hold are percent-encoded, so the router sees them decoded.
//
// Properties: every answer is 2xx or 4xx, never 5xx (bad input is never the
// node's failure, and nothing here fails locally); a 4xx is the JSON error
// body with a code docs/api.md lists for its status, and a refused
// submission's code is one its content type can give (octet-stream:
// bad_encoding; JSON: bad_json, bad_hex or bad_encoding; any other: 415
// unsupported_media_type; a batch may also be bad_request for its count); a
// batch's 200 has one result per element of its body, as the body parser
// (sion/node/submission_body.hpp) reads it, each admitted or refused with a
// code a submission can get; the batch body parser (run directly too)
// refuses a body exactly when the route refuses it whole, with the same
// status and code; a 2xx of a JSON route is what the wallet's parser for
// that route (sion/wallet/api_replies.hpp) accepts as the answer to what
// was asked, and an event stream's events are too; a stream whose client
// left leaves no subscription behind. The chain grows only at set-up;
// submissions may be admitted (the pool is small) or refused. Built with
// SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus: a request for
// every route, valid and near misses.

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/tx_builder.hpp"

namespace {

using namespace sion;

crypto::SigningBundle signer(std::uint8_t fill) {
  crypto::KeySeed seed{};
  seed.fill(fill);
  return crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value();
}

// Alice and Bob with hybrid keys (fast to verify), one validator; the
// transfers of Pulses 1 and 2, and two more that the pool admits.
struct Plan {
  crypto::SigningBundle alice = signer(1);
  crypto::SigningBundle bob = signer(2);
  crypto::SigningBundle validator = signer(3);
  exec::Genesis genesis;
  std::vector<exec::Transaction> pulse1, pulse2, fresh;

  Plan() {
    genesis.params.chain_id = 7;
    genesis.accounts.push_back({alice.public_bundle(), {1'000'000'000, 500'000'000}});  // coins 0, 1
    genesis.accounts.push_back({bob.public_bundle(), {1'000'000'000}});                 // coin 2
    genesis.validators.push_back({validator.public_bundle()});
    genesis.consensus.pulse_vote_legs = {crypto::Scheme::ml_dsa_44};  // a hybrid bundle has no SLH-DSA key
    const exec::Transaction a0 = pay(alice, 0, exec::genesis_coin_id(0), bob_id(), 1'000);
    const exec::Transaction b0 = pay(bob, 0, exec::genesis_coin_id(2), alice_id(), 2'000);
    const exec::Transaction a1 = pay(alice, 1, exec::genesis_coin_id(1), bob_id(), 3'000);
    pulse1 = {a0, b0};
    pulse2 = {a1};
    fresh = {pay(alice, 2, change_of(a0), bob_id(), 4'000), pay(bob, 1, change_of(b0), alice_id(), 5'000)};
  }

  exec::Id alice_id() const { return exec::account_id(alice.public_bundle()); }
  exec::Id bob_id() const { return exec::account_id(bob.public_bundle()); }
  // The change of a one-output transfer (make_transfer appends it).
  static exec::Id change_of(const exec::Transaction& tx) { return exec::coin_id(exec::tx_id(tx.payload), 1); }
  exec::Transaction pay(const crypto::SigningBundle& from, std::uint64_t nonce, const exec::Id& coin,
                        const exec::Id& to, exec::Amount amount) const {
    const exec::Output output{to, amount};
    return exec::make_transfer(from, genesis.params, nonce, {&coin, 1}, {&output, 1}, std::nullopt,
                               crypto::Hedging::deterministic)
        .value();
  }
};

const Plan& plan() {
  static const Plan p;
  return p;
}

// The route families (kFamilies below), and the flags that change a
// request's method, content type and fields.
enum FamilyIndex : std::uint8_t {
  kSubmitBytes,
  kSubmitJson,
  kTransaction,
  kPulses,
  kObjects,
  kAccounts,
  kLogHead,
  kInclusion,
  kConsistency,
  kEvents,
  kStatus,
  kSubmitBatchBytes,
  kSubmitBatchJson,
  kRoot,
};
constexpr std::uint8_t kPost = 2;  // bits 0-2: the method, 0 the family's own
constexpr std::uint8_t kDelete = 4;
constexpr std::uint8_t kTextPlain = 3u << 3;  // bits 3-4: the content type, 0 the family's own
constexpr std::uint8_t kLastEventId = 1u << 5;

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
#include "sion/base/bytes.hpp"
#include "sion/codec/testing/fuzzing.hpp"
#include "sion/wallet/tx_batch.hpp"

namespace {

// After the family byte: flags, then path rest \0 query \0 Last-Event-ID \0 body.
std::string input(std::uint8_t flags, std::string_view rest, std::string_view query, std::string_view last_event_id,
                  std::string_view body) {
  std::string out;
  out += static_cast<char>(flags);
  out += rest;
  out += '\0';
  out += query;
  out += '\0';
  out += last_event_id;
  out += '\0';
  out += body;
  return out;
}

std::string text(base::ByteView bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const Plan& p = plan();
  codec::testing::CorpusWriter corpus(argv[1], "request");
  const auto write = [&](std::uint8_t family, std::uint8_t flags, std::string_view rest, std::string_view query = {},
                         std::string_view last_event_id = {}, std::string_view body = {}) {
    const std::string bytes = input(flags, rest, query, last_event_id, body);
    corpus.write(family, base::as_bytes(bytes));
  };
  const std::string fresh = text(codec::encode(p.fresh[0]));
  const std::string executed = text(codec::encode(p.pulse1[0]));
  const std::string fresh_hex = base::to_hex(codec::encode(p.fresh[1]));
  const std::string tx0 = base::to_hex(exec::tx_id(p.pulse1[0].payload));
  const std::string tx_fresh = base::to_hex(exec::tx_id(p.fresh[0].payload));
  const std::string coin = base::to_hex(exec::coin_id(exec::tx_id(p.pulse1[0].payload), 0));  // Bob's 1000
  const std::string alice = base::to_hex(p.alice_id());

  // POST /v1/transactions: admitted, already executed, not a transaction,
  // cut short; JSON, bad hex, an unknown field, not JSON; an unsupported
  // content type; another path.
  write(kSubmitBytes, 0, "", "", "", fresh);
  write(kSubmitBytes, 0, "", "", "", executed);
  write(kSubmitBytes, 0, "", "", "", "\x01\x02\x03");
  write(kSubmitBytes, 0, "", "", "", fresh.substr(0, fresh.size() / 2));
  write(kSubmitJson, 0, "", "", "", "{\"transaction\":\"" + fresh_hex + "\"}");
  write(kSubmitJson, 0, "", "", "", "{\"transaction\":\"" + fresh_hex.substr(1) + "\"}");
  write(kSubmitJson, 0, "", "", "", "{\"transaction\":\"00\",\"fee\":1}");
  write(kSubmitJson, 0, "", "", "", "{\"transaction\":");
  write(kSubmitBytes, kTextPlain, "", "", "", fresh);
  write(kSubmitBytes, 0, "/x", "", "", fresh);
  // Near misses of both content types: a byte flipped in the payload and in
  // the signatures, a payload changed after signing, trailing bytes; JSON of
  // the wrong type, a key twice, too deep, empty, upper-case and odd hex.
  for (const std::size_t at : {std::size_t{0}, std::size_t{40}, fresh.size() / 2, fresh.size() - 5}) {
    std::string flipped = fresh;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    write(kSubmitBytes, 0, "", "", "", flipped);
    write(kSubmitJson, 0, "", "", "", "{\"transaction\":\"" + base::to_hex(base::as_bytes(flipped)) + "\"}");
  }
  exec::Transaction forged = p.fresh[1];
  std::get<exec::Transfer>(forged.payload.body).outputs[0].amount += 1;  // no longer what Bob signed
  write(kSubmitBytes, 0, "", "", "", text(codec::encode(forged)));
  write(kSubmitBytes, 0, "", "", "", fresh + '\0');
  write(kSubmitBytes, 0, "", "", "", "");
  for (const std::string& body : {std::string("{\"transaction\":5}"), std::string("{\"transaction\":null}"),
                                  std::string("{\"transaction\":[\"00\"]}"),
                                  "{\"transaction\":\"" + fresh_hex + "\",\"transaction\":\"" + fresh_hex + "\"}",
                                  std::string(40, '[') + std::string(40, ']'), std::string("{\"transaction\":\"\"}"),
                                  std::string("{\"transaction\":\"ABCD\"}"), std::string("{\"transaction\":\"0g\"}"),
                                  std::string("{}"), std::string("[]"), std::string("")}) {
    write(kSubmitJson, 0, "", "", "", body);
  }
  // POST /v1/transactions/batch: both transfers that the pool admits, one
  // already executed, a duplicate, an element that is no transaction; JSON
  // with a bad element, then bodies refused whole (empty, over the limit,
  // shapes that are not the JSON, framing cut short or with trailing bytes).
  {
    const base::Bytes fresh1 = codec::encode(p.fresh[1]);
    const base::Bytes garbage = {0x01, 0x02, 0x03};
    const base::Bytes fresh0 = codec::encode(p.fresh[0]);
    const base::Bytes executed0 = codec::encode(p.pulse1[0]);
    const std::vector<base::ByteView> mixed = {fresh0, fresh1, executed0, fresh0, garbage};
    const std::string batch = text(wallet::encode_tx_batch(mixed));
    write(kSubmitBatchBytes, 0, "", "", "", batch);
    write(kSubmitBatchBytes, 0, "", "", "", batch.substr(0, batch.size() / 2));
    write(kSubmitBatchBytes, 0, "", "", "", batch + '\0');
    write(kSubmitBatchBytes, 0, "", "", "", std::string(1, '\0'));
    write(kSubmitBatchBytes, 0, "", "", "", "\x81\x02");
    write(kSubmitBatchBytes, 0, "", "", "", "");
    write(kSubmitBatchBytes, kTextPlain, "", "", "", batch);
    write(kSubmitBatchJson, 0, "", "", "",
          "{\"transactions\":[\"" + fresh_hex + "\",\"0g\",\"010203\",\"" + base::to_hex(executed0) + "\"]}");
    std::string many = "{\"transactions\":[\"00\"";
    for (int i = 0; i < 256; ++i) many += ",\"00\"";
    write(kSubmitBatchJson, 0, "", "", "", many + "]}");
    for (const std::string& body :
         {std::string("{\"transactions\":[]}"), std::string("{\"transactions\":\"00\"}"),
          std::string("{\"transactions\":[5]}"), std::string("{\"transactions\":[\"00\"],\"x\":1}"),
          std::string("{\"transaction\":\"00\"}"), std::string("[\"00\"]")}) {
      write(kSubmitBatchJson, 0, "", "", "", body);
    }
  }
  // GET /v1/transactions/{id}: executed, pooled (after the POST above),
  // unknown, upper case; POST on it.
  write(kTransaction, 0, tx0);
  write(kTransaction, 0, tx_fresh);
  write(kTransaction, 0, std::string(64, '0'));
  write(kTransaction, 0, "AB" + tx0.substr(2));
  write(kTransaction, kPost, tx0);
  // Pulses, their availability and shares.
  for (const char* rest : {"1", "2", "latest", "0", "3", "1/availability", "latest/availability", "2/shares/0/1",
                           "1/shares/1/0", "2/shares/9/9", "abc", "18446744073709551616", "1/shares/0/x", "%31"}) {
    write(kPulses, 0, rest);
  }
  // Objects: present and absent, with and without proofs, at an older height.
  write(kObjects, 0, coin, "proof=true");
  write(kObjects, 0, coin, "proof=true&height=1");
  write(kObjects, 0, coin, "height=2");
  write(kObjects, 0, std::string(64, 'f'), "proof=true");
  write(kObjects, 0, coin, "proof=maybe");
  write(kObjects, 0, coin, "height=x");
  write(kObjects, 0, coin, "proof=true&proof=false");
  write(kObjects, 0, coin, "height=9");
  // Accounts.
  write(kAccounts, 0, alice);
  write(kAccounts, 0, std::string(64, '1'));
  write(kAccounts, 0, alice.substr(1));
  // The header log.
  write(kLogHead, 0, "");
  write(kInclusion, 0, "1", "size=3");
  write(kInclusion, 0, "0");
  write(kInclusion, 0, "2", "size=2");
  write(kInclusion, 0, "1", "size=99");
  write(kConsistency, 0, "", "from=1&to=3");
  write(kConsistency, 0, "", "from=0&to=3");
  write(kConsistency, 0, "", "from=3&to=1");
  write(kConsistency, 0, "", "from=1");
  write(kConsistency, 0, "", "from=2&to=2");
  // Events: live, replayed from an id, for an account, bad ids.
  write(kEvents, 0, "");
  write(kEvents, kLastEventId, "", "", "0");
  write(kEvents, kLastEventId, "", "account=" + alice, "2");
  write(kEvents, kLastEventId, "", "", "x");
  write(kEvents, 0, "", "account=zz");
  // Status, metrics, methods that no route has.
  write(kStatus, 0, "");
  write(kRoot, 0, "metrics");
  write(kStatus, kDelete, "");
  write(kTransaction, 0, "", "", "", "");
  write(kRoot, 0, "v1/nothing");
  // An agent's view (docs/api.md): an id holding no charter, and a bad id.
  write(kRoot, 0, "v1/agents/" + alice);
  write(kRoot, 0, "v1/agents/zz");
  return 0;
}

#else
#include "sion/base/json.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/http/parse.hpp"
#include "sion/http/query.hpp"
#include "sion/http/router.hpp"
#include "sion/http/server.hpp"
#include "sion/http/sse_reader.hpp"
#include "sion/node/api.hpp"
#include "sion/node/log.hpp"
#include "sion/node/node.hpp"
#include "sion/node/submission_body.hpp"
#include "sion/wallet/api_replies.hpp"

namespace {

// The route families: a path prefix and its natural method.
struct Family {
  const char* prefix;
  const char* method;
  const char* content_type;  // nullptr: none
};
constexpr std::array<Family, 14> kFamilies = {{
    {"/v1/transactions", "POST", "application/octet-stream"},
    {"/v1/transactions", "POST", "application/json"},
    {"/v1/transactions/", "GET", nullptr},
    {"/v1/pulses/", "GET", nullptr},
    {"/v1/objects/", "GET", nullptr},
    {"/v1/accounts/", "GET", nullptr},
    {"/v1/log/head", "GET", nullptr},
    {"/v1/log/inclusion/", "GET", nullptr},
    {"/v1/log/consistency", "GET", nullptr},
    {"/v1/events", "GET", nullptr},
    {"/v1/status", "GET", nullptr},
    {"/v1/transactions/batch", "POST", "application/octet-stream"},
    {"/v1/transactions/batch", "POST", "application/json"},
    {"/", "GET", nullptr},
}};
static_assert(kFamilies.size() == kRoot + 1, "one family per FamilyIndex, in its order");
constexpr std::array<const char*, 8> kMethods = {nullptr, "GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"};
constexpr std::array<const char*, 4> kContentTypes = {nullptr, "application/octet-stream",
                                                      "Application/JSON; charset=utf-8", "text/plain"};
static_assert(std::string_view(kMethods[kPost]) == "POST" && std::string_view(kMethods[kDelete]) == "DELETE");
static_assert(std::string_view(kContentTypes[kTextPlain >> 3]) == "text/plain");
// The node, its (never started) server and API on a data dir removed when
// the process exits normally (a crash leaves it in the temporary folder).
struct Context {
  base::testing::TempDir dir;
  std::unique_ptr<node::Node> node;
  std::unique_ptr<http::Server> server;
  std::unique_ptr<node::Api> api;

  Context() {
    if (!node::setup_logging(node::LogConfig{node::LogLevel::error, std::nullopt})) std::abort();
    const Plan& p = plan();
    node::NodeOptions options;
    options.data_dir = dir.str();
    options.genesis = p.genesis;
    options.validator = std::make_shared<const crypto::SigningBundle>(signer(3));
    options.sync_writes = false;
    options.execution_threads = 1;
    options.pool.max_transactions = 64;
    node = node::Node::open(options).value();
    std::uint64_t now = 1'767'225'600'000;
    for (const auto* txs : {&p.pulse1, &p.pulse2}) {
      for (const exec::Transaction& tx : *txs) {
        const auto outcome = node->submit(codec::encode(tx), now);
        if (!outcome || !outcome->verdict.ok()) std::abort();
      }
      now += 1'000;
      if (!node->produce(now).value()) std::abort();
    }
    server = std::make_unique<http::Server>();
    node::ApiOptions api_options;
    api_options.admission_threads = 1;
    api = std::make_unique<node::Api>(*node, *server, api_options);
    if (!api->register_routes()) std::abort();
  }
  ~Context() {
    api.reset();  // its admission worker first
    server.reset();
    node.reset();
  }
};

Context& context() {
  static Context c;
  return c;
}

// Bytes a request target may hold as they are; others are percent-encoded
// (a raw '%' stays, so malformed escapes reach the server's decoder).
bool target_char(unsigned char c) {
  if (c >= 'a' && c <= 'z') return true;
  if (c >= 'A' && c <= 'Z') return true;
  if (c >= '0' && c <= '9') return true;
  return std::string_view("-._~!$&'()*+,;=:@/?%").find(static_cast<char>(c)) != std::string_view::npos;
}

std::string encode_target(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (target_char(byte)) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

// A field value: no control characters (a parser refuses them).
std::string field_value(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) out += c;
  }
  return out;
}

// The first `count` NUL-separated parts of `bytes`; the last takes the rest.
std::array<std::string_view, 4> split_parts(std::string_view bytes) {
  std::array<std::string_view, 4> parts{};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::size_t end = bytes.find('\0');
    parts[i] = bytes.substr(0, end);
    if (end == std::string_view::npos) return parts;
    bytes.remove_prefix(end + 1);
  }
  parts.back() = bytes;
  return parts;
}

std::optional<std::uint64_t> decimal(const std::string* text) {
  if (text == nullptr || text->empty() || text->size() > 20) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : *text) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

exec::Id id_from(const std::string& hex) {
  const auto bytes = base::from_hex(hex);
  if (!bytes || bytes->size() != 32) std::abort();  // the node answered 2xx to it
  exec::Id id{};
  std::copy(bytes->begin(), bytes->end(), id.begin());
  return id;
}

template <class T>
void must_read(const base::Result<T>& reply) {
  if (!reply) std::abort();  // the node's answer breaks what the wallet reads (docs/api.md)
}

bool is_json(const http::Response& response) { return wallet::is_json_content_type(response.content_type); }

// A refused POST /v1/transactions: the codes its content type can give
// (docs/api.md), besides the mempool's (422) and the server's bad_request
// for a malformed query.
void check_submission_error(const char* content_type, const std::string& code, unsigned status) {
  if (status == 422 || code == "bad_request") return;
  const std::string_view type = content_type == nullptr ? "" : content_type;
  if (type == "application/octet-stream") {
    if (code != "bad_encoding") std::abort();
  } else if (http::iequals(type.substr(0, 16), "application/json")) {
    if (code != "bad_json" && code != "bad_hex" && code != "bad_encoding") std::abort();
  } else if (status != 415) {
    std::abort();
  }
}

// A 4xx: the error body with a code docs/api.md gives that status.
void check_error(const http::Response& response) {
  if (!is_json(response)) std::abort();
  const wallet::ApiError error = wallet::parse_api_error(response.status, response.content_type, response.body);
  if (error.code.empty() || error.message.empty()) std::abort();
  const std::string& code = error.code;
  switch (response.status) {
    case 400:
      if (code != "bad_request" && code != "bad_json" && code != "bad_hex" && code != "bad_encoding") std::abort();
      break;
    case 404:
      if (code != "not_found") std::abort();
      break;
    case 405:
      if (code != "method_not_allowed" || http::find_field(response.headers, "Allow") == nullptr) std::abort();
      break;
    case 415:
      if (code != "unsupported_media_type") std::abort();
      break;
    case 422: {
      bool listed = false;
      for (const policy::PolicyCode known : policy::kAllPolicyCodes) {
        listed = listed || (known != policy::PolicyCode::admitted && known != policy::PolicyCode::pool_full &&
                            code == policy::policy_code_name(known));
      }
      if (!listed) std::abort();
      break;
    }
    default: std::abort();
  }
}

// The events of a stream's body, each `transaction` event's data what the
// wallet reads.
void check_events(const std::string& body) {
  http::SseParser parser;
  parser.feed(body);
  while (const auto event = parser.next()) {
    if (event->type == "transaction") must_read(wallet::parse_tx_event_reply(event->data));
    if (event->type != "transaction" && event->type != "pulse" && event->type != "gap") std::abort();
  }
}

// A batch's 200: one result per element of the body (as the body parser
// reads it), each admitted or refused with a code a submission can get.
void check_batch(const http::Request& request, const http::Response& response) {
  if (response.status != 200) std::abort();
  const auto elements = node::submitted_batch(request.header("Content-Type"), request.body);
  if (!std::holds_alternative<std::vector<node::BatchElement> >(elements)) std::abort();  // refused whole, yet 200
  const std::size_t count = std::get<std::vector<node::BatchElement> >(elements).size();
  const auto results = wallet::parse_batch_submission_reply(response.body, count);
  if (!results) std::abort();
  for (const wallet::Submission& item : *results) {
    if (!item.refusal) continue;
    const std::string& code = item.refusal->code;
    bool listed = code == "bad_hex" || code == "bad_encoding" || code == "busy" || code == "pool_full";
    for (const policy::PolicyCode known : policy::kAllPolicyCodes) {
      listed = listed || (known != policy::PolicyCode::admitted && code == policy::policy_code_name(known));
    }
    if (!listed) std::abort();
  }
}

// A 2xx: read by the wallet's parser for its route, as the answer to what
// was asked.
void check_success(const http::Request& request, const http::Response& response, std::uint64_t height) {
  const auto segments = http::split_path(request.path);
  if (!segments) std::abort();
  const std::vector<std::string>& s = *segments;
  const auto at = [&](std::size_t i) -> const std::string* { return i < s.size() ? &s[i] : nullptr; };
  const std::string route = s.size() >= 2 ? s[1] : std::string();
  if (s.size() == 1 && s[0] == "metrics") {
    if (response.status != 200 || response.content_type.rfind("text/plain", 0) != 0) std::abort();
    return;
  }
  if (route == "events") {
    if (response.status != 200 || response.content_type != "text/event-stream") std::abort();
    return check_events(response.body);
  }
  if (!is_json(response)) std::abort();
  if (route == "transactions" && request.method == "POST" && s.size() == 3) return check_batch(request, response);
  if (route == "transactions" && request.method == "POST") {
    if (response.status != 202) std::abort();
    return must_read(wallet::parse_submission_reply(response.body));
  }
  if (response.status != 200) std::abort();
  const std::string* query_height = request.query_param("height");
  if (route == "transactions") return must_read(wallet::parse_tx_state_reply(response.body, id_from(*at(2))));
  if (route == "status") {
    const auto status = wallet::parse_status_reply(response.body);
    if (!status || status->chain_id != plan().genesis.params.chain_id || status->height != height) std::abort();
    return;
  }
  if (route == "accounts") return must_read(wallet::parse_account_reply(response.body, id_from(*at(2))));
  if (route == "objects") {
    const std::string* proof = request.query_param("proof");
    return must_read(wallet::parse_object_reply(response.body, id_from(*at(2)), proof != nullptr && *proof == "true",
                                                decimal(query_height)));
  }
  if (route == "pulses") {
    const std::optional<std::uint64_t> asked =
        *at(2) == "latest" ? std::optional<std::uint64_t>(height) : decimal(at(2));
    if (!asked) std::abort();
    if (s.size() == 3)
      return must_read(wallet::parse_pulse_reply(response.body, *at(2) == "latest" ? std::nullopt : asked));
    if (s.size() == 4) return must_read(wallet::parse_availability_reply(response.body, *asked));
    const auto row = decimal(at(4));
    const auto column = decimal(at(5));
    if (!row || !column || *row > UINT32_MAX || *column > UINT32_MAX) std::abort();
    return must_read(wallet::parse_share_reply(response.body, static_cast<std::uint32_t>(*row),
                                               static_cast<std::uint32_t>(*column)));
  }
  if (route == "log" && at(2) != nullptr) {
    if (*at(2) == "head") return must_read(wallet::parse_log_head_reply(response.body));
    if (*at(2) == "inclusion") {
      return must_read(
          wallet::parse_inclusion_reply(response.body, decimal(at(3)).value(), decimal(request.query_param("size"))));
    }
    if (*at(2) == "consistency") {
      return must_read(wallet::parse_consistency_reply(response.body, decimal(request.query_param("from")).value(),
                                                       decimal(request.query_param("to")).value()));
    }
  }
  std::abort();  // a 2xx from a route this target does not know
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  Context& c = context();
  const Family& family = kFamilies[data[0] % kFamilies.size()];
  const std::uint8_t flags = data[1];
  const auto parts = split_parts(std::string_view(reinterpret_cast<const char*>(data + 2), size - 2));
  const char* method = kMethods[flags & 7] != nullptr ? kMethods[flags & 7] : family.method;
  const char* content_type =
      kContentTypes[(flags >> 3) & 3] != nullptr ? kContentTypes[(flags >> 3) & 3] : family.content_type;
  std::string target = family.prefix + encode_target(parts[0]);
  if (!parts[1].empty()) target += "?" + encode_target(parts[1]);
  std::string text = std::string(method) + " " + target + " HTTP/1.1\r\nHost: fuzz\r\n";
  if (content_type != nullptr) text += std::string("Content-Type: ") + content_type + "\r\n";
  if ((flags & kLastEventId) != 0) text += "Last-Event-ID: " + field_value(parts[2]) + "\r\n";
  text += "Content-Length: " + std::to_string(parts[3].size()) + "\r\n\r\n";
  text += parts[3];
  auto request = http::parse_request(base::as_bytes(text), c.server->options());
  if (!request) return 0;  // the server's parser refuses it (fuzz_http_request's business)

  std::uint64_t height = 0;
  {
    auto lock = c.node->read_lock();
    height = c.node->chain().height();
  }
  const std::size_t subscribers = c.node->events().subscribers();
  const http::Response response = c.server->dispatch(*request);
  // A client that left is no longer subscribed.
  if (c.node->events().subscribers() != subscribers) std::abort();
  if (response.status >= 400 && response.status < 500) {
    check_error(response);
    if (request->method == "POST" &&
        (request->path == "/v1/transactions" || request->path == "/v1/transactions/batch")) {
      check_submission_error(content_type,
                             wallet::parse_api_error(response.status, response.content_type, response.body).code,
                             response.status);
    }
  } else if (response.status >= 200 && response.status < 300) {
    check_success(*request, response, height);
  } else {
    std::abort();  // 5xx (or anything else) for a request
  }
  // The batch body parser, run directly: the route refuses a body whole
  // exactly when the parser does, with its status and code.
  if (request->method == "POST" && request->path == "/v1/transactions/batch") {
    const auto parsed = node::submitted_batch(request->header("Content-Type"), request->body);
    if (const auto* refused = std::get_if<node::BodyRefusal>(&parsed)) {
      const std::string code = wallet::parse_api_error(response.status, response.content_type, response.body).code;
      if (response.status != refused->status || code != refused->code) std::abort();
    } else if (response.status != 200) {
      std::abort();
    }
  }
  return 0;
}

#endif
