#include "sion/wallet/stream_client.hpp"

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "sion/base/bytes.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/streams/kinds.hpp"
#include "sion/wallet/api_replies.hpp"

namespace sion::wallet {

using base::Errc;

base::Result<std::optional<StreamState>> fetch_stream(NodeApi& api, const exec::Id& id) {
  SION_TRY(const ObjectReply reply, api.object(id, /*with_proof=*/false));
  if (!reply.object || reply.object->type != static_cast<std::uint32_t>(ledger::ObjectType::stream)) {
    return std::optional<StreamState>{};
  }
  auto stream = streams::stream_from(*reply.object);
  if (!stream) {
    return base::fail(Errc::invalid_value, "stream " + base::to_hex(id) + ": " + stream.error().reason);
  }
  return std::optional<StreamState>{StreamState{*stream, reply.height}};
}

base::Result<base::JsonValue> fetch_stream_view(const HttpCall& call, const exec::Id& id) {
  const std::string path = "/v1/streams/" + base::to_hex(id);
  const std::string route = "GET " + path;
  if (!call) return base::fail(Errc::internal, route + ": no transport");
  SION_TRY_CONTEXT(const HttpReply reply, route, call("GET", path, {}, {}));
  if (reply.status != 200) {
    if (reply.status < 400) {
      return base::fail(Errc::invalid_value, route + ": unexpected status " + std::to_string(reply.status));
    }
    const ApiError error = parse_api_error(reply.status, reply.content_type, reply.body);
    Errc code = Errc::invalid_argument;
    if (error.status == 404) code = Errc::not_found;
    if (error.status == 429 || error.status >= 500) code = Errc::io_error;
    return base::fail(code, route + ": " + error.to_string());
  }
  if (!is_json_content_type(reply.content_type)) {
    return base::fail(Errc::invalid_value,
                      route + ": expected application/json, got content type " + base::json_quoted(reply.content_type));
  }
  auto view = base::parse_json(reply.body);
  if (!view) return base::fail(std::move(view).error().with_context(route));
  const std::string expected = base::to_hex(id);
  if (!view->is_object() || !view->contains("id") || (*view)["id"] != expected) {
    return base::fail(Errc::invalid_value, route + ": $.id: expected " + expected);
  }
  return std::move(*view);
}

base::Result<exec::Transaction> sign_open_stream(NodeApi& api, const Sender& sender, const exec::ChainParams& params,
                                                 const StreamTerms& terms, const streams::StreamPayer& payer) {
  const streams::Hash anchor = payer.anchor();
  const streams::Hash root = payer.checkpoint_root();
  return sign_from(api, sender, params, terms.deposit, [&](std::span<const exec::Id> coins) -> exec::TxBody {
    return exec::OpenStream{terms.payee, terms.price,   payer.length(),      anchor,
                            root,        terms.deposit, terms.expiry_height, {coins.begin(), coins.end()}};
  });
}

base::Result<exec::Transaction> sign_paid_by_stream(NodeApi& api, const crypto::SigningBundle& signer,
                                                    const exec::ChainParams& params, exec::TxBody body) {
  const exec::Id id = exec::account_id(signer.public_bundle());
  SION_TRY(const AccountInfo account, api.account(id));
  // A new account's nonce is 0: the ledger makes the account from the keys.
  const std::uint64_t nonce = account.exists ? account.nonce : 0;
  // Without a fee make_signed pays exactly required_fee(), work units
  // included (a settlement's hashing, docs/streams.md "Fees").
  return exec::make_signed(signer, params, id, nonce, std::move(body), std::nullopt);
}

namespace {

// The stream a SettleStream or CloseStream names.
std::optional<exec::Id> named_stream(const exec::TxBody& body) {
  if (const auto* settle = std::get_if<exec::SettleStream>(&body)) return settle->stream;
  if (const auto* close = std::get_if<exec::CloseStream>(&body)) return close->stream;
  return std::nullopt;
}

}  // namespace

base::Result<StreamPreview> preview_stream_tx(NodeApi& api, const exec::Transaction& tx) {
  const std::optional<exec::Id> id = named_stream(tx.payload.body);
  if (!id) return base::fail(Errc::invalid_argument, "not a settlement or close of a stream");
  SION_TRY(const ObjectReply reply, api.object(*id, /*with_proof=*/false));
  // The stream alone is what the rules read (they never touch the
  // sender's account, which step 2 reads).
  ledger::MemoryState pre;
  if (reply.object) {
    const std::vector<state::ObjectWrite> writes{state::ObjectWrite{*id, *reply.object}};
    SION_TRY_STATUS(pre.apply(writes));
  }
  ledger::Overlay overlay(pre);
  const exec::Id tx_id = exec::tx_id(tx.payload);
  const std::uint32_t created = std::visit([](const auto& body) { return max_created_objects(body); }, tx.payload.body);
  const std::vector<exec::Id> new_ids = exec::coin_ids(tx_id, created);
  const ledger::BodyFeeRequest request{tx_id,   tx.payload.sender, tx.payload.fee, reply.height + 1,
                                       new_ids, std::nullopt};
  SION_TRY(const ledger::BodyFee paid,
           std::visit(
               [&](const auto& body) -> base::Result<ledger::BodyFee> {
                 using Kind = std::decay_t<decltype(body)>;
                 if constexpr (std::is_same_v<Kind, exec::SettleStream> || std::is_same_v<Kind, exec::CloseStream>) {
                   return streams::pay_fee_from_body(overlay, body, request);
                 } else {
                   return base::fail(Errc::invalid_argument, "not a stream kind");
                 }
               },
               tx.payload.body));
  StreamPreview preview{paid.status, reply.height + 1, {}};
  for (std::uint32_t i = 0; i < paid.coins_created && i < new_ids.size(); ++i) {
    SION_TRY(const auto coin, ledger::read_coin(overlay, new_ids[i]));
    if (!coin) return base::fail(Errc::internal, "the rules reported a coin they did not write");
    preview.coins.push_back(coin->amount);
  }
  return preview;
}

}  // namespace sion::wallet
