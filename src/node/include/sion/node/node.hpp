#pragma once
// A validator node's core (docs/api.md; docs/architecture.md, "The node"):
// the chain on disk, the mempool, admission, and the pipeline every Pulse
// takes:
//
//   mempool -> proposal (propose_pulse) -> storage (ChainStore::commit)
//           -> mempool update -> announcement (events; the log head is
//              signed when a client asks for it)
//
// A proposer builds a Pulse with exec::propose_pulse and applies it through
// apply_pulse(); a follower (more validators come with consensus) checks a
// received Pulse with exec::check_pulse and applies it through the same
// apply_pulse(). Storage failure stops production: the node keeps serving
// reads and reports the error, and never builds on state it did not persist.
//
// Thread-safe: the HTTP threads, the admission workers and the producer
// call in concurrently. The chain is read under a shared lock and written
// under an exclusive one; the mempool has its own lock.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/verify_cache.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/node/chain_store.hpp"
#include "sion/node/consensus_records.hpp"
#include "sion/node/event_log.hpp"
#include "sion/node/prometheus.hpp"
#include "sion/node/tx_outcomes.hpp"
#include "sion/policy/tx_pool.hpp"

namespace sion::node {

// Where a node keeps its chain store (ChainStore): DATA_DIR/chain.
std::string chain_directory(const std::string& data_dir);

struct NodeOptions {
  std::string data_dir;
  exec::Genesis genesis;
  std::shared_ptr<const crypto::SigningBundle> validator;  // required; must be one of genesis.validators
  policy::MempoolPolicy policy;
  policy::PoolOptions pool;
  bool sync_writes = true;
  std::uint64_t retain_heights = 64;
  unsigned execution_threads = 0;  // signature checks of a Pulse; 0: one per core
  // Test hook (fault injection) passed to the chain store; empty in production.
  std::function<base::Status()> write_fault = {};
};

// What the API answers for a submitted transaction.
struct SubmitOutcome {
  policy::PolicyVerdict verdict;  // admitted, or why not
  exec::Id tx_id{};
  policy::PoolStatus status = policy::PoolStatus::pending;
};

// A signed head of the header log (docs/ledger.md, "Signed log heads").
struct SignedLogHead {
  commit::TreeHead head;
  crypto::SignatureBundle signature;
};

class Node {
 public:
  // Opens (or creates) the chain under options.data_dir, initialized from
  // the genesis on first start. invalid_argument when the validator's keys
  // are not among genesis.validators; the store's errors otherwise.
  static base::Result<std::unique_ptr<Node>> open(NodeOptions options);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // ---- Admission ----
  // Decodes, checks, verifies the signature bundle (through the verify
  // cache, on the calling thread) and pools a transaction.
  base::Result<SubmitOutcome> submit(base::ByteView encoded, std::uint64_t now_ms);
  // The same for a transaction already decoded (a batch's element).
  base::Result<SubmitOutcome> submit(exec::Transaction tx, std::uint64_t now_ms);

  // ---- The pipeline ----
  // Proposes a Pulse from the mempool at `now_ms` and applies it. nullopt
  // when the mempool had nothing to include (no Pulse: an empty interval
  // produces none, so an idle chain does not grow). Fails once storage has
  // failed, with that error.
  base::Result<std::optional<std::uint64_t>> produce(std::uint64_t now_ms);
  // Stores a Pulse that propose_pulse or check_pulse accepted on the latest
  // state, updates the mempool and announces it.
  base::Status apply_pulse(const exec::Pulse& pulse, const exec::PulseOutcome& outcome);
  // Builds the next Pulse from `candidates` in order (exec::propose_pulse:
  // those execution rejects are left out) at `time_ms` (raised to the
  // parent's), named as proposed by `proposer`, and applies it. Consensus
  // delivers the candidates; every validator builds the same Pulse.
  base::Result<exec::PulseHeader> build_and_apply(std::span<const exec::Transaction> candidates, std::uint64_t time_ms,
                                                  const exec::Id& proposer);

  // ---- Batching (a validator's lane, docs/consensus.md) ----
  // Pending transactions for this validator's next batch, within `limits`,
  // passing over those already in one of its batches: each one taken is
  // marked, and becomes selectable again `retry_after_ms` later if it has
  // not executed by then (its batch may never be ordered).
  std::vector<std::shared_ptr<const exec::Transaction>> take_for_batch(const ledger::PulseLimits& limits,
                                                                       std::uint64_t now_ms,
                                                                       std::uint64_t retry_after_ms);
  // Drops mempool transactions past their expiry, reporting each.
  void expire(std::uint64_t now_ms);

