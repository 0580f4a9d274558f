#pragma once
// The objects of agents (docs/agents.md, "Objects"): charters, allotments,
// overlays (restrictions) and batches, and their form in the state.
// Consensus format.

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <variant>

#include "sion/agents/caveats.hpp"
#include "sion/agents/lineage.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/state/object_store.hpp"

namespace sion::agents {

// The agent signs its own transactions with the key bundle of this id.
struct Keyed {
  Id keys_id{};
  static constexpr std::string_view codec_name = "Keyed";
  static constexpr auto codec_fields() { return std::tuple{codec::field("keys_id", &Keyed::keys_id)}; }
  bool operator==(const Keyed&) const = default;
};

// The agent acts only as a member of batches this controller opens.
struct Keyless {
  Id controller{};
  static constexpr std::string_view codec_name = "Keyless";
  static constexpr auto codec_fields() { return std::tuple{codec::field("controller", &Keyless::controller)}; }
  bool operator==(const Keyless&) const = default;
};

using Authority = std::variant<Keyed, Keyless>;

// A cohort's members: the root of their sum tree, its total, its leaves.
struct CohortRoot {
  Id root{};
  Amount total = 0;
  std::uint32_t count = 0;
  static constexpr std::string_view codec_name = "CohortRoot";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("root", &CohortRoot::root), codec::field("total", &CohortRoot::total),
                      codec::field("count", &CohortRoot::count)};
  }
  bool operator==(const CohortRoot&) const = default;
};

// Written once, under lineage_id(lineage). With `cohort` it is a cohort
// node: its children are the cohort's members, and it never acts.
struct Charter {
  Lineage lineage;
  Authority authority;
  Caveats caveats;
  std::optional<CohortRoot> cohort;
  static constexpr std::string_view codec_name = "Charter";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("lineage", &Charter::lineage), codec::field("authority", &Charter::authority),
                      codec::field("caveats", &Charter::caveats), codec::field("cohort", &Charter::cohort)};
  }
  bool operator==(const Charter&) const = default;
};

// What the agent may spend, the nonce of its next transaction, and what it
// moved in period `period`.
struct Allotment {
  Amount balance = 0;
  std::uint64_t nonce = 0;
  std::uint64_t period = 0;
  Amount moved = 0;
  static constexpr std::string_view codec_name = "Allotment";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("balance", &Allotment::balance), codec::field("nonce", &Allotment::nonce),
                      codec::field("period", &Allotment::period), codec::field("moved", &Allotment::moved)};
  }
  bool operator==(const Allotment&) const = default;

  // What it moved in the period of `height` (period_length >= 1).
  Amount moved_at(std::uint64_t height, std::uint64_t period_length) const noexcept {
    return height / period_length == period ? moved : 0;
  }
};

// The restrictions ancestors put on an agent; each only ever restricts.
struct Restriction {
  bool revoked = false;
  std::uint64_t suspended_until = 0;  // suspended at heights <= this (0: never, height 0 is genesis)
  std::optional<Narrowing> narrowing;
  static constexpr std::string_view codec_name = "Restriction";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("revoked", &Restriction::revoked),
                      codec::field("suspended_until", &Restriction::suspended_until),
                      codec::field("narrowing", &Restriction::narrowing)};
  }
  bool operator==(const Restriction&) const = default;
};

// A batch of member transactions a controller signed once (OpenBatch).
struct AuthBatch {
  Id controller{};
  Id root{};
  std::uint32_t count = 0;
  std::uint64_t expiry_height = 0;
  static constexpr std::string_view codec_name = "AuthBatch";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("controller", &AuthBatch::controller), codec::field("root", &AuthBatch::root),
                      codec::field("count", &AuthBatch::count),
                      codec::field("expiry_height", &AuthBatch::expiry_height)};
  }
  bool operator==(const AuthBatch&) const = default;
};

// SHA3-256(0x4a || tx_id): where the batch OpenBatch `tx_id` opens lives.
Id batch_id(const Id& opening_tx_id) noexcept;

state::Object to_object(const Charter& charter, std::uint64_t version);
state::Object to_object(const Allotment& allotment, std::uint64_t version);
state::Object to_object(const Restriction& restriction, std::uint64_t version);
state::Object to_object(const AuthBatch& batch, std::uint64_t version);

// The reverse; another type, or bytes that do not decode: corrupt_store.
base::Result<Charter> charter_from(const state::Object& object);
base::Result<Allotment> allotment_from(const state::Object& object);
base::Result<Restriction> restriction_from(const state::Object& object);
base::Result<AuthBatch> batch_from(const state::Object& object);

}  // namespace sion::agents
