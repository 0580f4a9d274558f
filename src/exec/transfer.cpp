#include "sion/exec/transfer.hpp"

#include <algorithm>
#include <utility>

namespace sion::exec {

base::Result<const state::Object*> Overlay::find(const Id& id) const {
  auto it = entries_.find(id);
  if (it == entries_.end()) {
    auto object = pre_.get(id);
    if (!object) return base::fail(std::move(object).error());
    const bool held = object->has_value();
    it = entries_.emplace(id, Entry{std::move(*object), held, false}).first;
  }
  return it->second.object ? &*it->second.object : nullptr;
}

base::Result<std::optional<state::Object>> Overlay::get(const Id& id) const {
  auto object = find(id);
  if (!object) return base::fail(std::move(object).error());
  return *object != nullptr ? std::optional<state::Object>{**object} : std::nullopt;
}

// Execution reads every id before it overwrites or deletes it, except the
// fresh coin ids it creates, so an id first met here held nothing in the
// pre-state wherever a deletion can follow.
void Overlay::put(const Id& id, state::Object object) {
  Entry& entry = entries_[id];
  entry.object = std::move(object);
  entry.written = true;
}

void Overlay::erase(const Id& id) {
  Entry& entry = entries_[id];
  entry.object.reset();
  entry.written = true;
}

std::vector<state::ObjectWrite> Overlay::write_set() const {
  std::vector<state::ObjectWrite> writes;
  writes.reserve(entries_.size());
  for (const auto& [id, entry] : entries_) {  // std::map: ascending ids
    if (entry.written && (entry.object || entry.in_pre)) writes.push_back({id, entry.object});
  }
  return writes;
}

namespace {

// The coin under `id`; nullopt if there is none or the object is no coin.
base::Result<std::optional<Coin>> read_coin(const Overlay& state, const Id& id) {
  auto object = state.find(id);
  if (!object) return base::fail(std::move(object).error());
  if (*object == nullptr || (*object)->type != static_cast<std::uint32_t>(ObjectType::coin)) {
    return std::optional<Coin>{};
  }
  auto coin = coin_from(**object);
  if (!coin) return base::fail(std::move(coin).error());
  return std::optional<Coin>{*coin};
}

struct BodyCheck {
  TxStatus status = TxStatus::success;
  Amount change = 0;  // on success
};

// Step 8 of docs/ledger.md, "Applying a transaction": each check runs over
// the whole list before the next, so the first failing kind decides.
base::Result<BodyCheck> check_transfer(const Overlay& state, const Transfer& transfer, const TxPayload& payload) {
  std::vector<Id> sorted(transfer.inputs.begin(), transfer.inputs.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return BodyCheck{TxStatus::duplicate_input};

  std::vector<Coin> coins;
  coins.reserve(transfer.inputs.size());
  for (const Id& input : transfer.inputs) {
    auto coin = read_coin(state, input);
    if (!coin) return base::fail(std::move(coin).error());
    if (!*coin) return BodyCheck{TxStatus::unknown_coin};
    coins.push_back(**coin);
  }
  for (const Coin& coin : coins) {
    if (coin.owner != payload.sender) return BodyCheck{TxStatus::not_owner};
  }
  for (const Output& output : transfer.outputs) {
    if (output.amount == 0) return BodyCheck{TxStatus::zero_amount};
  }
  std::optional<Amount> in = 0;
  for (const Coin& coin : coins) in = in ? checked_add(*in, coin.amount) : std::nullopt;
  std::optional<Amount> out = payload.fee;
  for (const Output& output : transfer.outputs) out = out ? checked_add(*out, output.amount) : std::nullopt;
  if (!in || !out) return BodyCheck{TxStatus::amount_overflow};
  if (*in < *out) return BodyCheck{TxStatus::insufficient_funds};
  return BodyCheck{TxStatus::success, *in - *out};
}

}  // namespace

TxPrecheck precheck_ids(const Transaction& tx) {
  TxPrecheck precheck;
  precheck.tx_id = tx_id(tx.payload);
  if (crypto::check_key_bundle(tx.keys)) precheck.keys_id = crypto::bundle_id(tx.keys);
  precheck.usage = tx_usage(tx);
  // A transfer creates a coin per output and one for change (or, failing,
  // one for what its fee coin keeps).
  const auto& transfer = std::get<Transfer>(tx.payload.body);
  precheck.coin_ids = coin_ids(precheck.tx_id, static_cast<std::uint32_t>(transfer.outputs.size() + 1));
  return precheck;
}

base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, std::optional<bool> signature_ok,
                                        const ChainParams& params, PulseUsage& usage) {
  TxPrecheck precheck = precheck_ids(tx);
  precheck.signature_ok = signature_ok;
  return apply_transaction(state, tx, precheck, params, usage);
}

base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, const TxPrecheck& precheck,
                                        const ChainParams& params, PulseUsage& usage) {
  const TxPayload& payload = tx.payload;
  const Id& id = precheck.tx_id;
  const auto reject = [&id](TxStatus status) { return Receipt{id, status, 0, 0}; };
  const Transfer& transfer = std::get<Transfer>(payload.body);
  if (precheck.coin_ids.size() != transfer.outputs.size() + 1) {
    return base::fail(base::Errc::internal, "apply_transaction: the pre-check is not this transaction's");
  }

  // 1. Chain.
  if (payload.chain_id != params.chain_id) return reject(TxStatus::wrong_chain);

  // 2. Keys: well formed, and the account's (keys_id), or for a new account
  // hashing to its id. Checked before any read, so a malformed bundle costs
  // no state access.
  if (!precheck.keys_id) return reject(TxStatus::wrong_keys);
  const Id& keys_id = *precheck.keys_id;
  auto stored = state.find(payload.sender);
  if (!stored) return base::fail(std::move(stored).error());
  Account account;
  std::uint64_t version = 1;
  // Another kind of object at the sender's id: the sender's mistake, unless
  // these keys hash to that id (only a corrupt store puts a non-account
  // there; account_from says so).
  if (*stored != nullptr && (*stored)->type != static_cast<std::uint32_t>(ObjectType::account) &&
      account_id_from_keys_id(keys_id) != payload.sender) {
    return reject(TxStatus::wrong_keys);
  }
  if (*stored != nullptr) {
    auto existing = account_from(**stored);
    if (!existing) return base::fail(std::move(existing).error());
    if (existing->keys_id != keys_id) return reject(TxStatus::wrong_keys);
    account = *existing;
    version = (*stored)->version + 1;
  } else {
    if (account_id_from_keys_id(keys_id) != payload.sender) return reject(TxStatus::wrong_keys);
    account.keys_id = keys_id;
  }

  // 3. Budget. From here on the transaction counts: its signature is checked.
  const PulseUsage& need = precheck.usage;
  if (!usage.fits(need, params.limits)) return reject(TxStatus::budget_exceeded);
  usage.add(need);

  // 4. Signature, unless checked already.
  const bool verified = precheck.signature_ok ? *precheck.signature_ok
                                     : crypto::verify_bundle(crypto::KeyBundleRef(tx.keys), codec::encode(payload),
                                                             base::as_bytes(kTxSignatureContext), tx.auth);
  if (!verified) return reject(TxStatus::bad_signature);

  // 5. Nonce. 6. Fee.
  if (payload.nonce != account.nonce) return reject(TxStatus::wrong_nonce);
  const auto required = required_fee(need.bytes, need.verify_units, params.fees);
  if (!required || payload.fee < *required) return reject(TxStatus::fee_too_low);

  // 7. The fee coin.
  if (transfer.inputs.empty()) return reject(TxStatus::fee_unpayable);
  auto fee_coin = read_coin(state, transfer.inputs[0]);
  if (!fee_coin) return base::fail(std::move(fee_coin).error());
  if (!*fee_coin || (*fee_coin)->owner != payload.sender || (*fee_coin)->amount < payload.fee) {
    return reject(TxStatus::fee_unpayable);
  }

  // Authorized: the transaction pays and the nonce advances, whatever the body does.
  auto body = check_transfer(state, transfer, payload);
  if (!body) return base::fail(std::move(body).error());
  account.nonce += 1;
  state.put(payload.sender, to_object(account, version));

  if (body->status != TxStatus::success) {
    state.erase(transfer.inputs[0]);
    const Amount rest = (*fee_coin)->amount - payload.fee;
    if (rest > 0) state.put(precheck.coin_ids[0], to_object(Coin{payload.sender, rest}, 1));
    return Receipt{id, body->status, payload.fee, rest > 0 ? 1u : 0u};
  }

  for (const Id& input : transfer.inputs) state.erase(input);
  std::uint32_t created = 0;
  for (const Output& output : transfer.outputs) {
    state.put(precheck.coin_ids[created++], to_object(Coin{output.owner, output.amount}, 1));
  }
  if (body->change > 0) state.put(precheck.coin_ids[created++], to_object(Coin{payload.sender, body->change}, 1));
  return Receipt{id, TxStatus::success, payload.fee, created};
}

}  // namespace sion::exec
