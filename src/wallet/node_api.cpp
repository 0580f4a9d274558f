#include "sion/wallet/node_api.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "sion/base/json.hpp"
#include "sion/codec/codec.hpp"

namespace sion::wallet {
namespace {

using base::Errc;
using base::JsonObject;
using base::JsonView;

constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();

// "application/json", in any case, optionally with parameters ("; charset=utf-8").
bool is_json(std::string_view content_type) {
  constexpr std::string_view kJson = "application/json";
  if (content_type.size() < kJson.size()) return false;
  for (std::size_t i = 0; i < kJson.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(content_type[i])) != kJson[i]) return false;
  }
  const std::string_view rest = content_type.substr(kJson.size());
  return rest.empty() || rest.front() == ';' || rest.front() == ' ';
}

std::string excerpt(std::string_view text) {
  constexpr std::size_t kMax = 200;
  return text.size() <= kMax ? std::string(text) : std::string(text.substr(0, kMax)) + "...";
}

template <class T>
base::Result<T> in_route(const std::string& route, base::Result<T> result) {
  if (!result) return base::fail(std::move(result).error().with_context(route));
  return result;
}

// The error body of a 4xx/5xx reply; a body that is not the documented one
// (a proxy's page, say) is kept as the message, with no code.
ApiError parse_error(const HttpReply& reply) {
  ApiError error{reply.status, {}, {}};
  const auto read = [&]() -> base::Status {
    if (!is_json(reply.content_type)) return base::fail(Errc::invalid_value, "not JSON");
    SION_TRY(const base::JsonValue doc, base::parse_json(reply.body));
    SION_TRY(auto top, JsonView(doc).as_object());
    SION_TRY(auto inner, top.object("error"));
    SION_TRY(error.code, inner.string("code"));
    SION_TRY(error.message, inner.string("message"));
    SION_TRY_STATUS(inner.finish());
    return top.finish();
  };
  if (!read()) {
    error.code.clear();
    error.message = excerpt(reply.body);
  }
  return error;
}

base::Failure status_failure(const std::string& route, const ApiError& error) {
  Errc code = Errc::invalid_argument;
  if (error.status == 404) code = Errc::not_found;
  if (error.status == 429 || error.status >= 500) code = Errc::io_error;
  return base::fail(code, route + ": " + error.to_string());
}

base::Result<commit::Hash> to_hash(const JsonView& view) {
  SION_TRY(auto bytes, view.as_hex({.size = 32}));
  commit::Hash hash{};
  std::copy(bytes.begin(), bytes.end(), hash.begin());
  return hash;
}

base::Result<commit::Hash> hash_field(JsonObject& object, std::string_view key) {
  SION_TRY(auto view, object.field(key));
  return to_hash(view);
}

// Absent or null: nullopt.
base::Result<std::optional<commit::Hash>> nullable_hash(JsonObject& object, std::string_view key) {
  const auto view = object.optional_field(key);
  if (!view || view->is_null()) return std::optional<commit::Hash>{};
  SION_TRY(auto hash, to_hash(*view));
  return std::optional<commit::Hash>{hash};
}

base::Result<std::optional<std::string>> optional_string(JsonObject& object, std::string_view key) {
  const auto view = object.optional_field(key);
  if (!view || view->is_null()) return std::optional<std::string>{};
  SION_TRY(auto text, view->as_string());
  return std::optional<std::string>{std::move(text)};
}

base::Result<std::optional<std::uint64_t>> optional_u64(JsonObject& object, std::string_view key) {
  const auto view = object.optional_field(key);
  if (!view || view->is_null()) return std::optional<std::uint64_t>{};
  SION_TRY(auto value, view->as_u64());
  return std::optional<std::uint64_t>{value};
}

base::Result<std::vector<commit::Hash>> hash_list(JsonObject& object, std::string_view key) {
  SION_TRY(auto array, object.array(key));
  std::vector<commit::Hash> out;
  out.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    SION_TRY(auto hash, to_hash(array[i]));
    out.push_back(hash);
  }
  return out;
}

// A `*_hex` field holding the canonical encoding of one T.
template <class T>
base::Result<T> codec_field(JsonObject& object, std::string_view key) {
  SION_TRY(auto view, object.field(key));
  SION_TRY(auto bytes, view.as_hex());
  auto value = codec::decode<T>(bytes);
  if (!value) {
    return view.invalid("not one canonical " + std::string(codec::type_name<T>()) +
                        " encoding: " + value.error().reason);
  }
  return value;
}

