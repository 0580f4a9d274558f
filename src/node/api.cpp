#include "sion/node/api.hpp"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include "sion/agents/standing.hpp"
#include "sion/base/build_info.hpp"
#include "sion/base/clock.hpp"
#include "sion/base/json.hpp"
#include "sion/codec/codec.hpp"
#include "sion/da/sampling.hpp"
#include "sion/node/json_views.hpp"
#include "sion/node/prometheus.hpp"
#include "sion/node/submission_body.hpp"
#include "sion/streams/objects.hpp"

namespace sion::node {
namespace {

using http::json_error;
using http::Request;
using http::Response;

Response ok(const Json& body, unsigned status = 200) { return Response::json(status, body.dump()); }
Response bad_request(std::string_view message) { return json_error(400, "bad_request", message); }
Response not_found(std::string_view message) { return json_error(404, "not_found", message); }
Response internal(const base::Error& error) { return json_error(500, "internal", error.to_string()); }
// A failed look-up: what the client named is not there (a height the chain
// or its retained state does not have, an entry or size beyond the log), or
// this node failed to read what is (a storage error, never the client's).
Response lookup_failure(const base::Error& error) {
  const bool missing = error.code == base::Errc::not_found || error.code == base::Errc::invalid_argument;
  return missing ? not_found(error.reason) : internal(error);
}

// A decimal u64 without sign, spaces or leading '+'.
std::optional<std::uint64_t> parse_u64(std::string_view text) {
  std::uint64_t value = 0;
  if (text.empty() || text.size() > 20) return std::nullopt;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A 32-byte id written as 64 lower-case hex digits.
std::optional<commit::Hash> parse_id(std::string_view text) {
  if (text.size() != 64) return std::nullopt;
  auto bytes = base::from_hex(text);
  if (!bytes || bytes->size() != 32) return std::nullopt;
  for (const char c : text) {
    if (c >= 'A' && c <= 'F') return std::nullopt;
  }
  commit::Hash id{};
  std::copy(bytes->begin(), bytes->end(), id.begin());
  return id;
}

// Path parameter `name` as a u64, or the 400 answer naming it.
std::variant<std::uint64_t, Response> u64_param(const Request& request, std::string_view name) {
  const std::string* text = request.param(name);
  if (text == nullptr) return bad_request(fmt::format("missing {}", name));
  if (auto value = parse_u64(*text)) return *value;
  return bad_request(fmt::format("{}: expected a decimal integer, got \"{}\"", name, text->substr(0, 40)));
}

std::variant<commit::Hash, Response> id_param(const Request& request, std::string_view name) {
  const std::string* text = request.param(name);
  if (text == nullptr) return bad_request(fmt::format("missing {}", name));
  if (auto id = parse_id(*text)) return *id;
  return json_error(400, "bad_hex", fmt::format("{}: expected 64 lower-case hex digits", name));
}

// A query parameter that must be a u64 when present.
std::variant<std::optional<std::uint64_t>, Response> u64_query(const Request& request, std::string_view name) {
  const std::string* text = request.query_param(name);
  if (text == nullptr) return std::optional<std::uint64_t>{};
  if (auto value = parse_u64(*text)) return std::optional<std::uint64_t>{*value};
  return bad_request(fmt::format("{}: expected a decimal integer, got \"{}\"", name, text->substr(0, 40)));
}

// The height a route names: a number, or "latest".
std::variant<std::uint64_t, Response> height_param(const Request& request, const Node& node) {
  const std::string* text = request.param("height");
  if (text != nullptr && *text == "latest") {
    auto lock = node.read_lock();
    return node.chain().height();
  }
  return u64_param(request, "height");
}

// A submission's answer before it is a response: admitted (no code) with
// its pool status, or refused with the status the single route answers.
struct Answer {
  unsigned status = 202;
  std::string code;  // empty: admitted
  std::string message;
  exec::Id tx_id{};  // admitted, or refused by the mempool after the id was computed
  policy::PoolStatus pool_status = policy::PoolStatus::pending;
};

// The answer to Node::submit's outcome: the mempool's verdict, the decoder's
// refusal (invalid input: the bytes are not a canonical transaction), or a
// local failure.
Answer answer_of(const base::Result<SubmitOutcome>& outcome) {
  if (!outcome) {
    if (outcome.error().is_invalid_input()) return {400, "bad_encoding", outcome.error().reason};
    return {500, "internal", outcome.error().to_string()};
  }
  const policy::PolicyVerdict& verdict = outcome->verdict;
  if (!verdict.ok()) {
    const unsigned status = verdict.code == policy::PolicyCode::pool_full ? 503 : 422;
    return {status, std::string(policy::policy_code_name(verdict.code)), verdict.reason, outcome->tx_id};
  }
  return {202, {}, {}, outcome->tx_id, outcome->status};
}

// An admitted transaction's body: {"tx_id", "status"}.
Json admitted_json(const Answer& answer) {
  return Json{{"tx_id", base::to_hex(answer.tx_id)},
              {"status", std::string(policy::pool_status_name(answer.pool_status))}};
}

Response response_of(const Answer& answer) {
  if (!answer.code.empty()) return json_error(answer.status, answer.code, answer.message);
  return ok(admitted_json(answer), 202);
}

// One result of a batch (docs/api.md): the single route's body for an
// admitted transaction, its error object otherwise, with the id when known.
Json batch_result(const Answer& answer, bool id_known) {
  if (answer.code.empty()) return admitted_json(answer);
  Json out = Json::object();
  if (id_known) out["tx_id"] = base::to_hex(answer.tx_id);
  out["error"] = Json{{"code", answer.code}, {"message", answer.message}};
  return out;
}

void export_server_stats(PrometheusText& text, const http::ServerStats& stats) {
  text.family("sion_api_requests_total", "counter", "API responses, by status class.");
  static constexpr const char* kClasses[] = {"1xx", "2xx", "3xx", "4xx", "5xx"};
  for (std::size_t i = 0; i < stats.responses_by_class.size(); ++i) {
    text.sample("sion_api_requests_total", stats.responses_by_class[i], {{"class", kClasses[i]}});
  }
  text.gauge("sion_api_connections_open", "Open API connections.", stats.connections_open);
  text.counter("sion_api_connections_refused_total", "Connections closed at once: over the connection limit.",
               stats.connections_refused);
  text.counter("sion_api_malformed_requests_total", "Requests that were not valid HTTP.", stats.malformed_requests);
  text.counter("sion_api_timeouts_total", "Connections closed for a request or write that took too long.",
               stats.timeouts);
  text.counter("sion_api_rate_limited_total", "Requests refused by the per-client rate limit.", stats.rate_limited);
  text.counter("sion_api_handler_errors_total", "Requests whose handler failed (answered 500).", stats.handler_errors);
  text.counter("sion_api_event_streams_lagged_total", "Event subscribers disconnected for falling behind.",
               stats.sse_lagged);
  text.histogram("sion_api_request_duration_us", "API request time, from a complete header to the response.",
                 http::kLatencyBoundsMicros, stats.latency_buckets, stats.latency_sum_micros);
}

}  // namespace

Api::Api(Node& node, http::Server& server, ApiOptions options)
    : node_(node),
      server_(server),
      options_(options),
      admission_workers_(options.admission_threads != 0 ? options.admission_threads
                                                        : std::max(1u, std::thread::hardware_concurrency())),
      admission_(admission_workers_, options.admission_queue, "sion-admit") {}

Api::~Api() { admission_.stop(); }

base::Status Api::register_routes() {
  Node& node = node_;

  SION_TRY_STATUS(server_.route("POST", "/v1/transactions", [this](Request request, http::Reply reply) {
    auto bytes = submitted_bytes(request.header("Content-Type"), request.body);
    if (auto* refused = std::get_if<BodyRefusal>(&bytes)) {
      return reply(refuse_submission(refused->status, refused->code, refused->message));
    }
    auto pending = std::make_shared<http::Reply>(std::move(reply));
    auto job = [this, pending, bytes = std::get<base::Bytes>(std::move(bytes))] {
      const Answer answer = answer_of(node_.submit(bytes, base::unix_time_ms()));
      count_refusal(answer.code);
      (*pending)(response_of(answer));
    };
    if (!admission_.submit(std::move(job))) {
      busy_.fetch_add(1);
      (*pending)(json_error(503, "busy", "the admission queue is full; retry shortly"));
    }
  }));

  SION_TRY_STATUS(server_.route("POST", "/v1/transactions/batch", [this](Request request, http::Reply reply) {
    auto elements = submitted_batch(request.header("Content-Type"), request.body);
    if (auto* refused = std::get_if<BodyRefusal>(&elements)) {
      return reply(refuse_submission(refused->status, refused->code, refused->message));
    }
    submit_batch(std::get<std::vector<BatchElement>>(std::move(elements)), std::move(reply));
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/transactions/{id}", [&node](const Request& request) -> Response {
    auto id = id_param(request, "id");
    if (auto* refused = std::get_if<Response>(&id)) return std::move(*refused);
    const commit::Hash tx_id = std::get<commit::Hash>(id);
    auto view = node.transaction(tx_id);
    if (!view) return internal(view.error());
    Json out{{"tx_id", base::to_hex(tx_id)}};
    switch (view->kind) {
      case Node::TxView::Kind::unknown:
        return not_found("this node has not seen the transaction (or no longer remembers it)");
      case Node::TxView::Kind::pooled: out["status"] = std::string(policy::pool_status_name(view->pool_status)); break;
      case Node::TxView::Kind::executed: {
        const TxRecord& record = *view->record;
        out["status"] = "executed";
        out["height"] = record.location.height;
        out["index"] = record.location.position;
        auto lock = node.read_lock();
        if (auto header = node.chain().header(record.location.height)) {
          out["pulse_hash"] = base::to_hex(exec::pulse_hash(*header));
        }
        out["receipt"] = receipt_json(record.receipt);
        break;
      }
      case Node::TxView::Kind::removed: {
        const policy::RemovalReason reason = view->outcome->reason;
        out["status"] = removal_status(reason);
        out["reason"] = std::string(policy::removal_reason_name(reason));
        out["height"] = view->outcome->height;
        break;
      }
    }
    return ok(out);
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/pulses/{height}", [&node](const Request& request) -> Response {
    auto height = height_param(request, node);
    if (auto* refused = std::get_if<Response>(&height)) return std::move(*refused);
    const std::uint64_t h = std::get<std::uint64_t>(height);
    auto lock = node.read_lock();
    if (h == 0 || h > node.chain().height()) {
      return not_found(fmt::format("no Pulse at height {} (the chain is at {})", h, node.chain().height()));
    }
    auto header = node.chain().header(h);
    if (!header) return internal(header.error());
    auto receipts = node.chain().receipts(h);
    if (!receipts) return internal(receipts.error());
    Json ids = Json::array();
    for (const exec::Receipt& receipt : *receipts) ids.push_back(base::to_hex(receipt.tx_id));
    return ok(Json{{"height", h},
                   {"hash", base::to_hex(exec::pulse_hash(*header))},
                   {"header_hex", base::to_hex(codec::encode(*header))},
                   {"header", header_json(*header)},
                   {"transactions", std::move(ids)}});
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/pulses/{height}/availability", [&node](const Request& request) -> Response {
    auto height = height_param(request, node);
    if (auto* refused = std::get_if<Response>(&height)) return std::move(*refused);
    auto published = node.published(std::get<std::uint64_t>(height));
    if (!published) return lookup_failure(published.error());
    const exec::PublishedPulse& data = **published;
    return ok(Json{{"height", std::get<std::uint64_t>(height)},
                   {"data", Json{{"original_width", data.commitment.original_width},
                                 {"data_bytes", data.commitment.data_bytes},
                                 {"data_root", base::to_hex(data.commitment.data_root)}}},
                   {"availability_hex", base::to_hex(codec::encode(data.trees.header()))}});
  }));

  SION_TRY_STATUS(
      server_.route("GET", "/v1/pulses/{height}/shares/{row}/{col}", [&node](const Request& request) -> Response {
        auto height = height_param(request, node);
        if (auto* refused = std::get_if<Response>(&height)) return std::move(*refused);
        auto row = u64_param(request, "row");
        if (auto* refused = std::get_if<Response>(&row)) return std::move(*refused);
        auto col = u64_param(request, "col");
        if (auto* refused = std::get_if<Response>(&col)) return std::move(*refused);
        auto published = node.published(std::get<std::uint64_t>(height));
        if (!published) return lookup_failure(published.error());
        const exec::PublishedPulse& data = **published;
        const std::uint64_t width = 2 * std::uint64_t{data.commitment.original_width};
        const std::uint64_t r = std::get<std::uint64_t>(row);
        const std::uint64_t c = std::get<std::uint64_t>(col);
        if (r >= width || c >= width) {
          return not_found(fmt::format("share ({}, {}) is outside the {}x{} extended square", r, c, width, width));
        }
        const da::ShareProof proof = da::prove_share(data.square, data.trees, da::Axis::row,
                                                     static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(c));
        return ok(Json{{"row", r}, {"column", c}, {"proof_hex", base::to_hex(codec::encode(proof))}});
      }));

  SION_TRY_STATUS(server_.route("GET", "/v1/objects/{id}", [&node](const Request& request) -> Response {
    auto id = id_param(request, "id");
    if (auto* refused = std::get_if<Response>(&id)) return std::move(*refused);
    auto at = u64_query(request, "height");
    if (auto* refused = std::get_if<Response>(&at)) return std::move(*refused);
    const std::string* proof_text = request.query_param("proof");
    if (proof_text != nullptr && *proof_text != "true" && *proof_text != "false") {
      return bad_request("proof: expected true or false");
    }
    const bool with_proof = proof_text != nullptr && *proof_text == "true";
    const commit::Hash object_id = std::get<commit::Hash>(id);
    auto lock = node.read_lock();
    const std::uint64_t latest = node.chain().height();
    const std::uint64_t height = std::get<std::optional<std::uint64_t>>(at).value_or(latest);
    if (height > latest) return not_found(fmt::format("height {} is above the chain's {}", height, latest));
    Json out{{"id", base::to_hex(object_id)}, {"height", height}};
    if (height == latest) {
      auto proven = node.chain().get_with_proof(object_id);
      if (!proven) return internal(proven.error());
      out["state_root"] = base::to_hex(proven->root);
      out["object"] = proven->object ? object_json(*proven->object) : Json(nullptr);
      if (with_proof) out["proof_hex"] = base::to_hex(codec::encode(proven->proof));
      return ok(out);
    }
    // An older retained height: the proof says what the object was.
    auto root = node.chain().state_root_at(height);
    if (!root) return lookup_failure(root.error());
    auto proof = node.chain().prove_at(object_id, height);
    if (!proof) return lookup_failure(proof.error());
    out["state_root"] = base::to_hex(*root);
    // The object's bytes are not kept for older heights: the proof's leaf
    // carries its hash (docs/api.md).
    out["proof_hex"] = base::to_hex(codec::encode(*proof));
    return ok(out);
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/accounts/{id}", [&node](const Request& request) -> Response {
    auto id = id_param(request, "id");
    if (auto* refused = std::get_if<Response>(&id)) return std::move(*refused);
    const commit::Hash account_id = std::get<commit::Hash>(id);
    auto lock = node.read_lock();
    auto object = node.chain().state().get(account_id);
    if (!object) return internal(object.error());
    Json out{{"id", base::to_hex(account_id)}, {"height", node.chain().height()}, {"exists", object->has_value()}};
    if (*object) {
      auto account = exec::account_from(**object);
      if (!account) return internal(account.error());
      out["nonce"] = account->nonce;
      out["keys_id"] = base::to_hex(account->keys_id);
    } else {
      out["nonce"] = 0;
      out["keys_id"] = nullptr;
    }
    auto coins = node.chain().coins_of(account_id);
    if (!coins) return internal(coins.error());
    Json list = Json::array();
    exec::Amount balance = 0;
    for (const auto& [coin_id, amount] : *coins) {
      list.push_back(Json{{"id", base::to_hex(coin_id)}, {"amount", amount}});
      balance += amount;  // the supply fits in 2^64 - 1, so no sum of coins passes it
    }
    out["coins"] = std::move(list);
    out["balance"] = balance;
    return ok(out);
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/agents/{id}", [&node](const Request& request) -> Response {
    auto id = id_param(request, "id");
    if (auto* refused = std::get_if<Response>(&id)) return std::move(*refused);
    const commit::Hash agent_id = std::get<commit::Hash>(id);
    auto lock = node.read_lock();
    const exec::StoreView view(node.chain().state());
    const ledger::Overlay state(view);
    auto agent = agents::read_agent(state, agent_id);
    if (!agent) return internal(agent.error());
    if (!*agent) return not_found("no agent's charter is stored under " + base::to_hex(agent_id));
    // Where it stands for the next Pulse: the one its next transaction joins.
    const std::uint64_t next = node.chain().height() + 1;
    auto standing = agents::read_standing(state, **agent, next);
    if (!standing) return internal(standing.error());
    return ok(agent_json(**agent, *standing, next));
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/streams/{id}", [&node](const Request& request) -> Response {
    auto id = id_param(request, "id");
    if (auto* refused = std::get_if<Response>(&id)) return std::move(*refused);
    const commit::Hash stream_id = std::get<commit::Hash>(id);
    auto lock = node.read_lock();
    const exec::StoreView view(node.chain().state());
    const ledger::Overlay state(view);
    auto stream = streams::read_stream(state, stream_id);
    if (!stream) return internal(stream.error());
    // Never opened, or settled to its end or closed: deleted either way.
    if (!*stream) return not_found("no stream is stored under " + base::to_hex(stream_id));
    return ok(stream_json(stream_id, (*stream)->stream, node.chain().height()));
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/status", [this, &node](const Request&) -> Response {
    Json out{{"chain_id", node.genesis().params.chain_id}};
    {
      auto lock = node.read_lock();
      const exec::PulseHeader head = node.chain().head();
      out["height"] = head.height;
      out["pulse_hash"] = base::to_hex(exec::pulse_hash(head));
      out["state_root"] = base::to_hex(head.state_root);
      out["genesis_state_root"] = base::to_hex(node.chain().header(0).value().state_root);
    }
    out["validator"] = base::to_hex(node.validator_id());
    const auto failure = node.failure();
    out["producing"] = !failure.has_value();
    if (failure) out["error"] = failure->to_string();
    const Node::MempoolView pool = node.mempool();
    out["mempool"] = Json{{"transactions", pool.transactions}, {"bytes", pool.bytes}, {"held", pool.held}};
    const exec::ChainParams& params = node.genesis().params;
    out["params"] =
        Json{{"chain_id", params.chain_id},
             {"fees", Json{{"per_byte", params.fees.per_byte}, {"per_verify_unit", params.fees.per_verify_unit}}},
             {"limits", Json{{"max_verify_units", params.limits.max_verify_units},
                             {"max_auth_bytes", params.limits.max_auth_bytes},
                             {"max_bytes", params.limits.max_bytes},
                             {"max_transactions", params.limits.max_transactions}}}};
    out["version"] = std::string(base::build_info().version);
    out["uptime_s"] = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_).count());
    return ok(out);
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/consensus", [&node](const Request&) -> Response {
    const ConsensusStatus status = node.consensus().status();
    Json out{{"running", status.running},
             {"validator_index", status.self},
             {"validators", status.validators},
             {"round", status.round},
             {"high_qc_round", status.high_qc_round},
             {"last_voted_round", status.last_voted_round},
             {"delivered_height", status.delivered_height},
             {"certified_height", status.certified_height},
             {"connected", status.connected},
             {"proposals", status.proposals},
             {"votes", status.votes},
             {"timeouts", status.timeouts},
             {"rejected", status.rejected},
             {"blocks_committed", status.blocks_committed},
             {"batches_made", status.batches_made},
             {"batches_refused", status.batches_refused},
             {"inbox_dropped", status.inbox_dropped},
             {"evidence", node.consensus().evidence().size()}};
    if (status.halted) out["halted"] = *status.halted;
    return ok(out);
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/pulses/{height}/certificate", [&node](const Request& request) -> Response {
    auto height = height_param(request, node);
    if (auto* refused = std::get_if<Response>(&height)) return std::move(*refused);
    const std::uint64_t h = std::get<std::uint64_t>(height);
    const auto certificate = node.consensus().certificate(h);
    if (!certificate) return not_found(fmt::format("no Pulse certificate for height {} is kept here", h));
    Json signers = Json::array();
    for (const consensus::SignerSignature& vote : certificate->votes) signers.push_back(vote.signer);
    return ok(Json{{"height", h},
                   {"pulse_hash", base::to_hex(certificate->body.pulse)},
                   {"state_root", base::to_hex(certificate->body.state_root)},
                   {"signers", std::move(signers)},
                   {"certificate_hex", base::to_hex(codec::encode(*certificate))}});
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/evidence", [&node](const Request&) -> Response {
    Json list = Json::array();
    for (const EvidenceRecord& record : node.consensus().evidence()) {
      list.push_back(Json{{"offender", record.offender},
                          {"what", record.what},
                          {"first_kind", std::string(consensus::message_name(record.first))},
                          {"first_hex", base::to_hex(consensus::encode_message(record.first))},
                          {"second_kind", std::string(consensus::message_name(record.second))},
                          {"second_hex", base::to_hex(consensus::encode_message(record.second))},
                          {"seen_ms", record.seen_ms}});
    }
    return ok(Json{{"evidence", std::move(list)}});
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/log/head", [&node](const Request&) -> Response {
    const SignedLogHead signed_head = node.signed_log_head();
    return ok(Json{{"size", signed_head.head.size},
                   {"root", base::to_hex(signed_head.head.root)},
                   {"head_hex", base::to_hex(codec::encode(signed_head.head))},
                   {"signature_hex", base::to_hex(codec::encode(signed_head.signature))},
                   {"signer", base::to_hex(node.validator_id())}});
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/log/inclusion/{height}", [&node](const Request& request) -> Response {
    auto height = u64_param(request, "height");
    if (auto* refused = std::get_if<Response>(&height)) return std::move(*refused);
    auto size = u64_query(request, "size");
    if (auto* refused = std::get_if<Response>(&size)) return std::move(*refused);
    auto lock = node.read_lock();
    const std::uint64_t h = std::get<std::uint64_t>(height);
    const std::uint64_t n = std::get<std::optional<std::uint64_t>>(size).value_or(node.chain().log_head().size);
    auto proof = node.chain().header_proof(h, n);
    if (!proof) return lookup_failure(proof.error());
    auto header = node.chain().header(h);
    if (!header) return internal(header.error());
    return ok(Json{{"height", h},
                   {"size", n},
                   {"pulse_hash", base::to_hex(exec::pulse_hash(*header))},
                   {"proof_hex", base::to_hex(codec::encode(*proof))}});
  }));

