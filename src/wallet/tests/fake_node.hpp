#pragma once
// A node in memory that answers docs/api.md's routes through an HttpCall,
// with real proofs: real Pulse headers (exec::PulseHeader, each linked to
// its parent's pulse_hash) in a header log on SHA3-256 whose entry 0 is the
// genesis header and entry h Pulse h's (commit::MerkleLog), per Pulse a state tree
// (ledger::MemoryState) and an extended square (da), and log heads signed by
// a genesis validator. `tamper` edits a reply before it is sent, so tests
// can check that a client refuses what a lying node would send.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/json.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/merkle_log.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/sampling.hpp"
#include "sion/da/square.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/wallet/http_call.hpp"
#include "sion/wallet/light_client.hpp"
#include "sion/wallet/log_head.hpp"

namespace sion::wallet::testing {

using Json = nlohmann::json;

inline bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

inline crypto::KeySeed seed_of(std::uint8_t byte) {
  crypto::KeySeed seed{};
  seed.fill(byte);
  return seed;
}

inline HttpReply json_reply(unsigned status, const Json& body) { return {status, "application/json", body.dump()}; }

inline HttpReply error_reply(unsigned status, std::string_view code, std::string_view message) {
  return json_reply(status, Json{{"error", {{"code", code}, {"message", message}}}});
}

inline commit::Hash hash_of_byte(std::uint8_t byte) {
  commit::Hash hash{};
  hash.fill(byte);
  return hash;
}

class FakeNode {
 public:
  struct Pulse {
    exec::PulseHeader header;
    commit::Hash hash{};  // exec::pulse_hash(header)
    commit::Hash state_root{};
    da::DataCommitment data;
    std::shared_ptr<da::ExtendedSquare> square;
    std::shared_ptr<da::SquareCommitment> trees;
    std::shared_ptr<ledger::MemoryState> state;
  };

  FakeNode() : validator_(crypto::SigningBundle::from_seed(crypto::Profile::dual, seed_of(7)).value()) {
    const auto account = crypto::SigningBundle::from_seed(crypto::Profile::dual, seed_of(1)).value();
    genesis_.params.chain_id = 5;
    genesis_.accounts.push_back({account.public_bundle(), {1000}});
    genesis_.validators.push_back({validator_.public_bundle()});
    genesis_root_ = exec::genesis_state_root(genesis_).value();
    genesis_header_ = exec::genesis_header(genesis_root_, genesis_.params);
    replace_log({exec::pulse_hash(genesis_header_)});
  }

  const exec::Genesis& genesis() const { return genesis_; }
  const crypto::SigningBundle& validator() const { return validator_; }
  const exec::PulseHeader& genesis_header() const { return genesis_header_; }
  // Entry h is Pulse h's hash, entry 0 the genesis header's: size height() + 1.
  const commit::MerkleLog& log() const { return log_; }
  const Pulse& pulse(std::uint64_t height) const { return pulses_.at(height - 1); }
  std::uint64_t height() const { return pulses_.size(); }

  // A Pulse whose data is `data_bytes` bytes and whose state sets `objects`
  // (on top of the previous Pulse's); appended to the header log.
  void add_pulse(std::size_t data_bytes, const std::map<exec::Id, state::Object>& objects) {
    for (const auto& [id, object] : objects) objects_[id] = object;
    std::vector<state::ObjectWrite> writes;
    for (const auto& [id, object] : objects_) writes.push_back({id, object});
    Pulse p;
    p.state = std::make_shared<ledger::MemoryState>(ledger::MemoryState::from_writes(writes).value());
    p.state_root = p.state->root();
    base::Bytes data(data_bytes);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 31 + pulses_.size());
    p.square = std::make_shared<da::ExtendedSquare>(da::ExtendedSquare::from_data(data).value());
    p.trees = std::make_shared<da::SquareCommitment>(da::SquareCommitment::compute(*p.square));
    p.data = {p.trees->original_width(), data_bytes, p.trees->data_root()};
    exec::PulseHeader& h = p.header;
    h.height = pulses_.size() + 1;
    h.parent = pulses_.empty() ? exec::pulse_hash(genesis_header_) : pulses_.back().hash;
    h.time_ms = 1764855000000 + h.height;
    h.proposer = exec::account_id(validator_.public_bundle());
    h.params_hash = exec::params_hash(genesis_.params);
    h.transactions_root = exec::transactions_root({});
    h.receipts_root = hash_of_byte(0x72);
    h.state_root = p.state_root;
    h.data = p.data;
    p.hash = exec::pulse_hash(h);
    log_.append(p.hash);
    entries_.push_back(p.hash);
    pulses_.push_back(std::move(p));
  }

