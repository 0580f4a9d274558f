#include "sion/exec/apply.hpp"

#include <type_traits>
#include <utility>
#include <variant>

#include "sion/agents/authorize.hpp"
#include "sion/exec/precheck_batch.hpp"

namespace sion::exec {

TxPrecheck precheck_ids(const Transaction& tx) { return std::move(precheck_ids_batch({&tx, 1}).front()); }

base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, std::optional<bool> signature_ok,
                                        const ChainParams& params, std::uint64_t height, PulseUsage& usage) {
  TxPrecheck precheck = precheck_ids(tx);
  precheck.signature_ok = signature_ok;
  return apply_transaction(state, tx, precheck, params, height, usage);
}

namespace {

// Steps 1 to 7 for an account's transaction (ledger::authorize) or an
// agent's (agents::authorize_agent: signed by its keys, or a batch member).
// A body that pays its own fee does so at step 7 (sion/ledger/kind.hpp).
template <class Kind>
base::Result<ledger::Authorization> authorize(Overlay& state, const Transaction& tx, const Kind& body,
                                              const TxPrecheck& precheck, const ChainParams& params,
                                              std::uint64_t height, PulseUsage& usage, bool by_agent) {
  const TxPayload& payload = tx.payload;
  // The id is hashed again from the keys: verification never trusts an id
  // it is handed (crypto::KeyBundleRef).
  const auto verify = [&tx] {
    return crypto::verify_bundle(crypto::KeyBundleRef(tx.keys), codec::encode(tx.payload),
                                 base::as_bytes(kTxSignatureContext), tx.auth);
  };
  ledger::AuthRequest request{
      .tx_id = precheck.tx_id,
      .chain_id = payload.chain_id,
      .sender = payload.sender,
      .nonce = payload.nonce,
      .fee = payload.fee,
      .keys_id = precheck.keys_id,
      .usage = precheck.usage,
      .fee_coin_id = fee_coin(body),
      .signature_ok = precheck.signature_ok,
      .height = height,
      .verify_signature = [&verify](const crypto::Hash256&) { return verify(); },
      .pay_fee_from_body = {},
  };
  if (by_agent) {
    const bool member = ledger::is_batch_member(tx.keys);
    const agents::AgentAuthRequest agent_request{request, member ? &tx.auth : nullptr,
                                                 [&payload] { return codec::encode(payload); }};
    return agents::authorize_agent(state, agent_request, params, usage);
  }
  if constexpr (requires { pay_fee_from_body(state, body, ledger::BodyFeeRequest{}); }) {
    request.pay_fee_from_body = [&](Overlay& written) {
      const ledger::BodyFeeRequest fee_request{precheck.tx_id, payload.sender,    payload.fee,
                                               height,         precheck.coin_ids, precheck.body_digest};
      return pay_fee_from_body(written, body, fee_request);
    };
  }
  return ledger::authorize(state, request, params, usage);
}

}  // namespace

base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, const TxPrecheck& precheck,
                                        const ChainParams& params, std::uint64_t height, PulseUsage& usage) {
  SION_TRY(const bool by_agent, agents::sent_by_agent(state, tx.payload.sender, ledger::is_batch_member(tx.keys)));
  // The one dispatch: each kind's fee_coin, max_created_objects and
  // apply_body, found by argument-dependent lookup (sion/ledger/kind.hpp).
  return std::visit(
      [&](const auto& body) -> base::Result<Receipt> {
        using Kind = std::decay_t<decltype(body)>;
        if (precheck.coin_ids.size() != max_created_objects(body)) {
          return base::fail(base::Errc::internal, "apply_transaction: the pre-check is not this transaction's");
        }
        SION_TRY(const auto authorization, authorize(state, tx, body, precheck, params, height, usage, by_agent));
        if (authorization.status != TxStatus::success) return Receipt{precheck.tx_id, authorization.status, 0, 0};
        const ledger::Authorized& authorized = authorization.authorized;
        // An agent spends only through the kinds agents may send: any other
        // kind it sends fails, its fee paid.
        if (!kSentByAgents<Kind> && by_agent) {
          return ledger::fail_transaction(state, authorized, TxStatus::action_not_allowed, precheck.coin_ids[0]);
        }
        return apply_body(state, body, authorized, precheck.coin_ids);
      },
      tx.payload.body);
}

}  // namespace sion::exec
