#include "sion/exec/tx_builder.hpp"

#include <string>
#include <utility>

#include "sion/crypto/verify_units.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::exec {

base::Result<Transaction> sign_transaction(const crypto::SigningBundle& signer, TxPayload payload,
                                           crypto::Hedging hedging) {
  auto encoded = codec::encode_checked(payload);
  if (!encoded) return base::fail(base::Errc::invalid_argument, encoded.error().reason);
  SION_TRY(auto auth, signer.sign(*encoded, base::as_bytes(kTxSignatureContext), hedging));
  return Transaction{std::move(payload), signer.public_bundle(), std::move(auth)};
}

base::Result<Transaction> make_transfer(const crypto::SigningBundle& signer, const ChainParams& params,
                                        std::uint64_t nonce, std::span<const Id> inputs,
                                        std::span<const Output> outputs, std::optional<Amount> fee,
                                        crypto::Hedging hedging) {
  if (inputs.size() > kMaxTransferInputs || outputs.size() > kMaxTransferOutputs) {
    return base::fail(base::Errc::invalid_argument, std::to_string(inputs.size()) + " inputs and " +
                                                        std::to_string(outputs.size()) + " outputs; at most " +
                                                        std::to_string(kMaxTransferInputs) + " and " +
                                                        std::to_string(kMaxTransferOutputs));
  }
  const crypto::KeyBundle& keys = signer.public_bundle();
  Transaction tx;
  tx.payload.chain_id = params.chain_id;
  tx.payload.sender = account_id_from_keys_id(signer.id());
  tx.payload.nonce = nonce;
  tx.payload.body = Transfer{{inputs.begin(), inputs.end()}, {outputs.begin(), outputs.end()}};

  if (!fee) {
    // The fee is a fixed-width u64 and every scheme's signature has one
    // size, so the keys and placeholder signatures of the right lengths give
    // the exact encoded size of the signed transaction.
    tx.keys = keys;
    for (const auto& part : keys.parts) {
      tx.auth.parts.push_back(base::Bytes(crypto::scheme_sizes(part.scheme).signature));
    }
    auto required = required_fee(codec::encoded_size(tx), crypto::verify_units(keys), params.fees);
    if (!required) return base::fail(base::Errc::invalid_argument, required.error().reason);
    fee = *required;
  }
  tx.payload.fee = *fee;
  return sign_transaction(signer, std::move(tx.payload), hedging);
}

}  // namespace sion::exec
