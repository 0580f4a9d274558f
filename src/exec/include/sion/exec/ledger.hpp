#pragma once
// Sion's ledger types (docs/ledger.md): the objects a transaction reads and
// writes, the transaction itself, its receipt, and the chain parameters that
// price and bound it. Everything here is consensus format: the codec
// encoding of each type is its one wire and hashing form.
//
// Kinds of objects and of transaction bodies are unions (codec variant) or
// wire-numbered enums: later kinds (agents, streams, orders, claims, stake)
// append alternatives, which keeps every existing encoding valid.

#include <cstdint>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/state/object_store.hpp"

namespace sion::exec {

using Id = commit::Hash;
// Native coin amounts: integers, every sum checked (no wrap-around).
using Amount = std::uint64_t;

inline constexpr std::size_t kMaxTransferInputs = 64;
inline constexpr std::size_t kMaxTransferOutputs = 64;
// The context string of every transaction signature (FIPS 204 ctx).
inline constexpr std::string_view kTxSignatureContext = "sion/tx/v1";

// ---- Objects ---------------------------------------------------------------

// state::Object::type of each kind. Wire values: never renumber.
enum class ObjectType : std::uint32_t {
  account = 1,
  coin = 2,
};

// An account: the id of the key bundle that authorizes its transactions
// (crypto::bundle_id; the bundle itself travels with every transaction, so
// the object stays small for witnesses) and the count of transactions it
// has sent (the next one must carry exactly this nonce). Its id is
// account_id(first bundle) and never changes; a key rotation (a later kind)
// changes keys_id. It comes into being with its first paying transaction or
// at genesis.
struct Account {
  Id keys_id{};
  std::uint64_t nonce = 0;
  static constexpr std::string_view codec_name = "Account";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("keys_id", &Account::keys_id), codec::field("nonce", &Account::nonce)};
  }
  bool operator==(const Account&) const = default;
};

// A coin: an amount owned by an account id. Created by a transfer (or at
// genesis) under coin_id(creating tx, output index), deleted when spent, so
// a second spend finds nothing.
struct Coin {
  Id owner{};
  Amount amount = 0;
  static constexpr std::string_view codec_name = "Coin";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("owner", &Coin::owner), codec::field("amount", &Coin::amount)};
  }
  bool operator==(const Coin&) const = default;
};

// SHA3-256(0x42 || bundle_id(keys)).
Id account_id(const crypto::KeyBundle& keys);
// The same from bundle_id(keys), when it is at hand.
Id account_id_from_keys_id(const Id& keys_id) noexcept;
// SHA3-256(0x43 || tx_id || u32 le index).
Id coin_id(const Id& tx_id, std::uint32_t index) noexcept;
// coin_id(tx_id, i) for i < count, hashed in Keccak lanes.
std::vector<Id> coin_ids(const Id& tx_id, std::uint32_t count);

// ---- Transactions -------------------------------------------------------------

struct Output {
  Id owner{};
  Amount amount = 0;
  static constexpr std::string_view codec_name = "Output";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("owner", &Output::owner), codec::field("amount", &Output::amount)};
  }
  bool operator==(const Output&) const = default;
};

// Spends coins of the sender and pays outputs. inputs[0] is the fee coin:
// the fee comes out of it even when the transfer fails. What the inputs hold
// beyond the outputs and the fee returns to the sender as one change coin.
struct Transfer {
  codec::List<Id, kMaxTransferInputs> inputs;
  codec::List<Output, kMaxTransferOutputs> outputs;
  static constexpr std::string_view codec_name = "Transfer";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("inputs", &Transfer::inputs), codec::field("outputs", &Transfer::outputs)};
  }
  bool operator==(const Transfer&) const = default;
};

// The kind-specific part. Later kinds are appended, never inserted.
using TxBody = std::variant<Transfer>;

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

// ---- Receipts -------------------------------------------------------------------

