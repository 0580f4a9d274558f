#pragma once
// Signed log heads (docs/ledger.md, "Signed log heads"): a validator vouches
// for the header log's head — every Pulse header hash, in height order, in
// an RFC 6962 log (docs/commit-log.md) — by signing the codec encoding of
// its commit::TreeHead under the context kLogHeadContext with its key
// bundle. A client that trusts the genesis file checks the signature
// against a validator the genesis names.

#include <optional>
#include <span>
#include <string_view>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/commit/merkle_log.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::wallet {

inline constexpr std::string_view kLogHeadContext = "sion/log-head/v1";

// The signed message: codec::encode(head), 40 bytes (size u64 LE, root).
base::Bytes log_head_message(const commit::TreeHead& head);

// The validator's signature over the head (deterministic signing for the
// known answers of docs/ledger.md; hedged otherwise).
base::Result<crypto::SignatureBundle> sign_log_head(const crypto::SigningBundle& signer, const commit::TreeHead& head,
                                                    crypto::Hedging hedging = crypto::Hedging::hedged);

// True only if `signature` is `keys`' signature over the head.
bool verify_log_head(const crypto::KeyBundle& keys, const commit::TreeHead& head,
                     const crypto::SignatureBundle& signature);

// The validator among `validators` whose id (exec::account_id of its
// keys, the `signer` of GET /v1/log/head) is `signer`, or nullptr.
const crypto::KeyBundle* find_validator(std::span<const exec::GenesisValidator> validators, const exec::Id& signer);

}  // namespace sion::wallet
