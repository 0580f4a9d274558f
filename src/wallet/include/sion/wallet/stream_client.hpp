#pragma once
// The client side of payment streams (docs/streams.md, docs/wallet.md
// "Streams"): what a wallet reads of a stream, how it builds and signs
// OpenStream, SettleStream and CloseStream, and the check it makes before
// submitting a settlement or a close. The rules stay in the streams layer:
// the check runs them (streams::pay_fee_from_body) on the stream as the node
// holds it, because a settlement or close the ledger rejects is left out of
// every Pulse and so would never get a receipt.

#include <cstdint>
#include <optional>
#include <vector>

#include "sion/base/json.hpp"
#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/streams/objects.hpp"
#include "sion/streams/payer.hpp"
#include "sion/wallet/agent_client.hpp"
#include "sion/wallet/http_call.hpp"
#include "sion/wallet/node_api.hpp"

namespace sion::wallet {

// A stream as the node's latest state holds it (GET /v1/objects, decoded
// here: the wallet reads the stored bytes, not a view of them).
struct StreamState {
  streams::Stream stream;
  std::uint64_t height = 0;  // the node's height when read
};
// nullopt when nothing (or another kind of object) is stored under `id`;
// invalid_value when the stored stream does not decode.
base::Result<std::optional<StreamState>> fetch_stream(NodeApi& api, const exec::Id& id);

// GET /v1/streams/{id} (docs/api.md): the node's view, shown, not verified;
// the reply must name `id`. not_found when no stream is stored there.
base::Result<base::JsonValue> fetch_stream_view(const HttpCall& call, const exec::Id& id);

// What `sion stream open` asks for.
struct StreamTerms {
  exec::Id payee{};
  exec::Amount price = 0;
  exec::Amount deposit = 0;
  std::uint64_t expiry_height = 0;
};
// The OpenStream of `payer`'s chain on `terms`, signed by `sender` with
// coins chosen as `sion transfer` chooses them (sign_from: they hold the
// deposit and the fee).
base::Result<exec::Transaction> sign_open_stream(NodeApi& api, const Sender& sender, const exec::ChainParams& params,
                                                 const StreamTerms& terms, const streams::StreamPayer& payer);

// A SettleStream or CloseStream signed by `signer`'s account at its next
// nonce (0 for an account that does not exist yet: a payee's first
// settlement makes it), paying exactly exec::required_fee: the fee comes out
// of the stream, so no coin is named.
base::Result<exec::Transaction> sign_paid_by_stream(NodeApi& api, const crypto::SigningBundle& signer,
                                                    const exec::ChainParams& params, exec::TxBody body);

// What the ledger would do with a signed SettleStream or CloseStream in the
// Pulse after the node's latest: the status (success, or the rejection)
// and, on success, the amounts of the coins it would create in order (a
// settlement: the payee's coin, then the payer's refund if it finishes the
// stream; a close: the refund).
struct StreamPreview {
  exec::TxStatus status = exec::TxStatus::success;
  std::uint64_t height = 0;  // the height it was checked at
  std::vector<exec::Amount> coins;
};
// invalid_argument for a transaction of another kind.
base::Result<StreamPreview> preview_stream_tx(NodeApi& api, const exec::Transaction& tx);

}  // namespace sion::wallet
