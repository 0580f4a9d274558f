#include "sion/ledger/authorize.hpp"

#include <utility>

namespace sion::ledger {

base::Result<Authorization> authorize(Overlay& state, const AuthRequest& request, const ChainParams& params,
                                      PulseUsage& usage) {
  const auto reject = [](TxStatus status) { return Authorization{status, {}}; };

  // 1. Chain.
  if (request.chain_id != params.chain_id) return reject(TxStatus::wrong_chain);

  // 2. Keys: well formed, and the account's (keys_id), or for a new account
  // hashing to its id. Checked before any read, so a malformed bundle costs
  // no state access.
  if (!request.keys_id) return reject(TxStatus::wrong_keys);
  const Id& keys_id = *request.keys_id;
  SION_TRY(const auto stored, state.find(request.sender));
  Account account;
  std::uint64_t version = 1;
  // Another kind of object at the sender's id: the sender's mistake, unless
  // these keys hash to that id (only a corrupt store puts a non-account
  // there; account_from says so).
  if (stored != nullptr && stored->type != static_cast<std::uint32_t>(ObjectType::account) &&
      account_id_from_keys_id(keys_id) != request.sender) {
    return reject(TxStatus::wrong_keys);
  }
  if (stored != nullptr) {
    SION_TRY(const auto existing, account_from(*stored));
    if (existing.keys_id != keys_id) return reject(TxStatus::wrong_keys);
    account = existing;
    version = stored->version + 1;
  } else {
    if (account_id_from_keys_id(keys_id) != request.sender) return reject(TxStatus::wrong_keys);
    account.keys_id = keys_id;
  }

  // 3. Budget. From here on the transaction counts: its signature is checked.
  const PulseUsage& need = request.usage;
  if (!usage.fits(need, params.limits)) return reject(TxStatus::budget_exceeded);
  usage.add(need);

  // 4. Signature, unless checked already.
  const bool verified =
      request.signature_ok ? *request.signature_ok : request.verify_signature && request.verify_signature(keys_id);
  if (!verified) return reject(TxStatus::bad_signature);

  // 5. Nonce. 6. Fee.
  if (request.nonce != account.nonce) return reject(TxStatus::wrong_nonce);
  const auto required = required_fee(need.bytes, need.verify_units, params.fees);
  if (!required || request.fee < *required) return reject(TxStatus::fee_too_low);

  // 7. The body pays its fee itself, or the fee coin does.
  if (request.pay_fee_from_body) {
    SION_TRY(const BodyFee paid, request.pay_fee_from_body(state));
    if (paid.status != TxStatus::success) return reject(paid.status);
    account.nonce += 1;
    state.put(request.sender, to_object(account, version));
    return Authorization{TxStatus::success, Authorized{request.tx_id, request.sender, request.fee, std::nullopt,
                                                       request.height, paid.coins_created}};
  }
  if (!request.fee_coin_id) return reject(TxStatus::fee_unpayable);
  SION_TRY(const auto fee_coin, read_coin(state, *request.fee_coin_id));
  if (!fee_coin || fee_coin->owner != request.sender || fee_coin->amount < request.fee) {
    return reject(TxStatus::fee_unpayable);
  }

  // Authorized: the transaction pays and the nonce advances, whatever the body does.
  account.nonce += 1;
  state.put(request.sender, to_object(account, version));
  return Authorization{TxStatus::success, Authorized{request.tx_id, request.sender, request.fee,
                                                     FeeCoin{*request.fee_coin_id, *fee_coin}, request.height, 0}};
}

Receipt fail_transaction(Overlay& state, const Authorized& tx, TxStatus status, const Id& rest_id) {
  if (!tx.fee_coin) return Receipt{tx.tx_id, status, tx.fee, 0};
  state.erase(tx.fee_coin->id);
  const Amount rest = tx.fee_coin->coin.amount - tx.fee;  // authorize() checked amount >= fee
  if (rest > 0) state.put(rest_id, to_object(Coin{tx.sender, rest}, 1));
  return Receipt{tx.tx_id, status, tx.fee, rest > 0 ? 1u : 0u};
}

}  // namespace sion::ledger