  SION_TRY_STATUS(server_.route("GET", "/v1/log/consistency", [&node](const Request& request) -> Response {
    auto from = u64_query(request, "from");
    if (auto* refused = std::get_if<Response>(&from)) return std::move(*refused);
    auto to = u64_query(request, "to");
    if (auto* refused = std::get_if<Response>(&to)) return std::move(*refused);
    const auto a = std::get<std::optional<std::uint64_t>>(from);
    const auto b = std::get<std::optional<std::uint64_t>>(to);
    if (!a || !b) return bad_request("from and to are required");
    // No log of any size has a proof between these sizes (0 < from <= to,
    // docs/commit-log.md): the query is malformed, not an entry missing.
    if (*a == 0 || *a > *b) return bad_request(fmt::format("from: expected 1 to {} (to), got {}", *b, *a));
    auto lock = node.read_lock();
    auto proof = node.chain().log_consistency(*a, *b);
    if (!proof) return lookup_failure(proof.error());
    return ok(Json{{"from", *a}, {"to", *b}, {"proof_hex", base::to_hex(codec::encode(*proof))}});
  }));

  SION_TRY_STATUS(server_.route(
      "GET", "/v1/events",
      [&node](const Request& request, const std::shared_ptr<http::EventStream>& stream) -> std::optional<Response> {
        EventFilter filter;
        if (const std::string* account = request.query_param("account")) {
          auto id = parse_id(*account);
          if (!id) return json_error(400, "bad_hex", "account: expected 64 lower-case hex digits");
          filter.account = *id;
        }
        std::uint64_t after = 0;
        bool live_only = true;
        if (const auto last = request.last_event_id()) {
          const auto parsed = parse_u64(*last);
          if (!parsed) return bad_request("Last-Event-ID: expected a decimal event id");
          after = *parsed;
          live_only = false;
        }
        std::weak_ptr<http::EventStream> weak = stream;
        const EventLog::Subscription subscription =
            node.events().subscribe(after, live_only, std::move(filter), [weak](const Event& event) {
              const auto target = weak.lock();
              if (!target) return false;
              http::Event out;
              if (event.id != 0) out.id = std::to_string(event.id);
              out.type = event.type;
              out.data = event.data;
              return target->push(out);
            });
        // The client leaving ends the subscription: waiting for a push to
        // fail would keep it while nothing it matches happens, and a client
        // reconnecting in a loop would add one each time.
        if (subscription.id != 0) {
          stream->on_detach([&node, id = subscription.id] { node.events().unsubscribe(id); });
        }
        return std::nullopt;
      }));

