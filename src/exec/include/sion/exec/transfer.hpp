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

// What execution needs of a transaction that its bytes alone decide: a
// Pulse computes these for all its transactions in parallel before the
// state machine runs (docs/ledger.md, "Pulse execution").
struct TxPrecheck {
  Id tx_id{};                              // tx_id(payload)
  std::optional<crypto::Hash256> keys_id;  // bundle_id(keys); nullopt: malformed keys (step 2 rejects)
  PulseUsage usage;                        // tx_usage(tx)
  std::vector<Id> coin_ids;                // coin_id(tx_id, i) for every coin it may create
  std::optional<bool> signature_ok;        // step 4's verdict; nullopt: not checked yet
  bool operator==(const TxPrecheck&) const = default;
};

// The ids and usage of `tx`, its signature not checked.
TxPrecheck precheck_ids(const Transaction& tx);

// Applies `tx`, whose ids `precheck` holds (the caller's promise). A given
// signature verdict is used as is; nullopt verifies here. `usage` holds the
// Pulse's running totals and grows by the transaction's usage from step 3
// on. An error is a read failure of the pre-state (every read comes before
// the first write, so the overlay is then unchanged); the Pulse fails with
// it.
base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, const TxPrecheck& precheck,
                                        const ChainParams& params, PulseUsage& usage);
// As above with the ids computed here and the given verdict.
base::Result<Receipt> apply_transaction(Overlay& state, const Transaction& tx, std::optional<bool> signature_ok,
                                        const ChainParams& params, PulseUsage& usage);

}  // namespace sion::exec
