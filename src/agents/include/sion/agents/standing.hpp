#pragma once
// An agent as the transactions by it or about it read it from the state:
// its charter and allotment, and its standing under the overlays on its
// lineage (docs/agents.md, "Effective caveats").

#include <cstdint>
#include <optional>

#include "sion/agents/caveats.hpp"
#include "sion/agents/objects.hpp"
#include "sion/base/result.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/receipt.hpp"

namespace sion::agents {

struct AgentState {
  Id id{};
  Charter charter;
  Allotment allotment;
  std::uint64_t allotment_version = 0;  // as stored; a rewrite is this + 1
};

// The charter under `id` and its allotment; nullopt when no charter is
// there (an absent id, or an object of another type). An error is a read
// failure, a charter that does not decode, or a charter without its
// allotment (corrupt_store).
base::Result<std::optional<AgentState>> read_agent(const ledger::Overlay& state, const Id& id);

// Writes the agent's allotment back (version + 1), and keeps the new
// version in `agent`.
void write_allotment(ledger::Overlay& state, AgentState& agent);

// Where an agent stands at `height`: success with its effective caveats,
// or the first of agent_revoked, agent_suspended, agent_expired. Reads the
// overlays of the agent and of every agent ancestor.
struct Standing {
  ledger::TxStatus status = ledger::TxStatus::success;
  EffectiveCaveats caveats;
};
base::Result<Standing> read_standing(const ledger::Overlay& state, const AgentState& agent, std::uint64_t height);

// The restriction under the agent `id`'s overlay id, if any.
base::Result<std::optional<Restriction>> read_restriction(const ledger::Overlay& state, const Id& root, const Id& id);

}  // namespace sion::agents