// Why a transaction did what it did. Wire values: never renumber.
// Rejected (1..63): the transaction changes nothing and pays nothing.
// Failed (64..): the fee is paid from the fee coin and the nonce advances;
// nothing else changes.
enum class TxStatus : std::uint8_t {
  success = 0,
  // rejected
  wrong_chain = 1,       // chain_id is not this chain's
  wrong_keys = 2,        // keys malformed, not the account's keys_id, or (new account) not hashing to sender
  budget_exceeded = 3,   // would take the Pulse past one of its limits
  bad_signature = 4,     // the signature bundle does not verify under the keys
  wrong_nonce = 5,       // nonce differs from the account's
  fee_too_low = 6,       // fee below required_fee()
  fee_unpayable = 7,     // no fee coin, not the sender's, or holding less than the fee
  // failed
  unknown_coin = 64,         // an input does not exist (never created, or already spent)
  not_owner = 65,            // an input belongs to another account
  duplicate_input = 66,      // the same coin listed twice
  zero_amount = 67,          // an output of amount 0
  insufficient_funds = 68,   // inputs hold less than outputs plus the fee
  amount_overflow = 69,      // a sum passes 2^64 - 1
};
constexpr std::array<TxStatus, 14> codec_enum_values(TxStatus) {
  return {TxStatus::success,          TxStatus::wrong_chain,     TxStatus::wrong_keys,      TxStatus::budget_exceeded,
          TxStatus::bad_signature,    TxStatus::wrong_nonce,     TxStatus::fee_too_low,     TxStatus::fee_unpayable,
          TxStatus::unknown_coin,     TxStatus::not_owner,       TxStatus::duplicate_input, TxStatus::zero_amount,
          TxStatus::insufficient_funds, TxStatus::amount_overflow};
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

// ---- Chain parameters ---------------------------------------------------------

// Price of a transaction: per byte of its encoding and per verify unit of
// its key bundle (crypto/verify_units.hpp).
struct FeeSchedule {
  Amount per_byte = 1;
  Amount per_verify_unit = 1;
  static constexpr std::string_view codec_name = "FeeSchedule";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("per_byte", &FeeSchedule::per_byte),
                      codec::field("per_verify_unit", &FeeSchedule::per_verify_unit)};
  }
  bool operator==(const FeeSchedule&) const = default;
};

// What one Pulse may hold (the Qanum seed's budgets: in a post-quantum chain
// authorization dominates, so it is bounded on its own).
struct PulseLimits {
  std::uint64_t max_verify_units = 4'000'000;   // about 1,300 dual transfers
  std::uint64_t max_auth_bytes = 24u << 20;     // key bundles and signature bundles
  std::uint64_t max_bytes = 32u << 20;          // whole transaction encodings
  std::uint32_t max_transactions = 20'000;
  static constexpr std::string_view codec_name = "PulseLimits";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("max_verify_units", &PulseLimits::max_verify_units),
                      codec::field("max_auth_bytes", &PulseLimits::max_auth_bytes),
                      codec::field("max_bytes", &PulseLimits::max_bytes),
                      codec::field("max_transactions", &PulseLimits::max_transactions)};
  }
  bool operator==(const PulseLimits&) const = default;
};

struct ChainParams {
  std::uint64_t chain_id = 0;
  FeeSchedule fees;
  PulseLimits limits;
  static constexpr std::string_view codec_name = "ChainParams";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("chain_id", &ChainParams::chain_id), codec::field("fees", &ChainParams::fees),
                      codec::field("limits", &ChainParams::limits)};
  }
  bool operator==(const ChainParams&) const = default;
};

// ---- Object encoding --------------------------------------------------------------

// An account or coin as the object store holds it (type, version, bytes).
state::Object to_object(const Account& account, std::uint64_t version);
state::Object to_object(const Coin& coin, std::uint64_t version);
// The reverse; an object of another type, or bytes that do not decode, is
// corrupt_store: the store only ever holds what execution wrote.
base::Result<Account> account_from(const state::Object& object);
base::Result<Coin> coin_from(const state::Object& object);

}  // namespace sion::exec
