#pragma once
// What an agent may do: its caveats, the narrowings ancestors add later,
// and the rules that compare and combine them (docs/agents.md, "Caveats").
// Consensus format and rules: integers and sorted lists only.

#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/agents/lineage.hpp"
#include "sion/codec/codec.hpp"

namespace sion::agents {

inline constexpr std::size_t kMaxPayees = 16;

// Bits of Caveats::actions: which kinds an agent may send.
enum class Action : std::uint8_t {
  pay = 0x01,       // AgentPay
  spawn = 0x02,     // SpawnAgent
  cohort = 0x04,    // SpawnCohort
  control = 0x08,   // OpenBatch
  restrict = 0x10,  // Restrict of a descendant
  fund = 0x20,      // FundAgent
};
inline constexpr std::uint8_t kAllActions = 0x3f;

// Bits of payee_classes.
enum class PayeeClass : std::uint8_t {
  any = 0x01,   // every payee
  root = 0x02,  // the agent's lineage root account
};
inline constexpr std::uint8_t kAllPayeeClasses = 0x03;

constexpr bool has(std::uint8_t bits, Action action) noexcept {
  return (bits & static_cast<std::uint8_t>(action)) != 0;
}
constexpr bool has(std::uint8_t bits, PayeeClass c) noexcept { return (bits & static_cast<std::uint8_t>(c)) != 0; }

struct Caveats {
  std::uint64_t expiry_height = 0;     // may act in Pulses of height <= this
  Amount per_payment = 0;              // the most one payment may move
  Amount period_cap = 0;               // the most it may move per period
  std::uint64_t period_length = 1;     // Pulses per period, >= 1
  std::uint8_t actions = 0;            // bits of Action
  std::uint8_t payee_classes = 0;      // bits of PayeeClass
  codec::List<Id, kMaxPayees> payees;  // strictly ascending
  static constexpr std::string_view codec_name = "Caveats";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("expiry_height", &Caveats::expiry_height),
                      codec::field("per_payment", &Caveats::per_payment),
                      codec::field("period_cap", &Caveats::period_cap),
                      codec::field("period_length", &Caveats::period_length),
                      codec::field("actions", &Caveats::actions),
                      codec::field("payee_classes", &Caveats::payee_classes),
                      codec::field("payees", &Caveats::payees)};
  }
  bool operator==(const Caveats&) const = default;
};

// Caveats without period_length: what an ancestor's Restrict adds.
struct Narrowing {
  std::uint64_t expiry_height = 0;
  Amount per_payment = 0;
  Amount period_cap = 0;
  std::uint8_t actions = 0;
  std::uint8_t payee_classes = 0;
  codec::List<Id, kMaxPayees> payees;
  static constexpr std::string_view codec_name = "Narrowing";
  static constexpr auto codec_fields() {
    return std::tuple{
        codec::field("expiry_height", &Narrowing::expiry_height), codec::field("per_payment", &Narrowing::per_payment),
        codec::field("period_cap", &Narrowing::period_cap),       codec::field("actions", &Narrowing::actions),
        codec::field("payee_classes", &Narrowing::payee_classes), codec::field("payees", &Narrowing::payees)};
  }
  bool operator==(const Narrowing&) const = default;
};

// No unknown bits, payees strictly ascending, and (caveats) a period of at
// least one Pulse.
bool well_formed(const Caveats& caveats) noexcept;
bool well_formed(const Narrowing& narrowing) noexcept;

// Whether the payee rules of `rules` (Caveats or Narrowing) allow `payee`
// for an agent whose lineage root is `root`.
bool allows_payee(const Caveats& rules, const Id& payee, const Id& root) noexcept;
bool allows_payee(const Narrowing& rules, const Id& payee, const Id& root) noexcept;

// `child` within `bound` (docs/agents.md, "Within"): no later expiry, no
// higher cap, no shorter period, no action or payee `bound` lacks; for
// agents under `root`.
bool within(const Caveats& child, const Caveats& bound, const Id& root) noexcept;
bool within(const Caveats& child, const Narrowing& bound, const Id& root) noexcept;

// The narrowing that allows exactly what both allow, for a target under
// `root` (docs/agents.md, "meet").
Narrowing meet(const Narrowing& a, const Narrowing& b, const Id& root);

// An agent's charter caveats with the narrowings of the overlays on its
// lineage: every bound the minimum, actions the intersection, a payee
// allowed only when all allow it.
struct EffectiveCaveats {
  Caveats charter;
  std::vector<Narrowing> narrowings;
  Id root{};

  std::uint64_t expiry_height() const noexcept;
  Amount per_payment() const noexcept;
  Amount period_cap() const noexcept;
  std::uint8_t actions() const noexcept;
  bool allows_action(Action action) const noexcept { return has(actions(), action); }
  bool allows_payee(const Id& payee) const noexcept;
  // A child's caveats within these (within the charter's and every narrowing).
  bool admits(const Caveats& child) const noexcept;
};

}  // namespace sion::agents
