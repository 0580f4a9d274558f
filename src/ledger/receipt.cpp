#include "sion/ledger/receipt.hpp"

#include <vector>

#include "sion/commit/merkle_log.hpp"

namespace sion::ledger {

std::string_view status_name(TxStatus status) noexcept {
  switch (status) {
    case TxStatus::success: return "success";
    case TxStatus::wrong_chain: return "wrong_chain";
    case TxStatus::wrong_keys: return "wrong_keys";
    case TxStatus::budget_exceeded: return "budget_exceeded";
    case TxStatus::bad_signature: return "bad_signature";
    case TxStatus::wrong_nonce: return "wrong_nonce";
    case TxStatus::fee_too_low: return "fee_too_low";
    case TxStatus::fee_unpayable: return "fee_unpayable";
    case TxStatus::unknown_coin: return "unknown_coin";
    case TxStatus::not_owner: return "not_owner";
    case TxStatus::duplicate_input: return "duplicate_input";
    case TxStatus::zero_amount: return "zero_amount";
    case TxStatus::insufficient_funds: return "insufficient_funds";
    case TxStatus::amount_overflow: return "amount_overflow";
  }
  return "unknown_status";
}

commit::Hash receipts_root(std::span<const Receipt> receipts) {
  // kReceiptHasher's leaves, taken in Keccak lanes: receipts encode to equal lengths.
  codec::EncodingBatch encodings;
  for (const Receipt& receipt : receipts) encodings.add(receipt);
  std::vector<commit::Hash> leaves(receipts.size());
  commit::tagged_hashes(kReceiptHasher.leaf_tag, encodings.views(), leaves.data());
  commit::MerkleLog tree(kReceiptHasher);
  tree.append_leaf_hashes(leaves);
  return tree.root();
}

}  // namespace sion::ledger
