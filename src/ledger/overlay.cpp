#include "sion/ledger/overlay.hpp"

#include <utility>

namespace sion::ledger {

base::Result<const state::Object*> Overlay::find(const Id& id) const {
  auto it = entries_.find(id);
  if (it == entries_.end()) {
    SION_TRY(auto object, pre_.get(id));
    const bool held = object.has_value();
    it = entries_.emplace(id, Entry{std::move(object), held, false}).first;
  }
  return it->second.object ? &*it->second.object : nullptr;
}

base::Result<std::optional<state::Object>> Overlay::get(const Id& id) const {
  SION_TRY(const auto object, find(id));
  return object != nullptr ? std::optional<state::Object>{*object} : std::nullopt;
}

// Execution reads every id before it overwrites or deletes it, except the
// fresh coin ids it creates, so an id first met here held nothing in the
// pre-state wherever a deletion can follow.
void Overlay::put(const Id& id, state::Object object) {
  Entry& entry = entries_[id];
  entry.object = std::move(object);
  entry.written = true;
}

void Overlay::erase(const Id& id) {
  Entry& entry = entries_[id];
  entry.object.reset();
  entry.written = true;
}

std::vector<state::ObjectWrite> Overlay::write_set() const {
  std::vector<state::ObjectWrite> writes;
  writes.reserve(entries_.size());
  for (const auto& [id, entry] : entries_) {  // std::map: ascending ids
    if (entry.written && (entry.object || entry.in_pre)) writes.push_back({id, entry.object});
  }
  return writes;
}

base::Result<std::optional<Coin>> read_coin(const Overlay& state, const Id& id) {
  SION_TRY(const auto object, state.find(id));
  if (object == nullptr || object->type != static_cast<std::uint32_t>(ObjectType::coin)) {
    return std::optional<Coin>{};
  }
  SION_TRY(const auto coin, coin_from(*object));
  return std::optional<Coin>{coin};
}

}  // namespace sion::ledger
