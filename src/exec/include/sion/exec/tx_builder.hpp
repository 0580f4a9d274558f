#pragma once
// Building and signing transactions on the client side (docs/ledger.md,
// "Transactions").

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::exec {

// A signed transfer from the account of `signer`, carrying its public key
// bundle. Without `fee` it pays exactly required_fee(): signature sizes are
// fixed per scheme, so the encoded size is known before signing. invalid_argument for more than
// kMaxTransferInputs inputs or kMaxTransferOutputs outputs, or a fee that
// overflows.
base::Result<Transaction> make_transfer(const crypto::SigningBundle& signer, const ChainParams& params,
                                        std::uint64_t nonce, std::span<const Id> inputs,
                                        std::span<const Output> outputs, std::optional<Amount> fee = std::nullopt,
                                        crypto::Hedging hedging = crypto::Hedging::hedged);

// The fee make_signed() pays without `fee`: required_fee() of the
// transaction as `keys` would sign it (every scheme's signature has one
// size, so the size is known before signing). invalid_argument for a body
// the codec cannot encode or a fee past 2^64 - 1.
base::Result<Amount> signed_fee(const crypto::KeyBundle& keys, const ChainParams& params, const Id& sender,
                                std::uint64_t nonce, const TxBody& body);

// A signed transaction of any kind from `sender` (the signer's account id,
// or the id of a keyed agent whose keys the signer holds). Without `fee` it
// pays exactly required_fee().
base::Result<Transaction> make_signed(const crypto::SigningBundle& signer, const ChainParams& params, const Id& sender,
                                      std::uint64_t nonce, TxBody body, std::optional<Amount> fee = std::nullopt,
                                      crypto::Hedging hedging = crypto::Hedging::hedged);

// What one member of a batch does: the keyless agent it acts for, the
// agent's nonce, the body.
struct MemberIntent {
  Id agent{};
  std::uint64_t nonce = 0;
  TxBody body;
};

// A batch of member transactions on the client side (docs/agents.md,
// "Authorization of an agent's transaction"): the payloads, each paying
// the fee of a member whose path has the most siblings this batch size
// needs, and their batch root. The controller opens it with an OpenBatch
// over {root, count}; the members then carry places in the batch that
// OpenBatch made.
struct MemberBatch {
  std::vector<TxPayload> payloads;
  Id root{};
  std::uint32_t count() const noexcept { return static_cast<std::uint32_t>(payloads.size()); }
  // The member transactions, once the batch's id (agents::batch_id of the
  // OpenBatch's transaction id) is known.
  base::Result<std::vector<Transaction>> members(const Id& batch) const;
};
// invalid_argument for no intents, more than 65,536, or a body the codec
// cannot encode.
base::Result<MemberBatch> make_member_batch(const ChainParams& params, std::span<const MemberIntent> intents);

// Signs `payload` as its sender must (context kTxSignatureContext over
// codec::encode(payload)) and attaches the signer's public key bundle.
base::Result<Transaction> sign_transaction(const crypto::SigningBundle& signer, TxPayload payload,
                                           crypto::Hedging hedging = crypto::Hedging::hedged);

}  // namespace sion::exec