base::Result<da::DataCommitment> data_commitment(JsonObject& parent, std::string_view key) {
  SION_TRY(auto object, parent.object(key));
  da::DataCommitment data;
  SION_TRY(const auto width, object.u64("original_width", kMaxU32));
  data.original_width = static_cast<std::uint32_t>(width);
  SION_TRY(data.data_bytes, object.u64("data_bytes"));
  SION_TRY(data.data_root, hash_field(object, "data_root"));
  SION_TRY_STATUS(object.finish());
  return data;
}

// The first field (by the codec's order) in which two headers differ.
std::optional<std::string_view> first_difference(const exec::PulseHeader& a, const exec::PulseHeader& b) {
  std::optional<std::string_view> found;
  std::apply(
      [&](const auto&... field) {
        static_cast<void>(((a.*field.member == b.*field.member ? false : (found = field.name, true)) || ...));
      },
      exec::PulseHeader::codec_fields());
  return found;
}

base::Failure mismatch(const std::string& route, const std::string& what) {
  return base::fail(Errc::invalid_value, route + ": " + what);
}

}  // namespace

std::string ApiError::to_string() const {
  std::string out = std::to_string(status);
  if (!code.empty()) out += " " + code;
  return out + ": " + message;
}

namespace {

// One request whose success is `ok_status` and whose body is JSON; the
// parsed document, or the error this route's reply amounts to.
base::Result<base::JsonValue> fetch_json(const HttpCall& call, const std::string& route, std::string_view method,
                                         std::string_view path, unsigned ok_status) {
  if (!call) return base::fail(Errc::internal, route + ": no transport");
  SION_TRY_CONTEXT(const HttpReply reply, route, call(method, path, {}, {}));
  if (reply.status != ok_status) {
    if (reply.status >= 400) return status_failure(route, parse_error(reply));
    return mismatch(route, "unexpected status " + std::to_string(reply.status));
  }
  if (!is_json(reply.content_type)) {
    return mismatch(route, "expected application/json, got content type \"" + excerpt(reply.content_type) + "\"");
  }
  return in_route(route, base::parse_json(reply.body));
}

std::string route_of(std::string_view method, const std::string& path) { return std::string(method) + " " + path; }

// GET `path`: its JSON object read by `read(top, document)`; errors name the route.
template <class T, class Read>
base::Result<T> get_route(const HttpCall& call, const std::string& path, const Read& read) {
  const std::string route = route_of("GET", path);
  SION_TRY(const base::JsonValue doc, fetch_json(call, route, "GET", path, 200));
  const JsonView view(doc);
  auto top = view.as_object();
  if (!top) return base::fail(std::move(top).error().with_context(route));
  return in_route(route, read(*top, view));
}

}  // namespace

base::Result<Submission> NodeApi::submit(const exec::Transaction& tx) {
  return submit_encoded(codec::encode(tx), exec::tx_id(tx.payload));
}

base::Result<Submission> NodeApi::submit_encoded(base::ByteView encoding, const std::optional<exec::Id>& expected_id) {
  const std::string path = "/v1/transactions";
  const std::string route = route_of("POST", path);
  if (!call_) return base::fail(Errc::internal, route + ": no transport");
  const std::string_view body(reinterpret_cast<const char*>(encoding.data()), encoding.size());
  SION_TRY_CONTEXT(const HttpReply reply, route, call_("POST", path, body, "application/octet-stream"));
  Submission out;
  if (reply.status >= 400) {
    out.refusal = parse_error(reply);
    return out;
  }
  if (reply.status != 202 && reply.status != 200) {
    return mismatch(route, "unexpected status " + std::to_string(reply.status));
  }
  if (!is_json(reply.content_type)) return mismatch(route, "expected application/json");
  const auto read = [&]() -> base::Status {
    SION_TRY(const base::JsonValue doc, base::parse_json(reply.body));
    SION_TRY(auto top, JsonView(doc).as_object());
    SION_TRY(out.tx_id, hash_field(top, "tx_id"));
    SION_TRY(auto status_view, top.field("status"));
    SION_TRY(const auto status, status_view.as_string());
    if (status != "pending" && status != "held") {
      return status_view.invalid("expected \"pending\" or \"held\", got " + status_view.describe());
    }
    out.held = status == "held";
    return top.finish();
  };
  SION_TRY_STATUS_CONTEXT(route, read());
  if (expected_id && out.tx_id != *expected_id) {
    return mismatch(route, "the node admitted tx id " + base::to_hex(out.tx_id) + ", but the transaction's is " +
                               base::to_hex(*expected_id));
  }
  return out;
}