  SION_TRY_STATUS(server_.route("GET", "/metrics", [this](const Request&) { return metrics(); }));
  return {};
}

void Api::count_refusal(std::string_view code) {
  for (std::size_t i = 0; i < kSubmissionErrorCodes.size(); ++i) {
    if (kSubmissionErrorCodes[i] == code) submission_errors_[i].fetch_add(1, std::memory_order_relaxed);
  }
}

http::Response Api::refuse_submission(unsigned status, std::string_view code, std::string_view message) {
  count_refusal(code);
  return json_error(status, code, message);
}

// A batch in flight: its items' answers, filled by the admission jobs, and
// the reply the last job to finish sends.
struct Api::Batch {
  struct Item {
    std::optional<exec::Transaction> tx;  // decoded, not yet submitted
    bool id_known = false;
    Answer answer;
  };
  std::vector<Item> items;
  std::atomic<std::size_t> chunks_left{0};
  http::Reply reply;

  explicit Batch(http::Reply r) : reply(std::move(r)) {}
  // Called once per chunk; the last one answers.
  void chunk_done() {
    if (chunks_left.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    Json results = Json::array();
    for (const Item& item : items) results.push_back(batch_result(item.answer, item.id_known));
    const Json body{{"results", std::move(results)}};
    // Messages may quote request bytes; invalid UTF-8 is replaced, as in json_error.
    reply(Response::json(200, body.dump(-1, ' ', false, Json::error_handler_t::replace)));
  }
};

void Api::submit_batch(std::vector<BatchElement> elements, http::Reply reply) {
  auto batch = std::make_shared<Batch>(std::move(reply));
  batch->items.resize(elements.size());
  // Decoding is a copy, not a signature check: it happens here so that the
  // items can be grouped by sender. A sender's items stay in one chunk, in
  // request order, so a later nonce that spends the change of an earlier one
  // finds it pooled (docs/mempool.md); distinct senders spread over the
  // workers in contiguous runs.
  std::vector<std::size_t> decoded;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    Batch::Item& item = batch->items[i];
    if (!elements[i].bad_hex.empty()) {
      item.answer = {400, "bad_hex", std::move(elements[i].bad_hex)};
    } else if (auto tx = codec::decode<exec::Transaction>(elements[i].bytes); !tx) {
      item.answer = {400, "bad_encoding", tx.error().reason};
    } else {
      item.answer.tx_id = exec::tx_id(tx->payload);
      item.id_known = true;
      item.tx = std::move(tx).value();
      decoded.push_back(i);
    }
    count_refusal(item.answer.code);
  }
  const std::size_t chunk_count = std::min<std::size_t>(admission_workers_, decoded.size());
  std::vector<std::vector<std::size_t>> chunks(chunk_count);
  if (chunk_count != 0) {
    // Senders in order of first appearance, each with all its items, fill
    // one chunk up to an even share before the next is started.
    const std::size_t target = (decoded.size() + chunk_count - 1) / chunk_count;
    std::map<exec::Id, std::size_t, commit::HashOrder> items_of_sender;
    for (const std::size_t i : decoded) ++items_of_sender[batch->items[i].tx->payload.sender];
    std::map<exec::Id, std::size_t, commit::HashOrder> chunk_of_sender;
    std::size_t filling = 0;
    std::size_t filled = 0;
    for (const std::size_t i : decoded) {
      const exec::Id& sender = batch->items[i].tx->payload.sender;
      const auto [slot, fresh] = chunk_of_sender.try_emplace(sender, filling);
      if (fresh) {
        filled += items_of_sender[sender];
        if (filled >= target && filling + 1 < chunk_count) {
          ++filling;
          filled = 0;
        }
      }
      chunks[slot->second].push_back(i);
    }
  }
  std::erase_if(chunks, [](const std::vector<std::size_t>& chunk) { return chunk.empty(); });
  batch->chunks_left.store(chunks.size() + 1);  // one more for this thread, released below
  for (std::vector<std::size_t>& chunk : chunks) {
    auto job = [this, batch, chunk] {
      for (const std::size_t i : chunk) {
        Batch::Item& item = batch->items[i];
        const exec::Id tx_id = item.answer.tx_id;
        item.answer = answer_of(node_.submit(std::move(*item.tx), base::unix_time_ms()));
        item.answer.tx_id = tx_id;  // known from the decoding, whatever the mempool refused first
        item.tx.reset();
        count_refusal(item.answer.code);
      }
      batch->chunk_done();
    };
    if (!admission_.submit(std::move(job))) {
      for (const std::size_t i : chunk) {
        batch->items[i].answer = {503, "busy", "the admission queue is full; retry shortly",
                                  batch->items[i].answer.tx_id};
        batch->items[i].tx.reset();
        busy_.fetch_add(1);
      }
      batch->chunk_done();
    }
  }
  batch->chunk_done();
}

