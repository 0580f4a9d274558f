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
    case TxStatus::not_an_agent: return "not_an_agent";
    case TxStatus::unknown_batch: return "unknown_batch";
    case TxStatus::wrong_controller: return "wrong_controller";
    case TxStatus::batch_expired: return "batch_expired";
    case TxStatus::bad_batch_path: return "bad_batch_path";
    case TxStatus::unknown_stream: return "unknown_stream";
    case TxStatus::not_stream_payee: return "not_stream_payee";
    case TxStatus::not_stream_payer: return "not_stream_payer";
    case TxStatus::stream_expired: return "stream_expired";
    case TxStatus::stream_not_expired: return "stream_not_expired";
    case TxStatus::index_not_above_settled: return "index_not_above_settled";
    case TxStatus::index_past_end: return "index_past_end";
    case TxStatus::beyond_deposit: return "beyond_deposit";
    case TxStatus::wrong_walk_start: return "wrong_walk_start";
    case TxStatus::bad_stream_element: return "bad_stream_element";
    case TxStatus::bad_checkpoint_path: return "bad_checkpoint_path";
    case TxStatus::unknown_coin: return "unknown_coin";
    case TxStatus::not_owner: return "not_owner";
    case TxStatus::duplicate_input: return "duplicate_input";
    case TxStatus::zero_amount: return "zero_amount";
    case TxStatus::insufficient_funds: return "insufficient_funds";
    case TxStatus::amount_overflow: return "amount_overflow";
    case TxStatus::agent_revoked: return "agent_revoked";
    case TxStatus::agent_suspended: return "agent_suspended";
    case TxStatus::agent_expired: return "agent_expired";
    case TxStatus::action_not_allowed: return "action_not_allowed";
    case TxStatus::payee_not_allowed: return "payee_not_allowed";
    case TxStatus::above_per_payment: return "above_per_payment";
    case TxStatus::above_period_cap: return "above_period_cap";
    case TxStatus::insufficient_allotment: return "insufficient_allotment";
    case TxStatus::agent_exists: return "agent_exists";
    case TxStatus::lineage_too_deep: return "lineage_too_deep";
    case TxStatus::caveats_malformed: return "caveats_malformed";
    case TxStatus::caveats_not_within: return "caveats_not_within";
    case TxStatus::not_an_ancestor: return "not_an_ancestor";
    case TxStatus::coins_from_agent: return "coins_from_agent";
    case TxStatus::batch_malformed: return "batch_malformed";
    case TxStatus::cohort_malformed: return "cohort_malformed";
    case TxStatus::not_a_cohort: return "not_a_cohort";
    case TxStatus::bad_member_proof: return "bad_member_proof";
    case TxStatus::already_materialized: return "already_materialized";
    case TxStatus::stream_malformed: return "stream_malformed";
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