base::Result<TxState> NodeApi::tx_status(const exec::Id& id) {
  const std::string path = "/v1/transactions/" + base::to_hex(id);
  return get_route<TxState>(call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<TxState> {
    TxState out;
    SION_TRY(out.status, top.string("status"));
    SION_TRY(out.height, optional_u64(top, "height"));
    SION_TRY(out.index, optional_u64(top, "index"));
    SION_TRY(out.pulse_hash, nullable_hash(top, "pulse_hash"));
    SION_TRY(out.reason, optional_string(top, "reason"));
    SION_TRY(out.replaced_by, nullable_hash(top, "replaced_by"));
    if (const auto receipt_view = top.optional_field("receipt"); receipt_view && !receipt_view->is_null()) {
      SION_TRY(auto receipt, receipt_view->as_object());
      ReceiptInfo info;
      SION_TRY(info.tx_id, hash_field(receipt, "tx_id"));
      SION_TRY(info.status, receipt.string("status"));
      SION_TRY(info.status_code, receipt.u64("status_code", 255));
      SION_TRY(info.fee_paid, receipt.u64("fee_paid"));
      SION_TRY(info.coins_created, receipt.u64("coins_created", kMaxU32));
      SION_TRY(info.coin_ids, hash_list(receipt, "coin_ids"));
      if (info.tx_id != id) return base::fail(Errc::invalid_value, receipt.path() + ".tx_id: another transaction's");
      out.receipt = std::move(info);
    }
    if (out.executed() && (!out.height || !out.index || !out.pulse_hash || !out.receipt)) {
      return doc.invalid("an executed transaction needs height, index, pulse_hash and receipt");
    }
    return out;
  });
}

base::Result<NodeStatus> NodeApi::status() {
  const std::string path = "/v1/status";
  return get_route<NodeStatus>(call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<NodeStatus> {
    NodeStatus out;
    SION_TRY(out.chain_id, top.u64("chain_id"));
    SION_TRY(out.height, top.u64("height"));
    SION_TRY(out.pulse_hash, nullable_hash(top, "pulse_hash"));
    SION_TRY(out.state_root, hash_field(top, "state_root"));
    SION_TRY(out.genesis_state_root, hash_field(top, "genesis_state_root"));
    SION_TRY(auto validator, optional_string(top, "validator"));
    out.validator = validator.value_or("");
    SION_TRY(out.producing, top.boolean("producing"));
    SION_TRY(out.error, optional_string(top, "error"));
    SION_TRY(auto mempool, top.object("mempool"));
    SION_TRY(out.mempool_transactions, mempool.u64("transactions"));
    SION_TRY(out.mempool_bytes, mempool.u64("bytes"));
    SION_TRY(out.mempool_held, mempool.u64("held"));
    SION_TRY(auto params, top.object("params"));
    SION_TRY(out.params.chain_id, params.u64("chain_id"));
    SION_TRY(auto fees, params.object("fees"));
    SION_TRY(out.params.fees.per_byte, fees.u64("per_byte"));
    SION_TRY(out.params.fees.per_verify_unit, fees.u64("per_verify_unit"));
    SION_TRY(auto limits, params.object("limits"));
    SION_TRY(out.params.limits.max_verify_units, limits.u64("max_verify_units"));
    SION_TRY(out.params.limits.max_auth_bytes, limits.u64("max_auth_bytes"));
    SION_TRY(out.params.limits.max_bytes, limits.u64("max_bytes"));
    SION_TRY(const std::uint64_t max_transactions, limits.u64("max_transactions", 0xffffffffu));
    out.params.limits.max_transactions = static_cast<std::uint32_t>(max_transactions);
    if (out.params.chain_id != out.chain_id) return doc.invalid("params.chain_id differs from chain_id");
    SION_TRY(out.version, top.string("version"));
    SION_TRY(out.uptime_s, top.u64("uptime_s"));
    return out;
  });
}

base::Result<AccountInfo> NodeApi::account(const exec::Id& id) {
  const std::string path = "/v1/accounts/" + base::to_hex(id);
  return get_route<AccountInfo>(call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<AccountInfo> {
    AccountInfo out;
    SION_TRY(out.id, hash_field(top, "id"));
    if (out.id != id) return doc.invalid("the reply names account " + base::to_hex(out.id));
    SION_TRY(out.height, top.u64("height"));
    SION_TRY(out.exists, top.boolean("exists"));
    SION_TRY(out.nonce, top.u64("nonce"));
    SION_TRY(out.keys_id, nullable_hash(top, "keys_id"));
    SION_TRY(auto coins, top.array("coins"));
    for (std::size_t i = 0; i < coins.size(); ++i) {
      SION_TRY(auto coin, coins[i].as_object());
      CoinInfo info;
      SION_TRY(info.id, hash_field(coin, "id"));
      SION_TRY(info.amount, coin.u64("amount"));
      out.coins.push_back(info);
    }
    SION_TRY(out.balance, top.u64("balance"));
    return out;
  });
}

