#pragma once
// The node's chain on disk (docs/ledger.md, "Pulses"; docs/state.md, "The
// node's chain"): every committed Pulse's header, body and receipts, an
// index of transaction ids, and the state, in one RocksDB store, except the
// bodies, which go to append-only body files (state::BlobFiles) and are
// synced before the batch naming them. One Pulse is one write batch
// (ObjectStore::apply with the chain's columns), so a killed process reopens
// at the last Pulse whose batch completed, with header, body, receipts,
// index and state in agreement; a body no batch named is cut on open.
//
// The headers also form an RFC 6962 log on SHA3-256 (commit::kLogSha3)
// whose entry h is pulse_hash(header h), the genesis header being entry 0:
// inclusion proofs of a header, consistency between two chain lengths. It
// is kept in memory and rebuilt from the stored headers on open.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/base/result.hpp"
#include "sion/commit/merkle_log.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/state/object_store.hpp"

namespace sion::node {

struct ChainStoreOptions {
  // Heights whose state stays provable (ObjectStore retain_versions).
  std::uint64_t retain_heights = 64;
  bool sync_writes = true;             // fsync each Pulse's batch
  base::Executor* executor = nullptr;  // state-tree hashing; must outlive the store
  // Test hook (fault injection): KvOptions::write_fault. Empty in production.
  std::function<base::Status()> write_fault = {};
  // Reads a stopped node's chain without changing it (KvOptions::read_only):
  // initialize and commit fail (invalid_argument), a folder without an
  // initialized chain is not_found, and one a running node has open is
  // refused (io_error, "... in use by another process ...").
  bool read_only = false;
};

struct TxLocation {
  std::uint64_t height = 0;
  std::uint32_t position = 0;  // in the Pulse's body
  bool operator==(const TxLocation&) const = default;
};

struct TxRecord {
  TxLocation location;
  exec::Receipt receipt;
};

class ChainStore {
 public:
  // Opens (or creates) the store in `directory`. An initialized store is
  // checked: headers linked by height and parent hash from the genesis
  // header, the log of them equal to the stored log head, and the state
  // root equal to the latest header's (corrupt_store otherwise).
  static base::Result<std::unique_ptr<ChainStore>> open(const std::string& directory,
                                                        const ChainStoreOptions& options = {});
  ~ChainStore();
  ChainStore(const ChainStore&) = delete;
  ChainStore& operator=(const ChainStore&) = delete;

  // Writes the genesis state and header (height 0) to an empty store. The
  // writes must give `genesis_root` (invalid_argument otherwise). On a store
  // already initialized with the same genesis root and params it does
  // nothing; with others it fails (invalid_value) naming both.
  base::Status initialize(std::span<const state::ObjectWrite> genesis, const commit::Hash& genesis_root,
                          const exec::ChainParams& params);
  bool initialized() const noexcept;

  // Stores a Pulse that check_pulse or propose_pulse accepted on the latest
  // state, with that outcome: header, body, receipts, index and state writes
  // in one synced batch; then appends its hash to the header log. A Pulse
  // not on the latest header, or an outcome not matching it, is
  // invalid_argument and writes nothing. A failed write (io_error) leaves
  // the store refusing every later commit with that error: memory may be
  // ahead of disk, and a node must stop rather than build on state it did
  // not persist.
  base::Status commit(const exec::Pulse& pulse, const exec::PulseOutcome& outcome);

  // The same in two steps, so that the body's write and sync need not be
  // inside a caller's lock: stage_body appends the next Pulse's body to the
  // body files (durable, but named by nothing until its commit; the next
  // open cuts it otherwise), and commit(pulse, outcome, staged) writes the
  // batch naming it. A failed append stops the store as a failed write does.
  struct StagedBody {
    commit::Hash pulse_hash{};  // the Pulse it was staged for
    base::Bytes body_ref;       // its BlobRef, encoded
  };
  base::Result<StagedBody> stage_body(const exec::Pulse& pulse);
  base::Status commit(const exec::Pulse& pulse, const exec::PulseOutcome& outcome, const StagedBody& staged);

  // The parameters and genesis header the store was initialized with.
  const exec::ChainParams& params() const noexcept;
  std::uint64_t height() const noexcept;  // the latest committed height (0: genesis only)
  exec::PulseHeader head() const;         // its header

  base::Result<exec::PulseHeader> header(std::uint64_t height) const;
  base::Result<std::vector<exec::Transaction>> body(std::uint64_t height) const;
  base::Result<std::vector<exec::Receipt>> receipts(std::uint64_t height) const;
  // nullopt if no committed Pulse holds the transaction.
  base::Result<std::optional<TxRecord>> find_transaction(const exec::Id& tx_id) const;

  // The header log: head at the latest height (size height() + 1), proofs.
  commit::TreeHead log_head() const;
  base::Result<commit::TreeHead> log_head(std::uint64_t size) const;
  base::Result<commit::InclusionProof> header_proof(std::uint64_t height, std::uint64_t log_size) const;
  base::Result<commit::ConsistencyProof> log_consistency(std::uint64_t first_size, std::uint64_t second_size) const;

  // State: an object with its proof at the latest height, and proofs and
  // roots at retained heights (the last retain_heights).
  base::Result<state::ProvenObject> get_with_proof(const exec::Id& id) const;
  base::Result<commit::StateProof> prove_at(const exec::Id& id, std::uint64_t height) const;
  base::Result<commit::Hash> state_root_at(std::uint64_t height) const;
  // The coins `owner` holds at the latest height, by coin id, with their
  // amounts: an index the store keeps beside the state (not consensus).
  base::Result<std::vector<std::pair<exec::Id, exec::Amount>>> coins_of(const exec::Id& owner) const;
  // The latest state, as execution reads it (exec::StorePreState).
  const state::ObjectStore& state() const noexcept;

 private:
  struct Impl;
  explicit ChainStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sion::node