  // The head the node serves from now on: the log's, signed by `signer`.
  void sign_head(const crypto::SigningBundle* signer = nullptr) {
    const crypto::SigningBundle& who = signer != nullptr ? *signer : validator_;
    head_ = log_.head();
    signature_ = sign_log_head(who, head_, crypto::Hedging::deterministic).value();
    signer_ = exec::account_id(who.public_bundle());
  }

  // Replaces the log's entries (a node that rewrote its history).
  void replace_log(std::vector<commit::Hash> entries) {
    log_ = commit::MerkleLog(commit::kLogSha3);
    for (const commit::Hash& entry : entries) log_.append(entry);
    entries_ = std::move(entries);
  }

  // The JSON `header` of GET /v1/pulses/{height} (docs/api.md).
  static Json header_json(const exec::PulseHeader& header) {
    return {{"height", header.height},
            {"parent", base::to_hex(header.parent)},
            {"time_ms", header.time_ms},
            {"proposer", base::to_hex(header.proposer)},
            {"transactions_root", base::to_hex(header.transactions_root)},
            {"receipts_root", base::to_hex(header.receipts_root)},
            {"state_root", base::to_hex(header.state_root)},
            {"data", data_json(header.data)},
            {"params_hash", base::to_hex(header.params_hash)}};
  }

  std::function<void(const std::string& path, Json& body)> tamper;
  std::function<std::optional<HttpReply>(std::string_view method, const std::string& path, std::string_view body)>
      intercept;
  std::vector<std::string> requests;

  HttpCall call() {
    return [this](std::string_view method, std::string_view path, std::string_view body,
                  std::string_view) -> base::Result<HttpReply> {
      const std::string p(path);
      requests.push_back(std::string(method) + " " + p);
      if (intercept) {
        if (auto reply = intercept(method, p, body)) return *reply;
      }
      auto reply = route(method, p);
      if (!reply) return error_reply(404, "not_found", "no such thing: " + p);
      if (tamper) tamper(p, *reply);
      return json_reply(200, *reply);
    };
  }

  Json status_json() const {
    return {
        {"chain_id", genesis_.params.chain_id},
        {"height", height()},
        {"pulse_hash", pulses_.empty() ? Json(nullptr) : Json(base::to_hex(pulses_.back().hash))},
        {"state_root", base::to_hex(pulses_.empty() ? genesis_root_ : pulses_.back().state_root)},
        {"genesis_state_root", base::to_hex(genesis_root_)},
        {"validator", base::to_hex(exec::account_id(validator_.public_bundle()))},
        {"producing", true},
        {"mempool", {{"transactions", 0}, {"bytes", 0}, {"held", 0}}},
        {"params",
         {{"chain_id", genesis_.params.chain_id},
          {"fees",
           {{"per_byte", genesis_.params.fees.per_byte}, {"per_verify_unit", genesis_.params.fees.per_verify_unit}}},
          {"limits",
           {{"max_verify_units", genesis_.params.limits.max_verify_units},
            {"max_auth_bytes", genesis_.params.limits.max_auth_bytes},
            {"max_bytes", genesis_.params.limits.max_bytes},
            {"max_transactions", genesis_.params.limits.max_transactions}}}}},
        {"version", "test"},
        {"uptime_s", 1}};
  }

 private:
  static std::vector<std::string> split(const std::string& path) {
    std::vector<std::string> parts;
    std::string part;
    for (const char c : path) {
      if (c == '/') {
        if (!part.empty()) parts.push_back(part);
        part.clear();
      } else {
        part += c;
      }
    }
    if (!part.empty()) parts.push_back(part);
    return parts;
  }

  static std::map<std::string, std::string> query_of(std::string& path) {
    std::map<std::string, std::string> query;
    const auto mark = path.find('?');
    if (mark == std::string::npos) return query;
    std::string rest = path.substr(mark + 1);
    path.resize(mark);
    std::size_t begin = 0;
    while (begin <= rest.size()) {
      const auto end = std::min(rest.find('&', begin), rest.size());
      const std::string item = rest.substr(begin, end - begin);
      const auto eq = item.find('=');
      if (eq != std::string::npos) query[item.substr(0, eq)] = item.substr(eq + 1);
      begin = end + 1;
    }
    return query;
  }

  static Json data_json(const da::DataCommitment& data) {
    return {{"original_width", data.original_width},
            {"data_bytes", data.data_bytes},
            {"data_root", base::to_hex(data.data_root)}};
  }

