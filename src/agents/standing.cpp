#include "sion/agents/standing.hpp"

#include <string>
#include <utility>

#include "sion/base/bytes.hpp"

namespace sion::agents {

using ledger::ObjectType;
using ledger::TxStatus;

base::Result<std::optional<AgentState>> read_agent(const ledger::Overlay& state, const Id& id) {
  SION_TRY(const auto object, state.find(id));
  if (object == nullptr || object->type != static_cast<std::uint32_t>(ObjectType::charter)) {
    return std::optional<AgentState>{};
  }
  AgentState agent;
  agent.id = id;
  SION_TRY(agent.charter, charter_from(*object));
  SION_TRY(const auto stored, state.find(allotment_id(id)));
  if (stored == nullptr) {
    return base::fail(base::Errc::corrupt_store, "agent " + base::to_hex(id) + " has a charter but no allotment");
  }
  SION_TRY(agent.allotment, allotment_from(*stored));
  agent.allotment_version = stored->version;
  return std::optional<AgentState>{std::move(agent)};
}

void write_allotment(ledger::Overlay& state, AgentState& agent) {
  agent.allotment_version += 1;
  state.put(allotment_id(agent.id), to_object(agent.allotment, agent.allotment_version));
}

base::Result<std::optional<Restriction>> read_restriction(const ledger::Overlay& state, const Id& root, const Id& id) {
  SION_TRY(const auto object, state.find(overlay_id(root, id)));
  if (object == nullptr) return std::optional<Restriction>{};
  SION_TRY(auto restriction, restriction_from(*object));
  return std::optional<Restriction>{std::move(restriction)};
}

base::Result<Standing> read_standing(const ledger::Overlay& state, const AgentState& agent, std::uint64_t height) {
  Standing standing;
  standing.caveats.charter = agent.charter.caveats;
  standing.caveats.root = agent.charter.lineage.root;
  // Every overlay is read (and so lands in a trace's witness) before any
  // decides: revocation outranks suspension wherever on the lineage each is.
  bool revoked = false;
  bool suspended = false;
  for (const Id& id : agent_ids_on_path(agent.charter.lineage)) {
    SION_TRY(const auto restriction, read_restriction(state, agent.charter.lineage.root, id));
    if (!restriction) continue;
    revoked = revoked || restriction->revoked;
    suspended = suspended || restriction->suspended_until >= height;
    if (restriction->narrowing) standing.caveats.narrowings.push_back(*restriction->narrowing);
  }
  if (revoked) {
    standing.status = TxStatus::agent_revoked;
  } else if (suspended) {
    standing.status = TxStatus::agent_suspended;
  } else if (height > standing.caveats.expiry_height()) {
    standing.status = TxStatus::agent_expired;
  }
  return standing;
}

}  // namespace sion::agents
