#include "sion/wallet/node_api.hpp"

#include <string>
#include <string_view>
#include <utility>

#include "sion/base/json.hpp"
#include "sion/codec/codec.hpp"
#include "sion/wallet/tx_batch.hpp"

namespace sion::wallet {
namespace {

using base::Errc;

template <class T>
base::Result<T> in_route(const std::string& route, base::Result<T> result) {
  if (!result) return base::fail(std::move(result).error().with_context(route));
  return result;
}

ApiError parse_error(const HttpReply& reply) { return parse_api_error(reply.status, reply.content_type, reply.body); }

base::Failure status_failure(const std::string& route, const ApiError& error) {
  Errc code = Errc::invalid_argument;
  if (error.status == 404) code = Errc::not_found;
  if (error.status == 429 || error.status >= 500) code = Errc::io_error;
  return base::fail(code, route + ": " + error.to_string());
}

base::Failure mismatch(const std::string& route, const std::string& what) {
  return base::fail(Errc::invalid_value, route + ": " + what);
}

// One request whose success is `ok_status` and whose body is JSON; the
// body, or the error this route's reply amounts to.
base::Result<std::string> fetch_json(const HttpCall& call, const std::string& route, std::string_view method,
                                     std::string_view path, unsigned ok_status) {
  if (!call) return base::fail(Errc::internal, route + ": no transport");
  SION_TRY_CONTEXT(HttpReply reply, route, call(method, path, {}, {}));
  if (reply.status != ok_status) {
    if (reply.status >= 400) return status_failure(route, parse_error(reply));
    return mismatch(route, "unexpected status " + std::to_string(reply.status));
  }
  if (!is_json_content_type(reply.content_type)) {
    return mismatch(route, "expected application/json, got content type " + base::json_quoted(reply.content_type));
  }
  return std::move(reply.body);
}

std::string route_of(std::string_view method, const std::string& path) { return std::string(method) + " " + path; }

// GET `path`: its body read by `parse(body)`; errors name the route.
template <class T, class Parse>
base::Result<T> get_route(const HttpCall& call, const std::string& path, const Parse& parse) {
  const std::string route = route_of("GET", path);
  SION_TRY(const std::string body, fetch_json(call, route, "GET", path, 200));
  return in_route(route, parse(body));
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
  if (reply.status >= 400) {
    Submission out;
    out.refusal = parse_error(reply);
    return out;
  }
  if (reply.status != 202 && reply.status != 200) {
    return mismatch(route, "unexpected status " + std::to_string(reply.status));
  }
  if (!is_json_content_type(reply.content_type)) return mismatch(route, "expected application/json");
  SION_TRY(Submission out, in_route(route, parse_submission_reply(reply.body)));
  if (expected_id && out.tx_id != *expected_id) {
    return mismatch(route, "the node admitted tx id " + base::to_hex(out.tx_id) + ", but the transaction's is " +
                               base::to_hex(*expected_id));
  }
  return out;
}

base::Result<std::vector<Submission>> NodeApi::submit_batch(std::span<const base::ByteView> encodings,
                                                            std::span<const exec::Id> expected_ids) {
  const std::string path = "/v1/transactions/batch";
  const std::string route = route_of("POST", path);
  if (!call_) return base::fail(Errc::internal, route + ": no transport");
  if (encodings.empty() || encodings.size() > kMaxBatchTransactions ||
      (!expected_ids.empty() && expected_ids.size() != encodings.size())) {
    return base::fail(Errc::invalid_argument, route + ": " + std::to_string(encodings.size()) + " transactions (1 to " +
                                                  std::to_string(kMaxBatchTransactions) + ") with " +
                                                  std::to_string(expected_ids.size()) + " expected ids");
  }
  const base::Bytes encoded = encode_tx_batch(encodings);
  const std::string_view body(reinterpret_cast<const char*>(encoded.data()), encoded.size());
  SION_TRY_CONTEXT(const HttpReply reply, route, call_("POST", path, body, "application/octet-stream"));
  if (reply.status >= 400) {
    Submission refused;
    refused.refusal = parse_error(reply);
    return std::vector<Submission>(encodings.size(), refused);
  }
  if (reply.status != 200) return mismatch(route, "unexpected status " + std::to_string(reply.status));
  if (!is_json_content_type(reply.content_type)) return mismatch(route, "expected application/json");
  SION_TRY(std::vector<Submission> out, in_route(route, parse_batch_submission_reply(reply.body, encodings.size())));
  for (std::size_t i = 0; i < expected_ids.size(); ++i) {
    // A refused item may name no id (it did not decode).
    if (out[i].refusal && out[i].tx_id == exec::Id{}) continue;
    if (out[i].tx_id != expected_ids[i]) {
      return mismatch(route, "result " + std::to_string(i) + " names tx id " + base::to_hex(out[i].tx_id) +
                                 ", but the transaction's is " + base::to_hex(expected_ids[i]));
    }
  }
  return out;
}

base::Result<TxState> NodeApi::tx_status(const exec::Id& id) {
  return get_route<TxState>(call_, "/v1/transactions/" + base::to_hex(id),
                            [&](std::string_view body) { return parse_tx_state_reply(body, id); });
}

base::Result<NodeStatus> NodeApi::status() {
  return get_route<NodeStatus>(call_, "/v1/status", [](std::string_view body) { return parse_status_reply(body); });
}

base::Result<AccountInfo> NodeApi::account(const exec::Id& id) {
  return get_route<AccountInfo>(call_, "/v1/accounts/" + base::to_hex(id),
                                [&](std::string_view body) { return parse_account_reply(body, id); });
}

base::Result<base::JsonValue> NodeApi::agent_view(const exec::Id& id) {
  return get_route<base::JsonValue>(call_, "/v1/agents/" + base::to_hex(id),
                                    [&](std::string_view body) -> base::Result<base::JsonValue> {
                                      SION_TRY(base::JsonValue view, base::parse_json(body));
                                      const std::string expected = base::to_hex(id);
                                      if (!view.is_object() || !view.contains("id") || view["id"] != expected) {
                                        return base::fail(Errc::invalid_value, "$.id: expected " + expected);
                                      }
                                      return view;
                                    });
}

base::Result<ObjectReply> NodeApi::object(const exec::Id& id, bool with_proof, std::optional<std::uint64_t> height) {
  std::string path = "/v1/objects/" + base::to_hex(id);
  if (with_proof) path += "?proof=true";
  if (height) path += std::string(with_proof ? "&" : "?") + "height=" + std::to_string(*height);
  return get_route<ObjectReply>(
      call_, path, [&](std::string_view body) { return parse_object_reply(body, id, with_proof, height); });
}

base::Result<PulseReply> NodeApi::pulse(std::optional<std::uint64_t> height) {
  const std::string path = "/v1/pulses/" + (height ? std::to_string(*height) : std::string("latest"));
  return get_route<PulseReply>(call_, path, [&](std::string_view body) { return parse_pulse_reply(body, height); });
}

base::Result<AvailabilityReply> NodeApi::availability(std::uint64_t height) {
  const std::string path = "/v1/pulses/" + std::to_string(height) + "/availability";
  return get_route<AvailabilityReply>(call_, path,
                                      [&](std::string_view body) { return parse_availability_reply(body, height); });
}

base::Result<da::ShareProof> NodeApi::share(std::uint64_t height, std::uint32_t row, std::uint32_t column) {
  const std::string path =
      "/v1/pulses/" + std::to_string(height) + "/shares/" + std::to_string(row) + "/" + std::to_string(column);
  return get_route<da::ShareProof>(call_, path,
                                   [&](std::string_view body) { return parse_share_reply(body, row, column); });
}

base::Result<LogHeadReply> NodeApi::log_head() {
  return get_route<LogHeadReply>(call_, "/v1/log/head",
                                 [](std::string_view body) { return parse_log_head_reply(body); });
}

base::Result<InclusionReply> NodeApi::inclusion(std::uint64_t height, std::optional<std::uint64_t> size) {
  std::string path = "/v1/log/inclusion/" + std::to_string(height);
  if (size) path += "?size=" + std::to_string(*size);
  return get_route<InclusionReply>(call_, path,
                                   [&](std::string_view body) { return parse_inclusion_reply(body, height, size); });
}

base::Result<commit::ConsistencyProof> NodeApi::consistency(std::uint64_t from, std::uint64_t to) {
  const std::string path = "/v1/log/consistency?from=" + std::to_string(from) + "&to=" + std::to_string(to);
  return get_route<commit::ConsistencyProof>(
      call_, path, [&](std::string_view body) { return parse_consistency_reply(body, from, to); });
}

}  // namespace sion::wallet
