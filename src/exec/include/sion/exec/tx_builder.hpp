#pragma once
// Building and signing transactions on the client side (docs/ledger.md,
// "Transactions").

#include <cstdint>
#include <optional>
#include <span>

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

// Signs `payload` as its sender must (context kTxSignatureContext over
// codec::encode(payload)) and attaches the signer's public key bundle.
base::Result<Transaction> sign_transaction(const crypto::SigningBundle& signer, TxPayload payload,
                                           crypto::Hedging hedging = crypto::Hedging::hedged);

}  // namespace sion::exec
