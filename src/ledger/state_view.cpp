#include "sion/ledger/state_view.hpp"

#include <string>
#include <vector>

namespace sion::ledger {

base::Result<MemoryState> MemoryState::from_writes(std::span<const state::ObjectWrite> writes) {
  MemoryState state;
  SION_TRY_STATUS(state.apply(writes));
  return state;
}

base::Result<std::optional<state::Object>> MemoryState::get(const Id& id) const {
  const auto it = objects_.find(id);
  if (it == objects_.end()) return std::optional<state::Object>{};
  return std::optional<state::Object>{it->second};
}

base::Result<commit::Hash> MemoryState::apply(std::span<const state::ObjectWrite> writes) {
  // Checked before the tree changes, as ObjectStore::apply does, so that an
  // invalid batch leaves the map and the tree in step.
  for (const auto& write : writes) {
    if (write.object && write.object->data.size() > state::kMaxObjectBytes) {
      return base::fail(base::Errc::invalid_argument,
                        "object of " + std::to_string(write.object->data.size()) + " bytes exceeds the maximum");
    }
  }
  const std::vector<commit::StateChange> changes = state::state_changes(writes);
  // One tree version per apply; the tree rejects duplicate ids.
  SION_TRY_STATUS(tree_.update(changes, tree_.version() + 1));
  for (const auto& write : writes) {
    if (write.object) {
      objects_.insert_or_assign(write.id, *write.object);
    } else {
      objects_.erase(write.id);
    }
  }
  return tree_.root_hash();
}

}  // namespace sion::ledger
