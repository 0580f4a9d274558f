#pragma once
// A transaction (docs/ledger.md, "Transactions"): the payload its sender
// signs, with a body of one of the kinds in TxBody, the sender's key
// bundle and the signature bundle. Consensus format.
//
// TxBody is the list of kinds and, through std::visit, the dispatch to
// each kind's rules (docs/architecture.md, "Adding a transaction kind"):
// a kind appends its type here, never inserts it, which keeps every
// existing encoding valid.

#include <cstdint>
#include <string_view>
#include <tuple>
#include <variant>

#include "sion/agents/kinds.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/ledger/authorize.hpp"
#include "sion/ledger/fees.hpp"
#include "sion/ledger/kind.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/params.hpp"
#include "sion/ledger/receipt.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/ledger/transfer.hpp"
#include "sion/streams/kinds.hpp"

namespace sion::exec {

// The ledger's vocabulary under the names exec's interface and its callers
// use: exec speaks of transactions built from these.
using ledger::Account;
using ledger::account_from;
using ledger::account_id;
using ledger::account_id_from_keys_id;
using ledger::Amount;
using ledger::ChainParams;
using ledger::Coin;
using ledger::coin_from;
using ledger::coin_id;
using ledger::coin_ids;
using ledger::FeeSchedule;
using ledger::Id;
using ledger::is_rejection;
using ledger::kMaxTransferInputs;
using ledger::kMaxTransferOutputs;
using ledger::kReceiptHasher;
using ledger::kTxSignatureContext;
using ledger::MemoryState;
using ledger::ObjectType;
using ledger::Output;
using ledger::Overlay;
using ledger::PulseLimits;
using ledger::PulseUsage;
using ledger::Receipt;
using ledger::receipts_root;
using ledger::required_fee;
using ledger::StateView;
using ledger::status_name;
using ledger::StoreView;
using ledger::to_object;
using ledger::Transfer;
using ledger::TxStatus;

using agents::AgentPay;
using agents::FundAgent;
using agents::MaterializeAgents;
using agents::OpenBatch;
using agents::Restrict;
using agents::SpawnAgent;
using agents::SpawnCohort;

using streams::CloseStream;
using streams::OpenStream;
using streams::SettleStream;

// The kind-specific part: one alternative per kind, each a ledger::TxKind.
// Later kinds are appended, never inserted.
using TxBody = std::variant<Transfer, SpawnAgent, FundAgent, AgentPay, OpenBatch, SpawnCohort, MaterializeAgents,
                            Restrict, OpenStream, SettleStream, CloseStream>;

// Whether agents may send a kind (docs/agents.md): every other kind an agent
// sends fails with action_not_allowed.
template <class Kind>
inline constexpr bool kSentByAgents = agents::kSentByAgents<Kind> || streams::kSentByAgents<Kind>;

// The verify units a body costs beyond its signatures (sion/ledger/kind.hpp,
// work_units): 0 for a kind without them.
template <class Kind>
std::uint64_t body_work_units(const Kind& body) noexcept {
  if constexpr (requires { work_units(body); }) {
    return work_units(body);
  } else {
    return 0;
  }
}

namespace detail {
template <class Variant>
inline constexpr bool kAllKinds = false;
template <class... Kinds>
inline constexpr bool kAllKinds<std::variant<Kinds...>> = (ledger::TxKind<Kinds> && ...);
}  // namespace detail
static_assert(detail::kAllKinds<TxBody>, "every TxBody alternative provides what sion/ledger/kind.hpp lists");

// What the sender signs, and what the transaction id hashes.
struct TxPayload {
  std::uint64_t chain_id = 0;
  Id sender{};              // the account id
  std::uint64_t nonce = 0;  // the sender account's nonce
  Amount fee = 0;           // paid exactly; at least required_fee()
  TxBody body;
  static constexpr std::string_view codec_name = "TxPayload";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("chain_id", &TxPayload::chain_id), codec::field("sender", &TxPayload::sender),
                      codec::field("nonce", &TxPayload::nonce), codec::field("fee", &TxPayload::fee),
                      codec::field("body", &TxPayload::body)};
  }
  bool operator==(const TxPayload&) const = default;
};

// A signed transaction: the payload, the sender's key bundle (carried by
// every transaction: the account stores only its id, which keeps state
// witnesses small), and a signature bundle by `keys` over
// encode(payload) (context kTxSignatureContext).
struct Transaction {
  TxPayload payload;
  crypto::KeyBundle keys;
  crypto::SignatureBundle auth;
  static constexpr std::string_view codec_name = "Transaction";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("payload", &Transaction::payload), codec::field("keys", &Transaction::keys),
                      codec::field("auth", &Transaction::auth)};
  }
  bool operator==(const Transaction&) const = default;
};

// SHA3-256(0x41 || encode(payload)). The keys and the signature are left
// out so that the id, and the coin ids derived from it, cannot be changed
// by re-signing.
Id tx_id(const TxPayload& payload);

// The fee `tx` must pay: its encoded size and the verify units of tx.keys
// (docs/ledger.md, "Fees and budgets").
base::Result<Amount> required_fee(const Transaction& tx, const FeeSchedule& fees);
// Bytes of authorization: the encodings of tx.keys and tx.auth.
std::uint64_t auth_bytes(const Transaction& tx);
// One transaction's usage: its keys' verify units (tx.keys) plus its body's
// work units.
PulseUsage tx_usage(const Transaction& tx);

}  // namespace sion::exec