  // ---- Reads (every one consistent with one committed height) ----
  const ChainStore& chain() const noexcept { return *chain_; }
  std::shared_lock<std::shared_mutex> read_lock() const { return std::shared_lock(chain_mutex_); }
  const exec::Genesis& genesis() const noexcept { return options_.genesis; }
  const exec::Id& validator_id() const noexcept { return validator_id_; }
  SignedLogHead signed_log_head() const;

  struct TxView {
    enum class Kind { unknown, pooled, executed, removed } kind = Kind::unknown;
    policy::PoolStatus pool_status = policy::PoolStatus::pending;
    std::optional<TxRecord> record;    // executed
    std::optional<TxOutcome> outcome;  // removed
  };
  base::Result<TxView> transaction(const exec::Id& tx_id) const;

  struct MempoolView {
    std::uint64_t transactions = 0;
    std::uint64_t bytes = 0;
    std::uint64_t held = 0;
  };
  MempoolView mempool() const;
  // Refusals by code and removals by reason, for /metrics.
  std::vector<std::pair<std::string, std::uint64_t>> refusal_counts() const;
  std::vector<std::pair<std::string, std::uint64_t>> removal_counts() const;

  // A committed Pulse's published data (its extended square and trees),
  // recomputed from the stored body and kept for the most recent heights a
  // light client samples. not_found for a height without a Pulse.
  base::Result<std::shared_ptr<const exec::PublishedPulse>> published(std::uint64_t height) const;
  // Time between consecutive Pulses, for /metrics.
  void export_interval_histogram(PrometheusText& text) const;

  EventLog& events() noexcept { return events_; }
  crypto::VerifyCache& verify_cache() noexcept { return cache_; }
  base::Executor& executor() noexcept { return executor_; }
  ConsensusRecords& consensus() noexcept { return consensus_; }
  const ConsensusRecords& consensus() const noexcept { return consensus_; }
  // Stops production for a reason that is not the store's (consensus
  // halted): failure() reports it from now on.
  void stop_production(base::Error error);
  std::uint64_t executed_transactions() const noexcept { return executed_.load(); }
  // The storage failure that stopped production, if any.
  std::optional<base::Error> failure() const;

 private:
  explicit Node(NodeOptions options);
  base::Status fail_storage(base::Error error);
  // build_and_apply() under the produce lock.
  base::Result<exec::PulseHeader> build(std::span<const exec::Transaction> candidates, std::uint64_t time_ms,
                                        const exec::Id& proposer);
  void announce(const exec::Pulse& pulse, const std::vector<exec::Receipt>& receipts,
                const std::vector<policy::Removed>& removed);
  void report_removed(const std::vector<policy::Removed>& removed);
  void record_interval(std::uint64_t time_ms);

  NodeOptions options_;
  exec::Id validator_id_{};
  base::Executor executor_;
  crypto::VerifyCache cache_;
  mutable std::shared_mutex chain_mutex_;
  std::unique_ptr<ChainStore> chain_;
  mutable std::mutex pool_mutex_;
  std::unique_ptr<policy::TxPool> pool_;
  std::mutex produce_mutex_;  // one Pulse at a time
  TxOutcomes outcomes_;
  EventLog events_;
  mutable std::mutex head_mutex_;
  mutable std::optional<SignedLogHead> signed_head_;  // the last one asked for
  mutable std::mutex failure_mutex_;
  std::optional<base::Error> failure_;
  std::atomic<std::uint64_t> executed_{0};
  std::map<exec::Id, std::uint64_t> batched_;  // under pool_mutex_: in a batch of ours since (ms)
  ConsensusRecords consensus_;
  mutable std::mutex published_mutex_;
  mutable std::map<std::uint64_t, std::shared_ptr<const exec::PublishedPulse>> published_;  // a few recent
  mutable std::mutex interval_mutex_;
  std::uint64_t last_pulse_ms_ = 0;
  std::vector<std::uint64_t> interval_counts_;  // per kIntervalBoundsMs bucket, and one above
  std::uint64_t interval_sum_ms_ = 0;
};

}  // namespace sion::node
