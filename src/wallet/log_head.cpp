#include "sion/wallet/log_head.hpp"

#include "sion/codec/codec.hpp"

namespace sion::wallet {

base::Bytes log_head_message(const commit::TreeHead& head) { return codec::encode(head); }

base::Result<crypto::SignatureBundle> sign_log_head(const crypto::SigningBundle& signer, const commit::TreeHead& head,
                                                    crypto::Hedging hedging) {
  return signer.sign(log_head_message(head), base::as_bytes(kLogHeadContext), hedging);
}

bool verify_log_head(const crypto::KeyBundle& keys, const commit::TreeHead& head,
                     const crypto::SignatureBundle& signature) {
  return crypto::verify_bundle(keys, log_head_message(head), base::as_bytes(kLogHeadContext), signature);
}

const crypto::KeyBundle* find_validator(std::span<const exec::GenesisValidator> validators, const exec::Id& signer) {
  for (const auto& validator : validators) {
    if (exec::account_id(validator.keys) == signer) return &validator.keys;
  }
  return nullptr;
}

}  // namespace sion::wallet