  std::optional<Json> route(std::string_view method, std::string path) const {
    if (method != "GET") return std::nullopt;
    auto query = query_of(path);
    const auto parts = split(path);
    if (parts.size() < 2 || parts[0] != "v1") return std::nullopt;
    const auto number = [](const std::string& text) { return std::stoull(text); };
    if (parts[1] == "status") return status_json();
    if (parts[1] == "log" && parts.size() == 3 && parts[2] == "head") {
      return Json{{"size", head_.size},
                  {"root", base::to_hex(head_.root)},
                  {"head_hex", base::to_hex(codec::encode(head_))},
                  {"signature_hex", base::to_hex(codec::encode(signature_))},
                  {"signer", base::to_hex(signer_)}};
    }
    if (parts[1] == "log" && parts.size() == 3 && parts[2] == "consistency") {
      const auto from = number(query.at("from"));
      const auto to = number(query.at("to"));
      const auto proof = log_.consistency_proof(from, to);
      if (!proof) return std::nullopt;
      return Json{{"from", from}, {"to", to}, {"proof_hex", base::to_hex(codec::encode(*proof))}};
    }
    if (parts[1] == "log" && parts.size() == 4 && parts[2] == "inclusion") {
      const auto height = number(parts[3]);
      const auto size = query.count("size") ? number(query.at("size")) : log_.size();
      if (height >= entries_.size()) return std::nullopt;
      const auto proof = log_.inclusion_proof(height, size);
      if (!proof) return std::nullopt;
      return Json{{"height", height},
                  {"size", size},
                  {"pulse_hash", base::to_hex(entries_[height])},
                  {"proof_hex", base::to_hex(codec::encode(*proof))}};
    }
    if (parts[1] == "pulses" && parts.size() >= 3) {
      const auto height = parts[2] == "latest" ? pulses_.size() : number(parts[2]);
      if (height == 0 || height > pulses_.size()) return std::nullopt;
      const Pulse& p = pulses_[height - 1];
      if (parts.size() == 3) {
        return Json{{"height", height},
                    {"hash", base::to_hex(p.hash)},
                    {"header_hex", base::to_hex(codec::encode(p.header))},
                    {"header", header_json(p.header)},
                    {"transactions", Json::array()}};
      }
      if (parts.size() == 4 && parts[3] == "availability") {
        return Json{{"height", height},
                    {"data", data_json(p.data)},
                    {"availability_hex", base::to_hex(codec::encode(p.trees->header()))}};
      }
      if (parts.size() == 6 && parts[3] == "shares") {
        const auto row = static_cast<std::uint32_t>(number(parts[4]));
        const auto col = static_cast<std::uint32_t>(number(parts[5]));
        if (row >= 2 * p.data.original_width || col >= 2 * p.data.original_width) return std::nullopt;
        const auto proof = da::prove_share(*p.square, *p.trees, da::Axis::row, row, col);
        return Json{{"row", row}, {"column", col}, {"proof_hex", base::to_hex(codec::encode(proof))}};
      }
      return std::nullopt;
    }
    if (parts[1] == "objects" && parts.size() == 3) {
      const auto id_bytes = base::from_hex(parts[2]).value();
      exec::Id id{};
      std::copy(id_bytes.begin(), id_bytes.end(), id.begin());
      const auto height = query.count("height") ? number(query.at("height")) : pulses_.size();
      if (height == 0 || height > pulses_.size()) return std::nullopt;
      const Pulse& p = pulses_[height - 1];
      const auto object = p.state->get(id).value();
      Json reply{{"id", base::to_hex(id)}, {"height", height}, {"state_root", base::to_hex(p.state_root)}};
      if (object) {
        reply["object"] = {{"type", object->type},
                           {"type_name", "coin"},
                           {"version", object->version},
                           {"data_hex", base::to_hex(object->data)}};
      } else {
        reply["object"] = nullptr;
      }
      if (query.count("proof")) reply["proof_hex"] = base::to_hex(codec::encode(p.state->tree().prove(id)));
      return reply;
    }
    return std::nullopt;
  }

  exec::Genesis genesis_;
  commit::Hash genesis_root_{};
  exec::PulseHeader genesis_header_;
  crypto::SigningBundle validator_;
  commit::MerkleLog log_{commit::kLogSha3};
  std::vector<commit::Hash> entries_;  // the log's entries (pulse hashes), entry 0 the genesis header's
  std::vector<Pulse> pulses_;
  std::map<exec::Id, state::Object> objects_;
  commit::TreeHead head_;
  crypto::SignatureBundle signature_;
  exec::Id signer_{};
};

}  // namespace sion::wallet::testing
