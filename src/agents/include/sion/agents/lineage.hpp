#pragma once
// An agent's place in the tree under its root account, and the ids derived
// from it (docs/agents.md, "Lineage" and "Objects"). Consensus format.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/ledger/objects.hpp"

namespace sion::agents {

using ledger::Amount;
using ledger::Id;

// The deepest an agent may be: 16 child indices below its root account.
inline constexpr std::size_t kMaxDepth = 16;

struct Lineage {
  Id root{};                                   // the root account's id
  codec::List<std::uint32_t, kMaxDepth> path;  // child indices from the root down
  static constexpr std::string_view codec_name = "Lineage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("root", &Lineage::root), codec::field("path", &Lineage::path)};
  }
  std::size_t depth() const noexcept { return path.size(); }
  bool operator==(const Lineage&) const = default;
};

// SHA3-256(0x46 || encode(lineage)): the agent's id.
Id lineage_id(const Lineage& lineage);
// SHA3-256(0x47 || agent id): where the agent's allotment is stored.
Id allotment_id(const Id& agent) noexcept;
// Where the overlay of `agent`, below the account `root`, is stored: the
// first 8 bytes of SHA3-256(0x48 || root), then bytes 8..31 of
// SHA3-256(0x48 || agent id). The overlays of one root's agents share a
// 64-bit prefix, so the proofs that a payer's and its ancestors' overlays
// are absent share their paths (docs/agents.md, "Objects").
Id overlay_id(const Id& root, const Id& agent) noexcept;

// The child with `index` below `parent`; nullopt past kMaxDepth.
std::optional<Lineage> child_lineage(const Lineage& parent, std::uint32_t index);
// The child with `index` below the account `root` (depth 1).
Lineage child_of_account(const Id& root, std::uint32_t index);

// The ids of the agents on the path down to `lineage`: depths 1 .. d, the
// agent itself last (hashed together in Keccak lanes).
std::vector<Id> agent_ids_on_path(const Lineage& lineage);

// Whether `ancestor` lies strictly above `descendant` (same root, a
// shorter path that is a prefix of the other's).
bool is_proper_ancestor(const Lineage& ancestor, const Lineage& descendant) noexcept;

}  // namespace sion::agents
