#include "sion/exec/genesis.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/base/json.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/smt.hpp"

namespace sion::exec {
namespace {

using base::Errc;
using ordered_json = nlohmann::ordered_json;

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::string_view kGenesisContext = "genesis";

base::Failure invalid(std::string_view path, std::string_view why) {
  return base::fail(Errc::invalid_value, "genesis: " + std::string(path) + ": " + std::string(why));
}

// The "keys" field of an account or a validator.
base::Result<crypto::KeyBundle> keys_from_json(base::JsonObject& object) {
  SION_TRY(const base::JsonView keys_field, object.field("keys"));
  SION_TRY(const base::Bytes bytes, keys_field.as_hex());
  auto keys = codec::decode<crypto::KeyBundle>(bytes);
  if (!keys) return keys_field.invalid("not the encoding of a key bundle: " + keys.error().reason);
  return std::move(keys).value();
}

base::Result<GenesisAccount> account_from_json(const base::JsonView& item) {
  SION_TRY(auto object, item.as_object());
  GenesisAccount account;
  SION_TRY(account.keys, keys_from_json(object));
  SION_TRY(const base::JsonArray coins, object.array("coins"));
  account.coins.reserve(coins.size());
  for (std::size_t j = 0; j < coins.size(); ++j) {
    SION_TRY(const Amount amount, coins[j].as_u64());
    account.coins.push_back(amount);
  }
  SION_TRY_STATUS(object.finish());
  return account;
}

base::Result<Genesis> genesis_from_json(const base::JsonValue& document) {
  SION_TRY(auto root, base::JsonView(document).as_object());
  Genesis genesis;
  ChainParams& params = genesis.params;
  SION_TRY(params.chain_id, root.u64("chain_id"));

  SION_TRY(auto fees, root.object("fees"));
  SION_TRY(params.fees.per_byte, fees.u64("per_byte"));
  SION_TRY(params.fees.per_verify_unit, fees.u64("per_verify_unit"));
  SION_TRY_STATUS(fees.finish());

  SION_TRY(auto limits, root.object("limits"));
  SION_TRY(params.limits.max_verify_units, limits.u64("max_verify_units"));
  SION_TRY(params.limits.max_auth_bytes, limits.u64("max_auth_bytes"));
  SION_TRY(params.limits.max_bytes, limits.u64("max_bytes"));
  SION_TRY(const std::uint64_t max_transactions, limits.u64("max_transactions", kMaxU32));
  params.limits.max_transactions = static_cast<std::uint32_t>(max_transactions);
  SION_TRY_STATUS(limits.finish());

  SION_TRY(const base::JsonArray accounts, root.array("accounts"));
  genesis.accounts.reserve(accounts.size());
  for (std::size_t i = 0; i < accounts.size(); ++i) {
    SION_TRY(GenesisAccount account, account_from_json(accounts[i]));
    genesis.accounts.push_back(std::move(account));
  }
  if (const auto validators_field = root.optional_field("validators")) {
    SION_TRY(const base::JsonArray validators, validators_field->as_array());
    genesis.validators.reserve(validators.size());
    for (std::size_t i = 0; i < validators.size(); ++i) {
      SION_TRY(auto validator, validators[i].as_object());
      SION_TRY(crypto::KeyBundle keys, keys_from_json(validator));
      SION_TRY_STATUS(validator.finish());
      genesis.validators.push_back(std::move(keys));
    }
  }
  SION_TRY_STATUS(root.finish());
  return genesis;
}

}  // namespace

// ---- Genesis ----------------------------------------------------------------------------

base::Status check_genesis(const Genesis& genesis) {
  if (genesis.accounts.empty()) return invalid("$.accounts", "no accounts; a chain needs at least one");
  std::map<Id, std::size_t> seen;
  Amount supply = 0;
  std::uint64_t coins = 0;
  for (std::size_t i = 0; i < genesis.accounts.size(); ++i) {
    const GenesisAccount& account = genesis.accounts[i];
    const std::string path = base::json_item_path("$.accounts", i);
    if (auto s = crypto::check_key_bundle(account.keys); !s) return invalid(path + ".keys", s.error().reason);
    const auto [at, inserted] = seen.emplace(account_id(account.keys), i);
    if (!inserted)
      return invalid(path + ".keys", "the same account as " + base::json_item_path("$.accounts", at->second));
    for (std::size_t j = 0; j < account.coins.size(); ++j) {
      const std::string coin_path = base::json_item_path(path + ".coins", j);
      const Amount amount = account.coins[j];
      if (amount == 0) return invalid(coin_path, "a coin's amount must be at least 1");
      if (amount > kMaxU64 - supply) return invalid(coin_path, "the total supply passes 2^64 - 1");
      supply += amount;
      if (++coins > kMaxGenesisCoins) return invalid(coin_path, "more than 2^32 coins");
    }
  }
  std::map<Id, std::size_t> validators;
  for (std::size_t i = 0; i < genesis.validators.size(); ++i) {
    const std::string path = base::json_item_path("$.validators", i) + ".keys";
    if (auto s = crypto::check_key_bundle(genesis.validators[i]); !s) return invalid(path, s.error().reason);
    const auto [at, inserted] = validators.emplace(crypto::bundle_id(genesis.validators[i]), i);
    if (!inserted) return invalid(path, "the same keys as " + base::json_item_path("$.validators", at->second));
  }
  return {};
}

base::Result<Genesis> parse_genesis(std::string_view text) {
  SION_TRY_CONTEXT(const base::JsonValue document, kGenesisContext, base::parse_json(text));
  SION_TRY_CONTEXT(Genesis genesis, kGenesisContext, genesis_from_json(document));
  SION_TRY_STATUS(check_genesis(genesis));
  return genesis;
}

std::string genesis_to_json(const Genesis& genesis) {
  const ChainParams& params = genesis.params;
  ordered_json document = ordered_json::object();
  document["chain_id"] = params.chain_id;
  ordered_json fees = ordered_json::object();
  fees["per_byte"] = params.fees.per_byte;
  fees["per_verify_unit"] = params.fees.per_verify_unit;
  document["fees"] = std::move(fees);
  ordered_json limits = ordered_json::object();
  limits["max_verify_units"] = params.limits.max_verify_units;
  limits["max_auth_bytes"] = params.limits.max_auth_bytes;
  limits["max_bytes"] = params.limits.max_bytes;
  limits["max_transactions"] = params.limits.max_transactions;
  document["limits"] = std::move(limits);
  ordered_json accounts = ordered_json::array();
  for (const GenesisAccount& account : genesis.accounts) {
    ordered_json item = ordered_json::object();
    item["keys"] = base::to_hex(codec::encode(account.keys));
    ordered_json coins = ordered_json::array();
    for (const Amount amount : account.coins) coins.push_back(amount);
    item["coins"] = std::move(coins);
    accounts.push_back(std::move(item));
  }
  document["accounts"] = std::move(accounts);
  if (!genesis.validators.empty()) {
    ordered_json validators = ordered_json::array();
    for (const crypto::KeyBundle& keys : genesis.validators) {
      validators.push_back(ordered_json{{"keys", base::to_hex(codec::encode(keys))}});
    }
    document["validators"] = std::move(validators);
  }
  return document.dump(2) + "\n";
}

base::Result<Amount> total_supply(const Genesis& genesis) {
  Amount supply = 0;
  for (const GenesisAccount& account : genesis.accounts) {
    for (const Amount amount : account.coins) {
      if (amount > kMaxU64 - supply) {
        return base::fail(Errc::invalid_value, "genesis: the total supply passes 2^64 - 1");
      }
      supply += amount;
    }
  }
  return supply;
}

Id genesis_coin_id(std::uint32_t index) noexcept { return coin_id(Id{}, index); }

std::vector<state::ObjectWrite> genesis_writes(const Genesis& genesis) {
  std::vector<state::ObjectWrite> writes;
  std::uint32_t coin_index = 0;
  for (const GenesisAccount& account : genesis.accounts) {
    const Id keys_id = crypto::bundle_id(account.keys);
    const Id owner = account_id_from_keys_id(keys_id);
    writes.push_back({owner, to_object(Account{keys_id, 0}, 1)});
    for (const Amount amount : account.coins) {
      writes.push_back({genesis_coin_id(coin_index++), to_object(Coin{owner, amount}, 1)});
    }
  }
  std::sort(writes.begin(), writes.end(),
            [](const state::ObjectWrite& a, const state::ObjectWrite& b) { return a.id < b.id; });
  return writes;
}

base::Result<commit::Hash> genesis_state_root(const Genesis& genesis) {
  const std::vector<state::ObjectWrite> writes = genesis_writes(genesis);
  std::vector<commit::StateEntry> entries;
  entries.reserve(writes.size());
  for (const state::ObjectWrite& write : writes) entries.push_back({write.id, state::object_hash(*write.object)});
  return commit::state_root(entries);
}

// ---- Files -------------------------------------------------------------------------------

base::Result<Genesis> read_genesis_file(const std::string& path) {
  SION_TRY(const std::string text, base::read_file(path, {.what = "genesis file", .max_bytes = kMaxGenesisFileBytes}));
  SION_TRY_CONTEXT(Genesis genesis, path, parse_genesis(text));
  return genesis;
}

base::Status check_genesis_file_size(std::uint64_t bytes) {
  if (bytes > kMaxGenesisFileBytes) {
    return base::fail(Errc::invalid_argument, "the genesis file would be " + std::to_string(bytes) +
                                                  " bytes, over the " + std::to_string(kMaxGenesisFileBytes) +
                                                  " a node reads");
  }
  return {};
}

base::Status write_genesis_file(const std::string& path, const Genesis& genesis, bool overwrite) {
  const std::string text = genesis_to_json(genesis);
  SION_TRY_STATUS(check_genesis_file_size(text.size()));
  const base::WriteFileOptions options{.what = "genesis file", .mode = 0644};
  if (!overwrite) return base::write_new_file(path, text, options);
  return base::replace_file(path, text, options);
}

}  // namespace sion::exec
