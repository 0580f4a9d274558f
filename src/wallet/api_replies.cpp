#include "sion/wallet/api_replies.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>
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

std::string excerpt(std::string_view text) {
  constexpr std::size_t kMax = 200;
  return text.size() <= kMax ? std::string(text) : std::string(text.substr(0, kMax)) + "...";
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

// The body's JSON object read by `read(top, document)`.
template <class T, class Read>
base::Result<T> read_object(std::string_view body, const Read& read) {
  SION_TRY(const base::JsonValue doc, base::parse_json(body));
  const JsonView view(doc);
  SION_TRY(auto top, view.as_object());
  return read(top, view);
}

// What a transaction's status and its events share: the status, where it
// executed and its receipt (which must name `id`), or why it left the
// mempool.
base::Result<TxState> read_tx_state(JsonObject& top, const exec::Id& id) {
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
  return out;
}

// An admitted submission: {"tx_id", "status": "pending" | "held"} (the
// caller finishes the object).
base::Result<Submission> read_admission(JsonObject& top) {
  Submission out;
  SION_TRY(out.tx_id, hash_field(top, "tx_id"));
  SION_TRY(auto status_view, top.field("status"));
  SION_TRY(const auto status, status_view.as_string());
  if (status != "pending" && status != "held") {
    return status_view.invalid("expected \"pending\" or \"held\", got " + status_view.describe());
  }
  out.held = status == "held";
  return out;
}

}  // namespace

std::string ApiError::to_string() const {
  std::string out = std::to_string(status);
  if (!code.empty()) out += " " + code;
  return out + ": " + message;
}

bool is_json_content_type(std::string_view content_type) noexcept {
  constexpr std::string_view kJson = "application/json";
  if (content_type.size() < kJson.size()) return false;
  for (std::size_t i = 0; i < kJson.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(content_type[i])) != kJson[i]) return false;
  }
  const std::string_view rest = content_type.substr(kJson.size());
  return rest.empty() || rest.front() == ';' || rest.front() == ' ';
}

ApiError parse_api_error(unsigned status, std::string_view content_type, std::string_view body) {
  ApiError error{status, {}, {}};
  const auto read = [&]() -> base::Status {
    if (!is_json_content_type(content_type)) return base::fail(Errc::invalid_value, "not JSON");
    SION_TRY(const base::JsonValue doc, base::parse_json(body));
    SION_TRY(auto top, JsonView(doc).as_object());
    SION_TRY(auto inner, top.object("error"));
    SION_TRY(error.code, inner.string("code"));
    SION_TRY(error.message, inner.string("message"));
    SION_TRY_STATUS(inner.finish());
    return top.finish();
  };
  if (!read()) {
    error.code.clear();
    error.message = excerpt(body);
  }
  return error;
}

base::Result<Submission> parse_submission_reply(std::string_view body) {
  return read_object<Submission>(body, [](JsonObject& top, const JsonView&) -> base::Result<Submission> {
    SION_TRY(Submission out, read_admission(top));
    SION_TRY_STATUS(top.finish());
    return out;
  });
}

base::Result<std::vector<Submission>> parse_batch_submission_reply(std::string_view body, std::size_t count) {
  return read_object<std::vector<Submission>>(
      body, [count](JsonObject& top, const JsonView&) -> base::Result<std::vector<Submission>> {
        SION_TRY(auto results, top.array("results"));
        SION_TRY_STATUS(top.finish());
        if (results.size() != count) {
          return base::fail(Errc::invalid_value, results.path() + ": " + std::to_string(results.size()) +
                                                     " results for " + std::to_string(count) + " transactions");
        }
        std::vector<Submission> out(count);
        for (std::size_t i = 0; i < count; ++i) {
          SION_TRY(auto item, results[i].as_object());
          Submission& submission = out[i];
          if (item.has("error")) {
            SION_TRY(const auto id, nullable_hash(item, "tx_id"));
            submission.tx_id = id.value_or(exec::Id{});
            SION_TRY(auto error, item.object("error"));
            ApiError refusal{200, {}, {}};
            SION_TRY(refusal.code, error.string("code"));
            SION_TRY(refusal.message, error.string("message"));
            SION_TRY_STATUS(error.finish());
            if (refusal.code.empty()) return base::fail(Errc::invalid_value, error.path() + ".code: empty");
            submission.refusal = std::move(refusal);
          } else {
            SION_TRY(submission, read_admission(item));
          }
          SION_TRY_STATUS(item.finish());
        }
        return out;
      });
}

base::Result<TxState> parse_tx_state_reply(std::string_view body, const exec::Id& id) {
  return read_object<TxState>(body, [&](JsonObject& top, const JsonView& doc) -> base::Result<TxState> {
    SION_TRY(TxState out, read_tx_state(top, id));
    if (out.executed() && (!out.height || !out.index || !out.pulse_hash || !out.receipt)) {
      return doc.invalid("an executed transaction needs height, index, pulse_hash and receipt");
    }
    return out;
  });
}

