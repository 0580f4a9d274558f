#pragma once
// Read access to a state for execution, and an in-memory state that keeps
// its sparse Merkle tree in step with its objects (docs/ledger.md,
// "Pulse execution").

#include <cstdint>
#include <map>
#include <optional>
#include <span>

#include "sion/base/result.hpp"
#include "sion/commit/smt.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/state/object_store.hpp"

namespace sion::ledger {

// The pre-state of a Pulse: the object under an id, or nullopt. Errors are
// local failures (io_error, corrupt_store) that stop the Pulse.
class StateView {
 public:
  virtual ~StateView() = default;
  virtual base::Result<std::optional<state::Object>> get(const Id& id) const = 0;
};

// Objects in a std::map and their state tree, for tests, tools and
// stateless replay. The root equals what an ObjectStore holding the same
// objects reports.
class MemoryState final : public StateView {
 public:
  MemoryState() = default;
  // The state holding what `writes` set (deletions of absent ids are no-ops).
  static base::Result<MemoryState> from_writes(std::span<const state::ObjectWrite> writes);

  base::Result<std::optional<state::Object>> get(const Id& id) const override;

  // Applies writes (ids distinct, objects within state::kMaxObjectBytes);
  // returns the new root. On error nothing changes.
  base::Result<commit::Hash> apply(std::span<const state::ObjectWrite> writes);

  commit::Hash root() const noexcept { return tree_.root_hash(); }
  using Objects = std::map<Id, state::Object, commit::HashOrder>;
  const Objects& objects() const noexcept { return objects_; }
  // The state tree, for proofs (traced execution builds chunk witnesses from it).
  const commit::SparseMerkleTree& tree() const noexcept { return tree_; }

 private:
  Objects objects_;
  commit::SparseMerkleTree tree_;
};

// A StateView over the latest version of an object store.
class StoreView final : public StateView {
 public:
  explicit StoreView(const state::ObjectStore& store) noexcept : store_(store) {}
  base::Result<std::optional<state::Object>> get(const Id& id) const override { return store_.get(id); }

 private:
  const state::ObjectStore& store_;
};

}  // namespace sion::ledger
