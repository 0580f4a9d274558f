#include "sion/exec/tx_builder.hpp"

#include <string>
#include <utility>

#include "sion/agents/batch.hpp"
#include "sion/commit/batch_root.hpp"
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

base::Result<Amount> signed_fee(const crypto::KeyBundle& keys, const ChainParams& params, const Id& sender,
                                std::uint64_t nonce, const TxBody& body) {
  // The fee is a fixed-width u64 and every scheme's signature has one size,
  // so the keys and placeholder signatures of the right lengths give the
  // exact encoded size of the signed transaction.
  Transaction tx;
  tx.payload = TxPayload{params.chain_id, sender, nonce, 0, body};
  tx.keys = keys;
  for (const auto& part : keys.parts) {
    tx.auth.parts.push_back(base::Bytes(crypto::scheme_sizes(part.scheme).signature));
  }
  if (!codec::valid(tx)) return base::fail(base::Errc::invalid_argument, "the transaction is not encodable");
  // The Transaction overload: the body's own verify units (a settlement's
  // walk) count as the ledger counts them.
  auto required = required_fee(tx, params.fees);
  if (!required) return base::fail(base::Errc::invalid_argument, required.error().reason);
  return *required;
}

base::Result<Transaction> make_signed(const crypto::SigningBundle& signer, const ChainParams& params, const Id& sender,
                                      std::uint64_t nonce, TxBody body, std::optional<Amount> fee,
                                      crypto::Hedging hedging) {
  if (!fee) {
    SION_TRY(fee, signed_fee(signer.public_bundle(), params, sender, nonce, body));
  }
  return sign_transaction(signer, TxPayload{params.chain_id, sender, nonce, *fee, std::move(body)}, hedging);
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
  return make_signed(signer, params, account_id_from_keys_id(signer.id()), nonce,
                     Transfer{{inputs.begin(), inputs.end()}, {outputs.begin(), outputs.end()}}, fee, hedging);
}

namespace {

// The most siblings an inclusion path has in a batch of `count` items:
// ceil(log2(count)) (RFC 9162, Sec. 2.1.3.1).
std::size_t most_siblings(std::size_t count) {
  std::size_t depth = 0;
  while ((std::size_t{1} << depth) < count) ++depth;
  return depth;
}

}  // namespace

base::Result<MemberBatch> make_member_batch(const ChainParams& params, std::span<const MemberIntent> intents) {
  if (intents.empty() || intents.size() > agents::kMaxBatchMembers) {
    return base::fail(base::Errc::invalid_argument,
                      "a batch holds 1 to 65,536 members, not " + std::to_string(intents.size()));
  }
  // Every member pays for the longest path: a shorter one overpays by at
  // most one sibling.
  agents::BatchPlace longest;
  longest.path.resize(most_siblings(intents.size()));
  MemberBatch batch;
  codec::EncodingBatch encodings;
  for (const MemberIntent& intent : intents) {
    Transaction tx;
    tx.payload = TxPayload{params.chain_id, intent.agent, intent.nonce, 0, intent.body};
    tx.auth = agents::member_auth(longest);
    if (!codec::valid(tx)) return base::fail(base::Errc::invalid_argument, "a member is not encodable");
    SION_TRY(const Amount fee, required_fee(codec::encoded_size(tx), ledger::kBatchMemberVerifyUnits, params.fees));
    tx.payload.fee = fee;
    encodings.add(tx.payload);
    batch.payloads.push_back(std::move(tx.payload));
  }
  batch.root = commit::batch_root(encodings.views());
  return batch;
}

base::Result<std::vector<Transaction>> MemberBatch::members(const Id& batch) const {
  codec::EncodingBatch encodings;
  for (const TxPayload& payload : payloads) encodings.add(payload);
  const commit::BatchTree tree(encodings.views());
  std::vector<Transaction> out;
  out.reserve(payloads.size());
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    SION_TRY(const auto proof, tree.prove(i));
    agents::BatchPlace place;
    place.batch = batch;
    place.index = static_cast<std::uint32_t>(i);
    place.path.assign(proof.path.begin(), proof.path.end());
    out.push_back(Transaction{payloads[i], crypto::KeyBundle{}, agents::member_auth(place)});
  }
  return out;
}

}  // namespace sion::exec