base::Result<ObjectReply> NodeApi::object(const exec::Id& id, bool with_proof, std::optional<std::uint64_t> height) {
  std::string path = "/v1/objects/" + base::to_hex(id);
  if (with_proof) path += "?proof=true";
  if (height) path += std::string(with_proof ? "&" : "?") + "height=" + std::to_string(*height);
  return get_route<ObjectReply>(call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<ObjectReply> {
    ObjectReply out;
    SION_TRY(out.id, hash_field(top, "id"));
    if (out.id != id) return doc.invalid("the reply names object " + base::to_hex(out.id));
    SION_TRY(out.height, top.u64("height"));
    if (height && out.height != *height) {
      return doc.invalid("asked for height " + std::to_string(*height) + ", got " + std::to_string(out.height));
    }
    SION_TRY(out.state_root, hash_field(top, "state_root"));
    SION_TRY(auto object_view, top.field("object"));
    if (!object_view.is_null()) {
      SION_TRY(auto object, object_view.as_object());
      state::Object value;
      SION_TRY(const auto type, object.u64("type", kMaxU32));
      value.type = static_cast<std::uint32_t>(type);
      SION_TRY(const auto type_name, object.string("type_name"));
      static_cast<void>(type_name);  // a label for people; `type` is what counts
      SION_TRY(value.version, object.u64("version"));
      SION_TRY(auto data_view, object.field("data_hex"));
      SION_TRY(auto data, data_view.as_hex({.allow_empty = true}));
      if (data.size() > state::kMaxObjectBytes) return data_view.invalid("longer than an object may be");
      value.data = std::move(data);
      SION_TRY_STATUS(object.finish());
      out.object = std::move(value);
    }
    const auto proof_view = top.optional_field("proof_hex");
    if (proof_view && !proof_view->is_null()) {
      SION_TRY(auto bytes, proof_view->as_hex());
      auto proof = commit::decode_state_proof(bytes);
      if (!proof) return proof_view->invalid("not a StateProof: " + proof.error().reason);
      out.proof = std::move(proof).value();
    } else if (with_proof) {
      return doc.invalid("missing field \"proof_hex\" (asked for proof=true)");
    }
    SION_TRY_STATUS(top.finish());
    return out;
  });
}

base::Result<PulseReply> NodeApi::pulse(std::optional<std::uint64_t> height) {
  const std::string path = "/v1/pulses/" + (height ? std::to_string(*height) : std::string("latest"));
  return get_route<PulseReply>(call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<PulseReply> {
    PulseReply out;
    SION_TRY(out.height, top.u64("height"));
    if (height && out.height != *height) {
      return doc.invalid("asked for height " + std::to_string(*height) + ", got " + std::to_string(out.height));
    }
    SION_TRY(out.hash, hash_field(top, "hash"));
    SION_TRY(out.header, codec_field<exec::PulseHeader>(top, "header_hex"));
    SION_TRY(auto header, top.object("header"));
    exec::PulseHeader fields;
    SION_TRY(fields.height, header.u64("height"));
    SION_TRY(fields.parent, hash_field(header, "parent"));
    SION_TRY(fields.time_ms, header.u64("time_ms"));
    SION_TRY(fields.proposer, hash_field(header, "proposer"));
    SION_TRY(fields.transactions_root, hash_field(header, "transactions_root"));
    SION_TRY(fields.receipts_root, hash_field(header, "receipts_root"));
    SION_TRY(fields.state_root, hash_field(header, "state_root"));
    SION_TRY(fields.data, data_commitment(header, "data"));
    SION_TRY(fields.params_hash, hash_field(header, "params_hash"));
    SION_TRY_STATUS(header.finish());
    if (const auto field = first_difference(fields, out.header)) {
      return doc.invalid("the header's JSON field \"" + std::string(*field) + "\" disagrees with header_hex");
    }
    if (out.header.height != out.height) {
      return doc.invalid("the header is of height " + std::to_string(out.header.height));
    }
    SION_TRY(out.transactions, hash_list(top, "transactions"));
    SION_TRY_STATUS(top.finish());
    return out;
  });
}

