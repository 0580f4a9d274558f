#include "sion/ledger/objects.hpp"

#include <array>
#include <cstring>
#include <string>

namespace sion::ledger {

Id account_id(const crypto::KeyBundle& keys) { return account_id_from_keys_id(crypto::bundle_id(keys)); }

Id account_id_from_keys_id(const Id& keys_id) noexcept { return commit::tagged_hash(commit::Domain::account, keys_id); }

namespace {

// tx_id || index as u32 little-endian: the input of coin_id.
std::array<std::uint8_t, 36> coin_id_input(const Id& tx_id, std::uint32_t index) noexcept {
  std::array<std::uint8_t, 36> input;
  std::memcpy(input.data(), tx_id.data(), tx_id.size());
  for (std::size_t i = 0; i < 4; ++i) input[32 + i] = static_cast<std::uint8_t>(index >> (8 * i));
  return input;
}

}  // namespace

Id coin_id(const Id& tx_id, std::uint32_t index) noexcept {
  return commit::tagged_hash(commit::Domain::coin, coin_id_input(tx_id, index));
}

std::vector<Id> coin_ids(const Id& tx_id, std::uint32_t count) {
  std::vector<std::array<std::uint8_t, 36>> inputs(count);
  std::vector<base::ByteView> views(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    inputs[i] = coin_id_input(tx_id, i);
    views[i] = inputs[i];
  }
  std::vector<Id> ids(count);
  commit::tagged_hashes(commit::Domain::coin, views, ids.data());
  return ids;
}

state::Object to_object(const Account& account, std::uint64_t version) {
  return typed_object(ObjectType::account, account, version);
}

state::Object to_object(const Coin& coin, std::uint64_t version) {
  return typed_object(ObjectType::coin, coin, version);
}

base::Result<Account> account_from(const state::Object& object) {
  return decode_typed_object<Account>(object, ObjectType::account);
}

base::Result<Coin> coin_from(const state::Object& object) {
  return decode_typed_object<Coin>(object, ObjectType::coin);
}

}  // namespace sion::ledger
