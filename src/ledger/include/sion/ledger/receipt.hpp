#pragma once
// What a transaction did, whatever its kind (docs/ledger.md, "Receipts"),
// and the receipts root of a Pulse. Consensus format.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>

#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/merkle_tree.hpp"
#include "sion/ledger/objects.hpp"

namespace sion::ledger {

// Why a transaction did what it did. Wire values: never renumber.
// Rejected (1..63): the transaction changes nothing and pays nothing.
// Failed (64..): the fee is paid from the fee coin and the nonce advances;
// nothing else changes.
enum class TxStatus : std::uint8_t {
  success = 0,
  // rejected
  wrong_chain = 1,      // chain_id is not this chain's
  wrong_keys = 2,       // keys malformed, not the account's keys_id, or (new account) not hashing to sender
  budget_exceeded = 3,  // would take the Pulse past one of its limits
  bad_signature = 4,    // the signature bundle does not verify under the keys
  wrong_nonce = 5,      // nonce differs from the account's
  fee_too_low = 6,      // fee below required_fee()
  fee_unpayable = 7,    // no fee coin, not the sender's, or holding less than the fee
  // rejected, agents (docs/agents.md, "Authorization of an agent's transaction")
  not_an_agent = 8,       // the sender (or the kind's agent) holds no charter that may act
  unknown_batch = 9,      // a batch member names no batch
  wrong_controller = 10,  // the batch's controller is not the member's
  batch_expired = 11,     // the batch's expiry height has passed
  bad_batch_path = 12,    // the batch place does not decode or does not prove the payload
  // rejected, streams (docs/streams.md, "Statuses"): a settlement or close
  // pays its fee out of the stream, so its rules are checked at step 7
  unknown_stream = 13,           // no stream under the id (never opened, or closed)
  not_stream_payee = 14,         // a settlement sent by someone other than the payee
  not_stream_payer = 15,         // a close sent by someone other than the payer
  stream_expired = 16,           // a settlement after the stream's expiry height
  stream_not_expired = 17,       // a close at or before the stream's expiry height
  index_not_above_settled = 18,  // a settlement index at or below the settled index
  index_past_end = 19,           // a settlement index past the stream's length
  beyond_deposit = 20,           // the steps settled would cost more than the deposit left
  wrong_walk_start = 21,         // `from` is neither the settled index nor the checkpoint below the index
  bad_stream_element = 22,       // the element does not hash down to the element at `from`
  bad_checkpoint_path = 23,      // the path does not prove the checkpoint at `from`
  // failed
  unknown_coin = 64,        // an input does not exist (never created, or already spent)
  not_owner = 65,           // an input belongs to another account
  duplicate_input = 66,     // the same coin listed twice
  zero_amount = 67,         // an output of amount 0
  insufficient_funds = 68,  // inputs hold less than outputs plus the fee
  amount_overflow = 69,     // a sum passes 2^64 - 1
  // failed, agents (docs/agents.md, "Statuses")
  agent_revoked = 70,           // the agent or an ancestor is revoked
  agent_suspended = 71,         // the agent or an ancestor is suspended at this height
  agent_expired = 72,           // past the effective expiry height
  action_not_allowed = 73,      // the kind's action is not in the effective caveats
  payee_not_allowed = 74,       // the payee is not allowed
  above_per_payment = 75,       // a payment above the per-payment cap
  above_period_cap = 76,        // the period's moves would pass the period cap
  insufficient_allotment = 77,  // the allotment holds less than the move
  agent_exists = 78,            // a charter is already at the new agent's id
  lineage_too_deep = 79,        // the new agent would be deeper than 16
  caveats_malformed = 80,       // caveats or a narrowing are not well formed
  caveats_not_within = 81,      // a child's caveats exceed its parent's effective ones
  not_an_ancestor = 82,         // a restriction by someone who is not an ancestor
  coins_from_agent = 83,        // an agent's transaction lists coins
  batch_malformed = 84,         // a batch count outside 1..65536, or an expiry already past
  cohort_malformed = 85,        // a cohort count outside 1..2^20, or nothing to materialize
  not_a_cohort = 86,            // materializing from what is not a cohort node
  bad_member_proof = 87,        // a member's index or sum proof does not hold
  already_materialized = 88,    // the member exists already
  // failed, streams
  stream_malformed = 89,  // an OpenStream's price, length, deposit or expiry out of range
};
constexpr std::array<TxStatus, 50> codec_enum_values(TxStatus) {
  return {TxStatus::success,
          TxStatus::wrong_chain,
          TxStatus::wrong_keys,
          TxStatus::budget_exceeded,
          TxStatus::bad_signature,
          TxStatus::wrong_nonce,
          TxStatus::fee_too_low,
          TxStatus::fee_unpayable,
          TxStatus::not_an_agent,
          TxStatus::unknown_batch,
          TxStatus::wrong_controller,
          TxStatus::batch_expired,
          TxStatus::bad_batch_path,
          TxStatus::unknown_stream,
          TxStatus::not_stream_payee,
          TxStatus::not_stream_payer,
          TxStatus::stream_expired,
          TxStatus::stream_not_expired,
          TxStatus::index_not_above_settled,
          TxStatus::index_past_end,
          TxStatus::beyond_deposit,
          TxStatus::wrong_walk_start,
          TxStatus::bad_stream_element,
          TxStatus::bad_checkpoint_path,
          TxStatus::unknown_coin,
          TxStatus::not_owner,
          TxStatus::duplicate_input,
          TxStatus::zero_amount,
          TxStatus::insufficient_funds,
          TxStatus::amount_overflow,
          TxStatus::agent_revoked,
          TxStatus::agent_suspended,
          TxStatus::agent_expired,
          TxStatus::action_not_allowed,
          TxStatus::payee_not_allowed,
          TxStatus::above_per_payment,
          TxStatus::above_period_cap,
          TxStatus::insufficient_allotment,
          TxStatus::agent_exists,
          TxStatus::lineage_too_deep,
          TxStatus::caveats_malformed,
          TxStatus::caveats_not_within,
          TxStatus::not_an_ancestor,
          TxStatus::coins_from_agent,
          TxStatus::batch_malformed,
          TxStatus::cohort_malformed,
          TxStatus::not_a_cohort,
          TxStatus::bad_member_proof,
          TxStatus::already_materialized,
          TxStatus::stream_malformed};
}
std::string_view status_name(TxStatus status) noexcept;
constexpr bool is_rejection(TxStatus status) noexcept {
  return status != TxStatus::success && static_cast<std::uint8_t>(status) < 64;
}

struct Receipt {
  Id tx_id{};
  TxStatus status = TxStatus::success;
  Amount fee_paid = 0;
  std::uint32_t coins_created = 0;  // created under coin_id(tx_id, 0 .. coins_created - 1)
  static constexpr std::string_view codec_name = "Receipt";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("tx_id", &Receipt::tx_id), codec::field("status", &Receipt::status),
                      codec::field("fee_paid", &Receipt::fee_paid),
                      codec::field("coins_created", &Receipt::coins_created)};
  }
  bool operator==(const Receipt&) const = default;
};

// The receipts tree: RFC 6962 shape, SHA3-256, tags 0x50 / 0x51.
inline constexpr commit::TreeHasher kReceiptHasher{commit::HashFunction::sha3_256, commit::Domain::receipt_leaf,
                                                   commit::Domain::receipt_node};

// RFC 6962 tree over the receipts' encodings, SHA3-256 with the
// receipt_leaf / receipt_node tags; SHA3-256("") for none.
commit::Hash receipts_root(std::span<const Receipt> receipts);

}  // namespace sion::ledger
