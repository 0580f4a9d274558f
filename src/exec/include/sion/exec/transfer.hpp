#pragma once
// Applying one transaction (docs/ledger.md, "Applying a transaction") to the
// state a Pulse has reached: its pre-state plus the writes of the
// transactions before it.

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/exec/fees.hpp"
#include "sion/exec/ledger.hpp"
#include "sion/exec/state_view.hpp"
#include "sion/state/object_store.hpp"

namespace sion::exec {

// The pre-state plus the writes made so far. Ordered maps only: the write
// set feeds the state root.
class Overlay {
 public:
  explicit Overlay(const StateView& pre) noexcept : pre_(pre) {}

  base::Result<std::optional<state::Object>> get(const Id& id) const;
  void put(const Id& id, state::Object object);
  void erase(const Id& id);

  // One write per touched id, sorted by id: the final value, or a deletion
  // if the id held an object in the pre-state. An object created and
  // deleted within the overlay leaves no trace.
  std::vector<state::ObjectWrite> write_set() const;

 private:
  struct Entry {
    std::optional<state::Object> object;
    bool in_pre = false;  // the pre-state held an object under this id
  };
  const StateView& pre_;
  std::map<Id, Entry> writes_;
  mutable std::set<Id> seen_in_pre_;  // ids whose pre-state read found an object
};

// Applies `tx`. `signature_ok` is the verdict of step 4 if already computed
// (a Pulse checks signatures in parallel beforehand: the check depends on
// the transaction alone); nullopt verifies here. `usage` holds the Pulse's running totals and grows
// by the transaction's usage from step 3 on. An error is a read failure of
// the pre-state (every read comes before the first write, so the overlay is
// then unchanged); the Pulse fails with it.
base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, std::optional<bool> signature_ok,
                                        const ChainParams& params, PulseUsage& usage);

}  // namespace sion::exec
