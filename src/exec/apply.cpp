#include "sion/exec/apply.hpp"

#include <utility>
#include <variant>

#include "sion/exec/precheck_batch.hpp"

namespace sion::exec {

TxPrecheck precheck_ids(const Transaction& tx) { return std::move(precheck_ids_batch({&tx, 1}).front()); }

base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, std::optional<bool> signature_ok,
                                        const ChainParams& params, PulseUsage& usage) {
  TxPrecheck precheck = precheck_ids(tx);
  precheck.signature_ok = signature_ok;
  return apply_transaction(state, tx, precheck, params, usage);
}

base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, const TxPrecheck& precheck,
                                        const ChainParams& params, PulseUsage& usage) {
  const TxPayload& payload = tx.payload;
  // The one dispatch: each kind's fee_coin, max_created_objects and
  // apply_body, found by argument-dependent lookup (sion/ledger/kind.hpp).
  return std::visit(
      [&](const auto& body) -> base::Result<Receipt> {
        if (precheck.coin_ids.size() != max_created_objects(body)) {
          return base::fail(base::Errc::internal, "apply_transaction: the pre-check is not this transaction's");
        }
        const ledger::AuthRequest request{
            .tx_id = precheck.tx_id,
            .chain_id = payload.chain_id,
            .sender = payload.sender,
            .nonce = payload.nonce,
            .fee = payload.fee,
            .keys_id = precheck.keys_id,
            .usage = precheck.usage,
            .fee_coin_id = fee_coin(body),
            .signature_ok = precheck.signature_ok,
            .verify_signature =
                // The id is hashed again from the keys: verification never
            // trusts an id it is handed (crypto::KeyBundleRef).
            [&tx](const crypto::Hash256&) {
              return crypto::verify_bundle(crypto::KeyBundleRef(tx.keys), codec::encode(tx.payload),
                                           base::as_bytes(kTxSignatureContext), tx.auth);
            },
        };
        SION_TRY(const auto authorization, ledger::authorize(state, request, params, usage));
        if (authorization.status != TxStatus::success) return Receipt{precheck.tx_id, authorization.status, 0, 0};
        return apply_body(state, body, authorization.authorized, precheck.coin_ids);
      },
      payload.body);
}

}  // namespace sion::exec
