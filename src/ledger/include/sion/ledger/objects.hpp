#pragma once
// The objects every transaction kind reads and writes (docs/ledger.md,
// "Identifiers" and "Objects"): accounts and coins, their ids, and their
// form in the object store. Consensus format: the codec encoding of each
// type is its one wire and hashing form.
//
// Object kinds are wire-numbered (ObjectType): later kinds append numbers,
// which keeps every existing encoding valid.

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/state/object_store.hpp"

namespace sion::ledger {

using Id = commit::Hash;
// Native coin amounts: integers, every sum checked (no wrap-around).
using Amount = std::uint64_t;

// state::Object::type of each kind. Wire values: never renumber.
enum class ObjectType : std::uint32_t {
  account = 1,
  coin = 2,
  // docs/agents.md, "Objects"
  charter = 3,
  allotment = 4,
  overlay = 5,
  batch = 6,
  // docs/streams.md, "Objects"
  stream = 7,
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

// An account or coin as the object store holds it (type, version, bytes).
state::Object to_object(const Account& account, std::uint64_t version);
state::Object to_object(const Coin& coin, std::uint64_t version);
// The reverse; an object of another type, or bytes that do not decode, is
// corrupt_store: the store only ever holds what execution wrote.
base::Result<Account> account_from(const state::Object& object);
base::Result<Coin> coin_from(const state::Object& object);

// Any kind's value as an object of `type`, and back (the reverse fails with
// corrupt_store as above): what every kind's to_object / *_from use.
template <class T>
state::Object typed_object(ObjectType type, const T& value, std::uint64_t version) {
  state::Object object;
  object.type = static_cast<std::uint32_t>(type);
  object.version = version;
  object.data = codec::encode(value);
  return object;
}

template <class T>
base::Result<T> decode_typed_object(const state::Object& object, ObjectType type) {
  if (object.type != static_cast<std::uint32_t>(type)) {
    return base::fail(base::Errc::corrupt_store, std::string(T::codec_name) + ": object has type " +
                                                     std::to_string(object.type) + ", expected " +
                                                     std::to_string(static_cast<std::uint32_t>(type)));
  }
  auto value = codec::decode<T>(object.data);
  if (!value) {
    return base::fail(base::Errc::corrupt_store, "stored object does not decode: " + value.error().reason);
  }
  return value;
}

}  // namespace sion::ledger