base::Result<TxEvent> parse_tx_event_reply(std::string_view data) {
  return read_object<TxEvent>(data, [&](JsonObject& top, const JsonView& doc) -> base::Result<TxEvent> {
    TxEvent out;
    SION_TRY(out.tx_id, hash_field(top, "tx_id"));
    SION_TRY(out.state, read_tx_state(top, out.tx_id));
    if (out.state.executed() && (!out.state.height || !out.state.index || !out.state.receipt)) {
      return doc.invalid("an executed transaction needs height, index and receipt");
    }
    return out;
  });
}

base::Result<std::uint64_t> parse_certificate_event(std::string_view data) {
  return read_object<std::uint64_t>(
      data, [](JsonObject& top, const JsonView&) -> base::Result<std::uint64_t> { return top.u64("height"); });
}

base::Result<NodeStatus> parse_status_reply(std::string_view body) {
  return read_object<NodeStatus>(body, [](JsonObject& top, const JsonView& doc) -> base::Result<NodeStatus> {
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

base::Result<AccountInfo> parse_account_reply(std::string_view body, const exec::Id& id) {
  return read_object<AccountInfo>(body, [&](JsonObject& top, const JsonView& doc) -> base::Result<AccountInfo> {
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

base::Result<ObjectReply> parse_object_reply(std::string_view body, const exec::Id& id, bool with_proof,
                                             std::optional<std::uint64_t> height) {
  return read_object<ObjectReply>(body, [&](JsonObject& top, const JsonView& doc) -> base::Result<ObjectReply> {
    ObjectReply out;
    SION_TRY(out.id, hash_field(top, "id"));
    if (out.id != id) return doc.invalid("the reply names object " + base::to_hex(out.id));
    SION_TRY(out.height, top.u64("height"));
    if (height && out.height != *height) {
      return doc.invalid("asked for height " + std::to_string(*height) + ", got " + std::to_string(out.height));
    }
    SION_TRY(out.state_root, hash_field(top, "state_root"));
    const auto object_view = top.optional_field("object");
    out.object_served = object_view.has_value();
    if (object_view && !object_view->is_null()) {
      SION_TRY(auto object, object_view->as_object());
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
    } else if (!out.object_served) {
      return doc.invalid("missing fields \"object\" and \"proof_hex\": neither says what the object is");
    }
    SION_TRY_STATUS(top.finish());
    return out;
  });
}

base::Result<PulseReply> parse_pulse_reply(std::string_view body, std::optional<std::uint64_t> height) {
  return read_object<PulseReply>(body, [&](JsonObject& top, const JsonView& doc) -> base::Result<PulseReply> {
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

base::Result<AvailabilityReply> parse_availability_reply(std::string_view body, std::uint64_t height) {
  return read_object<AvailabilityReply>(
      body, [&](JsonObject& top, const JsonView& doc) -> base::Result<AvailabilityReply> {
        AvailabilityReply out;
        SION_TRY(out.height, top.u64("height"));
        if (out.height != height) return doc.invalid("the reply is of height " + std::to_string(out.height));
        SION_TRY(out.data, data_commitment(top, "data"));
        SION_TRY(out.availability, codec_field<da::AvailabilityHeader>(top, "availability_hex"));
        SION_TRY_STATUS(top.finish());
        return out;
      });
}

base::Result<da::ShareProof> parse_share_reply(std::string_view body, std::uint32_t row, std::uint32_t column) {
  return read_object<da::ShareProof>(body, [&](JsonObject& top, const JsonView& doc) -> base::Result<da::ShareProof> {
    SION_TRY(const auto got_row, top.u64("row", kMaxU32));
    SION_TRY(const auto got_column, top.u64("column", kMaxU32));
    if (got_row != row || got_column != column) {
      return doc.invalid("the reply is for share (" + std::to_string(got_row) + ", " + std::to_string(got_column) +
                         ")");
    }
    SION_TRY(auto proof, codec_field<da::ShareProof>(top, "proof_hex"));
    SION_TRY_STATUS(top.finish());
    return proof;
  });
}

base::Result<LogHeadReply> parse_log_head_reply(std::string_view body) {
  return read_object<LogHeadReply>(body, [](JsonObject& top, const JsonView& doc) -> base::Result<LogHeadReply> {
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

base::Result<InclusionReply> parse_inclusion_reply(std::string_view body, std::uint64_t height,
                                                   std::optional<std::uint64_t> size) {
  return read_object<InclusionReply>(body, [&](JsonObject& top, const JsonView& doc) -> base::Result<InclusionReply> {
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

base::Result<commit::ConsistencyProof> parse_consistency_reply(std::string_view body, std::uint64_t from,
                                                               std::uint64_t to) {
  return read_object<commit::ConsistencyProof>(
      body, [&](JsonObject& top, const JsonView& doc) -> base::Result<commit::ConsistencyProof> {
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
