#pragma once
// What a validator's consensus core keeps on disk (docs/consensus.md,
// "Safety state"), under DATA_DIR/consensus:
//
//   log/NNNNNNNN.log    the records, appended (node::ConsensusLog): the
//                       safety state before any vote, timeout or proposal
//                       leaves; every batch this validator authored or
//                       approved, before its approval leaves; every block
//                       it voted for or proposed, before the vote leaves;
//                       the batches and block of each delivered block and
//                       the anchor, after the block's Pulse is stored
//   evidence/<hash>     two conflicting messages of one validator
//
// Appends are not synced one by one: the node calls sync() once per
// consensus step, before any of the step's messages leaves, which is the
// moment the core's durability rules name. Segments whose batches and blocks
// all fell out of the retention are removed. The core reaches the store
// through consensus::Storage; the node writes what delivery produces and
// reads the Recovery a restarted core starts from.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/consensus/core.hpp"
#include "sion/node/consensus_log.hpp"
#include "sion/node/consensus_records.hpp"

namespace sion::node {

// How much of what was delivered stays on disk for peers that lag behind.
struct ConsensusRetention {
  std::uint64_t batches_per_lane = 256;                   // the lane's last delivered batches
  std::uint64_t rounds = 4000;                            // blocks of the last rounds delivered
  std::uint64_t segment_bytes = std::uint64_t{64} << 20;  // a log segment's size before the next starts
};

class ConsensusStore final : public consensus::Storage {
 public:
  // Opens (creating as needed) the folder. `write_fault`, a test hook, runs
  // before every write and fails it when it fails.
  static base::Result<std::unique_ptr<ConsensusStore>> open(const std::string& directory,
                                                            std::function<base::Status()> write_fault = {},
                                                            ConsensusRetention retention = {});

  base::Status save_safety(const consensus::SafetyState& state) override;
  base::Status save_batch(const consensus::Batch& batch) override;
  base::Status save_block(const consensus::ProposalMessage& proposal) override;
  std::shared_ptr<const consensus::Batch> load_batch(const consensus::Hash& digest) override;
  std::shared_ptr<const consensus::ProposalMessage> load_block(const consensus::Hash& hash) override;

  // Makes every record saved so far durable: before the messages of the
  // consensus step that saved them leave.
  base::Status sync();

  // A delivered block, once the node has stored its Pulse (if any): its
  // batches, the block itself, then the anchor (durable at the next sync()).
  // Then removes what fell out of the retention.
  base::Status save_delivered(const consensus::CommitAction& commit);

  // Evidence of equivocation, kept until an operator removes the file
  // (evidence/<sha256 of the record>).
  base::Status save_evidence(const EvidenceRecord& record);
  // Every evidence record kept, oldest first.
  base::Result<std::vector<EvidenceRecord>> load_evidence() const;

  // What the core starts from: the safety state and anchor if saved, and the
  // saved batches above the anchor's lanes. corrupt_store for a record that
  // does not decode.
  base::Result<consensus::Recovery> recover() const;

  // The names of the one-file-per-record layout that came before the log,
  // whose files open() moves into it.
  struct BatchName {
    std::uint32_t author = 0;
    std::uint64_t seq = 0;
    consensus::Hash digest{};
  };
  struct BlockName {
    consensus::Round round = 0;
    consensus::Hash hash{};
  };
  static std::string batch_file_name(const BatchName& name);
  static std::optional<BatchName> parse_batch_name(std::string_view text);
  static std::string block_file_name(consensus::Round round, const consensus::Hash& hash);
  static std::optional<BlockName> parse_block_name(std::string_view text);

 private:
  enum class RecordKind : std::uint8_t { safety = 1, anchor = 2, batch = 3, block = 4 };
  // Where a batch or block record is, with its header's author and number
  // (a batch's seq, a block's round).
  struct IndexEntry {
    std::uint32_t author = 0;
    std::uint64_t number = 0;
    LogPlace place;
  };
  using Index = std::map<consensus::Hash, IndexEntry, commit::HashOrder>;
  ConsensusStore(std::string directory, std::function<base::Status()> write_fault, ConsensusRetention retention)
      : directory_(std::move(directory)), write_fault_(std::move(write_fault)), retention_(retention) {}
  static LogRecordHeader record_header(RecordKind kind);
  base::Status adopt_file_per_record_layout();
  // Appends one record, its body in parts (mutex_ held); a new segment gets
  // copies of the latest safety state and anchor.
  base::Result<LogPlace> append(RecordKind kind, std::uint32_t author, std::uint64_t number, const consensus::Hash& key,
                                std::span<const base::ByteView> body_parts, std::string_view what);
  base::Result<LogPlace> append(RecordKind kind, std::uint32_t author, std::uint64_t number, const consensus::Hash& key,
                                base::ByteView body, std::string_view what) {
    return append(kind, author, number, key, std::span<const base::ByteView>(&body, 1), what);
  }
  base::Status append_latest(RecordKind kind, base::Bytes body);
  // Indexes a record (mutex_ held), counting it live in its segment.
  void index(Index& index, const consensus::Hash& key, IndexEntry entry);
  // The body of an indexed record; nullopt if not indexed or unreadable.
  std::optional<base::Bytes> read_indexed(const Index& index, const consensus::Hash& key);
  base::Status prune(const consensus::Anchor& anchor);

  std::string directory_;
  std::function<base::Status()> write_fault_;
  ConsensusRetention retention_;
  std::unique_ptr<ConsensusLog> log_;
  // The consensus thread saves and loads while the node's applier saves
  // what was delivered.
  mutable std::mutex mutex_;
  Index batches_;
  Index blocks_;
  std::map<std::uint32_t, std::size_t> live_;  // batches and blocks indexed, by segment
  std::optional<base::Bytes> safety_;          // the latest of each, as saved
  std::optional<base::Bytes> anchor_;
  std::uint32_t segment_ = 0;  // the segment the last append went to
};

}  // namespace sion::node
