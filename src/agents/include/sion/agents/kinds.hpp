#pragma once
// The transaction kinds of agents (docs/agents.md, "Kinds"): each a codec
// struct with the three functions sion/ledger/kind.hpp asks of a kind,
// found by argument-dependent lookup from exec's dispatch. An account
// pays a kind's fee with coins[0]; an agent pays it from its allotment at
// authorization (authorize.hpp) and lists no coins.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <variant>

#include "sion/agents/caveats.hpp"
#include "sion/agents/lineage.hpp"
#include "sion/agents/objects.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/sum_tree.hpp"
#include "sion/ledger/authorize.hpp"
#include "sion/ledger/kind.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/receipt.hpp"

namespace sion::agents {

inline constexpr std::size_t kMaxKindCoins = 64;
inline constexpr std::size_t kMaxMaterialized = 128;
using Coins = codec::List<Id, kMaxKindCoins>;

struct SpawnAgent {
  std::uint32_t index = 0;
  Authority authority;
  Caveats caveats;
  Amount allotment = 0;
  Coins coins;
  static constexpr std::string_view codec_name = "SpawnAgent";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("index", &SpawnAgent::index), codec::field("authority", &SpawnAgent::authority),
                      codec::field("caveats", &SpawnAgent::caveats), codec::field("allotment", &SpawnAgent::allotment),
                      codec::field("coins", &SpawnAgent::coins)};
  }
  bool operator==(const SpawnAgent&) const = default;
};

struct FundAgent {
  Id agent{};
  Amount amount = 0;
  Coins coins;
  static constexpr std::string_view codec_name = "FundAgent";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("agent", &FundAgent::agent), codec::field("amount", &FundAgent::amount),
                      codec::field("coins", &FundAgent::coins)};
  }
  bool operator==(const FundAgent&) const = default;
};

struct AgentPay {
  Id payee{};
  Amount amount = 0;
  static constexpr std::string_view codec_name = "AgentPay";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("payee", &AgentPay::payee), codec::field("amount", &AgentPay::amount)};
  }
  bool operator==(const AgentPay&) const = default;
};

struct OpenBatch {
  Id root{};
  std::uint32_t count = 0;
  std::uint64_t expiry_height = 0;
  Coins coins;
  static constexpr std::string_view codec_name = "OpenBatch";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("root", &OpenBatch::root), codec::field("count", &OpenBatch::count),
                      codec::field("expiry_height", &OpenBatch::expiry_height),
                      codec::field("coins", &OpenBatch::coins)};
  }
  bool operator==(const OpenBatch&) const = default;
};

struct SpawnCohort {
  std::uint32_t index = 0;
  Id controller{};
  Caveats caveats;  // the bound of every member's caveats
  CohortRoot members;
  Coins coins;
  static constexpr std::string_view codec_name = "SpawnCohort";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("index", &SpawnCohort::index), codec::field("controller", &SpawnCohort::controller),
                      codec::field("caveats", &SpawnCohort::caveats), codec::field("members", &SpawnCohort::members),
                      codec::field("coins", &SpawnCohort::coins)};
  }
  bool operator==(const SpawnCohort&) const = default;
};

struct CohortMember {
  std::uint32_t index = 0;
  Caveats caveats;
  Amount allotment = 0;
  commit::SumProof proof;
  static constexpr std::string_view codec_name = "CohortMember";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("index", &CohortMember::index), codec::field("caveats", &CohortMember::caveats),
                      codec::field("allotment", &CohortMember::allotment), codec::field("proof", &CohortMember::proof)};
  }
  bool operator==(const CohortMember&) const = default;
};

struct MaterializeAgents {
  Id cohort{};
  codec::List<CohortMember, kMaxMaterialized> members;
  Coins coins;
  static constexpr std::string_view codec_name = "MaterializeAgents";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("cohort", &MaterializeAgents::cohort),
                      codec::field("members", &MaterializeAgents::members),
                      codec::field("coins", &MaterializeAgents::coins)};
  }
  bool operator==(const MaterializeAgents&) const = default;
};

struct Revoke {
  static constexpr std::string_view codec_name = "Revoke";
  static constexpr auto codec_fields() { return std::tuple{}; }
  bool operator==(const Revoke&) const = default;
};
struct Suspend {
  std::uint64_t until_height = 0;
  static constexpr std::string_view codec_name = "Suspend";
  static constexpr auto codec_fields() { return std::tuple{codec::field("until_height", &Suspend::until_height)}; }
  bool operator==(const Suspend&) const = default;
};
struct Narrow {
  Narrowing narrowing;
  static constexpr std::string_view codec_name = "Narrow";
  static constexpr auto codec_fields() { return std::tuple{codec::field("narrowing", &Narrow::narrowing)}; }
  bool operator==(const Narrow&) const = default;
};
using RestrictAction = std::variant<Revoke, Suspend, Narrow>;

struct Restrict {
  Id target{};
  RestrictAction action;
  Coins coins;
  static constexpr std::string_view codec_name = "Restrict";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("target", &Restrict::target), codec::field("action", &Restrict::action),
                      codec::field("coins", &Restrict::coins)};
  }
  bool operator==(const Restrict&) const = default;
};

// coins[0] (nullopt for none; an agent's fee is not a coin), and one new
// id: coin_id(tx_id, 0) takes the change, the fee coin's rest, or an
// AgentPay's coin.
std::optional<Id> fee_coin(const SpawnAgent& body) noexcept;
std::optional<Id> fee_coin(const FundAgent& body) noexcept;
std::optional<Id> fee_coin(const AgentPay& body) noexcept;
std::optional<Id> fee_coin(const OpenBatch& body) noexcept;
std::optional<Id> fee_coin(const SpawnCohort& body) noexcept;
std::optional<Id> fee_coin(const MaterializeAgents& body) noexcept;
std::optional<Id> fee_coin(const Restrict& body) noexcept;
template <class Kind>
constexpr std::uint32_t max_created_objects(const Kind&) noexcept {
  return 1;
}

// Each kind's rules for an authorized transaction, in the order of
// docs/agents.md. An error is a read failure or a corrupt store.
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const SpawnAgent& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const FundAgent& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const AgentPay& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const OpenBatch& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const SpawnCohort& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const MaterializeAgents& body,
                                         const ledger::Authorized& tx, std::span<const Id> new_ids);
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const Restrict& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);

static_assert(ledger::TxKind<SpawnAgent> && ledger::TxKind<FundAgent> && ledger::TxKind<AgentPay> &&
              ledger::TxKind<OpenBatch> && ledger::TxKind<SpawnCohort> && ledger::TxKind<MaterializeAgents> &&
              ledger::TxKind<Restrict>);

// Whether agents may send a kind: these may; every other kind sent by an
// agent fails with action_not_allowed (an agent spends only through them).
template <class Kind>
inline constexpr bool kSentByAgents =
    std::is_same_v<Kind, SpawnAgent> || std::is_same_v<Kind, FundAgent> || std::is_same_v<Kind, AgentPay> ||
    std::is_same_v<Kind, OpenBatch> || std::is_same_v<Kind, SpawnCohort> || std::is_same_v<Kind, MaterializeAgents> ||
    std::is_same_v<Kind, Restrict>;

}  // namespace sion::agents
