#pragma once
// The steps every transaction kind shares (docs/ledger.md, "Applying a
// transaction", steps 1 to 7 and what follows them): chain, keys, budget,
// signature, nonce, fee and fee coin, then the sender's account write. A
// kind's own rules run after these, on an Authorized transaction.

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/ledger/fees.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/params.hpp"
#include "sion/ledger/receipt.hpp"

namespace sion::ledger {

// The context string of every transaction signature (FIPS 204 ctx).
inline constexpr std::string_view kTxSignatureContext = "sion/tx/v1";

// What a body that pays its own fee did at step 7: success, having written
// what it does and created `coins_created` coins, or the rejection status,
// having written nothing.
struct BodyFee {
  TxStatus status = TxStatus::success;
  std::uint32_t coins_created = 0;
};

// What authorize() reads of a transaction, whatever its kind: the fields
// every payload has, what the pre-check computed from its bytes, and the
// coin its body names to pay the fee.
struct AuthRequest {
  Id tx_id{};
  std::uint64_t chain_id = 0;
  Id sender{};
  std::uint64_t nonce = 0;
  Amount fee = 0;
  std::optional<crypto::Hash256> keys_id;  // bundle_id(keys); nullopt: malformed keys
  PulseUsage usage;                        // the transaction's usage
  std::optional<Id> fee_coin_id;           // nullopt: the body names no fee coin
  std::optional<bool> signature_ok;        // step 4's verdict, when checked already
  std::uint64_t height = 0;                // of the Pulse executing it
  // Step 4 without a verdict: whether the signature verifies under the
  // keys whose id is given. Called at most once, and only after step 3 has
  // counted the transaction, so no one gets a signature checked for free.
  std::function<bool(const crypto::Hash256& keys_id)> verify_signature;
  // Step 7 for a kind whose body pays its own fee (docs/streams.md: a
  // settlement pays out of what it settles), called instead of reading a
  // fee coin, with the state as steps 1 to 6 left it. Unset: the fee coin
  // pays.
  std::function<base::Result<BodyFee>(Overlay& state)> pay_fee_from_body;
};

// A transaction past steps 1 to 7. It pays its fee whatever its body does;
// authorize() has already written the sender's account with the nonce
// advanced.
struct FeeCoin {
  Id id{};
  Coin coin;  // as the transaction found it: the sender's, holding at least the fee
};
struct Authorized {
  Id tx_id{};
  Id sender{};
  Amount fee = 0;
  // The coin that pays the fee; nullopt when the fee was taken at
  // authorization (an agent's, from its allotment: docs/agents.md).
  std::optional<FeeCoin> fee_coin;
  std::uint64_t height = 0;  // of the Pulse executing it
  // Coins created at step 7 by a body that paid its own fee (BodyFee).
  std::uint32_t coins_created = 0;
};

// Either a rejection (status 1..63; nothing was written) or, with status
// success, an authorized transaction.
struct Authorization {
  TxStatus status = TxStatus::success;
  Authorized authorized;
};

// Steps 1 to 7 on `state`, in order; the first that fails decides.
// `usage` holds the Pulse's running totals and grows by the transaction's
// usage from step 3 on. An error is a read failure of the state, or an
// object there that does not decode as its type says (corrupt_store); the
// Pulse fails with it.
base::Result<Authorization> authorize(Overlay& state, const AuthRequest& request, const ChainParams& params,
                                      PulseUsage& usage);

// The receipt of an authorized transaction whose body fails with `status`
// (64..): the fee coin pays the fee and what it held beyond the fee comes
// back to the sender as one coin at `rest_id` (coin_id(tx_id, 0)); nothing
// else changes. Without a fee coin (the fee was taken at authorization)
// nothing changes at all.
Receipt fail_transaction(Overlay& state, const Authorized& tx, TxStatus status, const Id& rest_id);

}  // namespace sion::ledger