std::vector<std::pair<std::string_view, std::uint64_t>> Api::submission_errors() const {
  std::vector<std::pair<std::string_view, std::uint64_t>> out;
  for (std::size_t i = 0; i < kSubmissionErrorCodes.size(); ++i) {
    out.emplace_back(kSubmissionErrorCodes[i], submission_errors_[i].load(std::memory_order_relaxed));
  }
  return out;
}

http::Response Api::metrics() const {
  PrometheusText text;
  {
    auto lock = node_.read_lock();
    text.gauge("sion_height", "Latest committed Pulse height.", node_.chain().height());
  }
  const Node::MempoolView pool = node_.mempool();
  text.gauge("sion_mempool_transactions", "Transactions in the mempool.", pool.transactions);
  text.gauge("sion_mempool_bytes", "Encoded bytes of the mempool's transactions.", pool.bytes);
  text.family("sion_mempool_refusals_total", "counter", "Submissions the mempool refused, by policy code.");
  for (const auto& [code, count] : node_.refusal_counts())
    text.sample("sion_mempool_refusals_total", count, {{"code", code}});
  text.family("sion_mempool_removals_total", "counter", "Transactions that left the mempool, by reason.");
  for (const auto& [reason, count] : node_.removal_counts()) {
    text.sample("sion_mempool_removals_total", count, {{"reason", reason}});
  }
  text.counter("sion_executed_transactions_total", "Transactions in Pulses this node committed since it started.",
               node_.executed_transactions());
  text.family("sion_api_submission_errors_total", "counter",
              "Submissions refused before the mempool saw them (docs/api.md), by error code.");
  for (const auto& [code, count] : submission_errors()) {
    text.sample("sion_api_submission_errors_total", count, {{"code", std::string(code)}});
  }
  text.counter("sion_admission_busy_total", "Submissions answered 503 because the admission queue was full.",
               busy_.load());
  text.counter("sion_verify_cache_hits_total", "Signature checks the verify cache answered.",
               node_.verify_cache().hits());
  text.counter("sion_verify_cache_misses_total", "Signature checks the verify cache did not answer.",
               node_.verify_cache().misses());
  text.gauge("sion_event_subscribers", "Open event-stream subscriptions.", node_.events().subscribers());
  const http::ServerStats stats = server_.stats();
  node_.export_interval_histogram(text);
  export_server_stats(text, stats);
  return Response::text(200, text.text());
}

}  // namespace sion::node
