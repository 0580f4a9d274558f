#pragma once
// The state one transaction sees (docs/ledger.md, "Applying a
// transaction"): the Pulse's pre-state plus the writes of the transactions
// before it, whatever their kinds.

#include <map>
#include <optional>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/state/object_store.hpp"

namespace sion::ledger {

// The pre-state plus the writes made so far. Ordered maps only: the write
// set feeds the state root. Each id is read from the pre-state at most
// once; later reads come from the overlay.
class Overlay {
 public:
  explicit Overlay(const StateView& pre) noexcept : pre_(pre) {}

  // The object under `id`, or nullptr; valid until the next put or erase.
  base::Result<const state::Object*> find(const Id& id) const;
  // As find, a copy.
  base::Result<std::optional<state::Object>> get(const Id& id) const;
  void put(const Id& id, state::Object object);
  void erase(const Id& id);

  // One write per written id, sorted by id: the final value, or a deletion
  // if the id held an object in the pre-state. An object created and
  // deleted within the overlay leaves no trace.
  std::vector<state::ObjectWrite> write_set() const;

 private:
  struct Entry {
    std::optional<state::Object> object;  // the current value
    bool in_pre = false;                  // the pre-state held an object under this id
    bool written = false;                 // put or erased here, not only read
  };
  const StateView& pre_;
  mutable std::map<Id, Entry, commit::HashOrder> entries_;  // reads cached, writes made
};

// The coin under `id`; nullopt if there is none or the object is no coin.
// An error is a read failure, or a coin-typed object that does not decode
// (corrupt_store).
base::Result<std::optional<Coin>> read_coin(const Overlay& state, const Id& id);

}  // namespace sion::ledger