base::Result<AvailabilityReply> NodeApi::availability(std::uint64_t height) {
  const std::string path = "/v1/pulses/" + std::to_string(height) + "/availability";
  return get_route<AvailabilityReply>(
      call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<AvailabilityReply> {
        AvailabilityReply out;
        SION_TRY(out.height, top.u64("height"));
        if (out.height != height) return doc.invalid("the reply is of height " + std::to_string(out.height));
        SION_TRY(out.data, data_commitment(top, "data"));
        SION_TRY(out.availability, codec_field<da::AvailabilityHeader>(top, "availability_hex"));
        SION_TRY_STATUS(top.finish());
        return out;
      });
}

base::Result<da::ShareProof> NodeApi::share(std::uint64_t height, std::uint32_t row, std::uint32_t column) {
  const std::string path =
      "/v1/pulses/" + std::to_string(height) + "/shares/" + std::to_string(row) + "/" + std::to_string(column);
  return get_route<da::ShareProof>(call_, path,
                                   [&](JsonObject& top, const JsonView& doc) -> base::Result<da::ShareProof> {
                                     SION_TRY(const auto got_row, top.u64("row", kMaxU32));
                                     SION_TRY(const auto got_column, top.u64("column", kMaxU32));
                                     if (got_row != row || got_column != column) {
                                       return doc.invalid("the reply is for share (" + std::to_string(got_row) + ", " +
                                                          std::to_string(got_column) + ")");
                                     }
                                     SION_TRY(auto proof, codec_field<da::ShareProof>(top, "proof_hex"));
                                     SION_TRY_STATUS(top.finish());
                                     return proof;
                                   });
}

base::Result<LogHeadReply> NodeApi::log_head() {
  const std::string path = "/v1/log/head";
  return get_route<LogHeadReply>(call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<LogHeadReply> {
    LogHeadReply out;
    SION_TRY(const auto size, top.u64("size"));
    SION_TRY(const auto root, hash_field(top, "root"));
    SION_TRY(out.head, codec_field<commit::TreeHead>(top, "head_hex"));
    if (out.head.size != size || out.head.root != root) {
      return doc.invalid("head_hex is not the head of size and root");
    }
    SION_TRY(out.signature, codec_field<crypto::SignatureBundle>(top, "signature_hex"));
    SION_TRY(out.signer, hash_field(top, "signer"));
    SION_TRY_STATUS(top.finish());
    return out;
  });
}

base::Result<InclusionReply> NodeApi::inclusion(std::uint64_t height, std::optional<std::uint64_t> size) {
  std::string path = "/v1/log/inclusion/" + std::to_string(height);
  if (size) path += "?size=" + std::to_string(*size);
  return get_route<InclusionReply>(
      call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<InclusionReply> {
        InclusionReply out;
        SION_TRY(out.height, top.u64("height"));
        if (out.height != height) return doc.invalid("the reply is of height " + std::to_string(out.height));
        SION_TRY(out.size, top.u64("size"));
        SION_TRY(out.pulse_hash, hash_field(top, "pulse_hash"));
        SION_TRY(out.proof, codec_field<commit::InclusionProof>(top, "proof_hex"));
        if (out.proof.leaf_index != height) {
          return doc.invalid("the proof is of entry " + std::to_string(out.proof.leaf_index) + ", not entry " +
                             std::to_string(height));
        }
        if (out.proof.tree_size != out.size) {
          return doc.invalid("the proof is in the tree of size " + std::to_string(out.proof.tree_size) +
                             ", not the reply's size " + std::to_string(out.size));
        }
        if (size && out.size != *size) {
          return doc.invalid("the proof is in the tree of size " + std::to_string(out.size));
        }
        SION_TRY_STATUS(top.finish());
        return out;
      });
}

base::Result<commit::ConsistencyProof> NodeApi::consistency(std::uint64_t from, std::uint64_t to) {
  const std::string path = "/v1/log/consistency?from=" + std::to_string(from) + "&to=" + std::to_string(to);
  return get_route<commit::ConsistencyProof>(
      call_, path, [&](JsonObject& top, const JsonView& doc) -> base::Result<commit::ConsistencyProof> {
        SION_TRY(const auto got_from, top.u64("from"));
        SION_TRY(const auto got_to, top.u64("to"));
        if (got_from != from || got_to != to) return doc.invalid("the reply is for other sizes");
        SION_TRY(auto proof, codec_field<commit::ConsistencyProof>(top, "proof_hex"));
        if (proof.first_size != from || proof.second_size != to) {
          return doc.invalid("the proof is between sizes " + std::to_string(proof.first_size) + " and " +
                             std::to_string(proof.second_size));
        }
        SION_TRY_STATUS(top.finish());
        return proof;
      });
}

}  // namespace sion::wallet
