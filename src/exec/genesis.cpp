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

// The kinds of consensus message, as the "legs" object names them, and
// where their legs live.
struct LegsField {
  std::string_view name;
  std::vector<crypto::Scheme> ConsensusRules::*legs;
};
constexpr LegsField kLegsFields[] = {
    {"proposal", &ConsensusRules::proposal_legs},     {"vote", &ConsensusRules::vote_legs},
    {"timeout", &ConsensusRules::timeout_legs},       {"approvals", &ConsensusRules::approvals_legs},
    {"pulse_vote", &ConsensusRules::pulse_vote_legs},
};

base::Result<ConsensusRules> consensus_from_json(const base::JsonView& view) {
  SION_TRY(auto object, view.as_object());
  ConsensusRules rules;
  SION_TRY(auto legs, object.object("legs"));
  for (const LegsField& field : kLegsFields) {
    SION_TRY(const base::JsonArray names, legs.array(field.name));
    std::vector<crypto::Scheme> schemes;
    for (std::size_t i = 0; i < names.size(); ++i) {
      SION_TRY(const std::string name, names[i].as_string());
      const auto scheme = crypto::scheme_from_name(name);
      if (!scheme) return names[i].invalid("no such signature scheme");
      schemes.push_back(*scheme);
    }
    rules.*field.legs = std::move(schemes);
  }
  SION_TRY_STATUS(legs.finish());
  SION_TRY(rules.max_lane_gap, object.u64("max_lane_gap"));
  SION_TRY_STATUS(object.finish());
  return rules;
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
      SION_TRY(auto object, validators[i].as_object());
      GenesisValidator validator;
      SION_TRY(validator.keys, keys_from_json(object));
      if (const auto stake = object.optional_field("stake")) {
        SION_TRY(validator.stake, stake->as_u64());
      }
      SION_TRY_STATUS(object.finish());
      genesis.validators.push_back(std::move(validator));
    }
  }
  if (const auto consensus_field = root.optional_field("consensus")) {
    SION_TRY(genesis.consensus, consensus_from_json(*consensus_field));
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
  const ConsensusRules& rules = genesis.consensus;
  for (const LegsField& field : kLegsFields) {
    const std::vector<crypto::Scheme>& legs = rules.*field.legs;
    const std::string path = "$.consensus.legs." + std::string(field.name);
    if (legs.empty()) return invalid(path, "names no scheme; at least one leg must sign");
    for (std::size_t i = 0; i < legs.size(); ++i) {
      if (std::count(legs.begin(), legs.end(), legs[i]) > 1) {
        return invalid(path, "names " + std::string(crypto::scheme_name(legs[i])) + " twice");
      }
    }
  }
  if (rules.max_lane_gap == 0 || rules.max_lane_gap > kMaxLaneGap) {
    return invalid("$.consensus.max_lane_gap", "must be from 1 to " + std::to_string(kMaxLaneGap));
  }
  std::map<Id, std::size_t> validators;
  std::uint64_t total_stake = 0;
  for (std::size_t i = 0; i < genesis.validators.size(); ++i) {
    const GenesisValidator& validator = genesis.validators[i];
    const std::string item = base::json_item_path("$.validators", i);
    const std::string path = item + ".keys";
    if (auto s = crypto::check_key_bundle(validator.keys); !s) return invalid(path, s.error().reason);
    const auto [at, inserted] = validators.emplace(crypto::bundle_id(validator.keys), i);
    if (!inserted) return invalid(path, "the same keys as " + base::json_item_path("$.validators", at->second));
    if (validator.stake == 0) return invalid(item + ".stake", "a validator's stake must be at least 1");
    if (validator.stake >= kMaxTotalStake - total_stake) {
      return invalid(item + ".stake", "the validators' total stake reaches 2^62");
    }
    total_stake += validator.stake;
    // Every leg the rules require must be a key the validator holds.
    for (const LegsField& field : kLegsFields) {
      for (const crypto::Scheme scheme : rules.*field.legs) {
        if (!validator.keys.has_scheme(scheme)) {
          return invalid(path, "has no " + std::string(crypto::scheme_name(scheme)) + " key, which $.consensus.legs." +
                                   std::string(field.name) + " requires");
        }
      }
    }
  }
  return {};
}

ConsensusRules consensus_rules_for(std::span<const GenesisValidator> validators) {
  ConsensusRules rules;
  if (validators.empty() || validators.front().keys.parts.empty()) return rules;
  const auto held_by_all = [&](crypto::Scheme scheme) {
    return std::all_of(validators.begin(), validators.end(),
                       [scheme](const GenesisValidator& v) { return v.keys.has_scheme(scheme); });
  };
  for (const LegsField& field : kLegsFields) {
    std::vector<crypto::Scheme>& legs = rules.*field.legs;
    std::erase_if(legs, [&](crypto::Scheme scheme) { return !held_by_all(scheme); });
    if (legs.empty()) legs.push_back(validators.front().keys.parts.front().scheme);
  }
  return rules;
}

std::vector<crypto::KeyBundle> validator_keys(const Genesis& genesis) {
  std::vector<crypto::KeyBundle> keys;
  keys.reserve(genesis.validators.size());
  for (const GenesisValidator& validator : genesis.validators) keys.push_back(validator.keys);
  return keys;
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
    for (const GenesisValidator& validator : genesis.validators) {
      ordered_json item = ordered_json::object();
      item["keys"] = base::to_hex(codec::encode(validator.keys));
      if (validator.stake != 1) item["stake"] = validator.stake;  // 1 is the default
      validators.push_back(std::move(item));
    }
    document["validators"] = std::move(validators);
  }
  if (genesis.consensus != ConsensusRules{}) {  // written only when not the defaults
    ordered_json legs = ordered_json::object();
    for (const LegsField& field : kLegsFields) {
      ordered_json names = ordered_json::array();
      for (const crypto::Scheme scheme : genesis.consensus.*field.legs) names.push_back(crypto::scheme_name(scheme));
      legs[std::string(field.name)] = std::move(names);
    }
    ordered_json consensus = ordered_json::object();
    consensus["legs"] = std::move(legs);
    consensus["max_lane_gap"] = genesis.consensus.max_lane_gap;
    document["consensus"] = std::move(consensus);
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
