#pragma once
// What a validator's consensus core keeps on disk (docs/consensus.md,
// "Safety state"), under DATA_DIR/consensus:
//
//   safety              the SafetyState encoding, replaced atomically and
//                       synced before any vote, timeout or proposal leaves
//   anchor              the Anchor encoding of the last block delivered and
//                       stored: written (synced) after the block's Pulse
//   batches/<author>-<seq>-<digest>
//                       the Batch encoding of every batch this validator
//                       authored or approved (synced before its approval
//                       leaves) and of the batches of delivered blocks
//   blocks/<round>-<hash>
//                       the ProposalMessage encoding of every block this
//                       validator voted for or proposed (synced before the
//                       vote leaves) and of delivered blocks
//   evidence/<hash>     two conflicting messages of one validator
//
// Each file is replaced atomically and synced (base::replace_file).
// Numbers in file names are zero-padded decimal (10 digits for an author,
// 20 for a seq or round), hashes lower-case hex; files of delivered batches
// and blocks beyond the retention are removed. The core reaches it through
// consensus::Storage; the node writes what delivery produces and reads the
// Recovery a restarted core starts from.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/consensus/core.hpp"
#include "sion/node/consensus_records.hpp"

namespace sion::node {

// How much of what was delivered stays on disk for peers that lag behind.
struct ConsensusRetention {
  std::uint64_t batches_per_lane = 256;  // the lane's last delivered batches
  std::uint64_t rounds = 4000;           // blocks of the last rounds delivered
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

  // A delivered block, once the node has stored its Pulse (if any): its
  // batches, the block itself, then the anchor; each synced. Then removes
  // what fell out of the retention.
  base::Status save_delivered(const consensus::CommitAction& commit);

  // Evidence of equivocation, kept until an operator removes the file
  // (evidence/<sha256 of the record>).
  base::Status save_evidence(const EvidenceRecord& record);
  // Every evidence record kept, oldest first.
  base::Result<std::vector<EvidenceRecord>> load_evidence() const;

  // What the core starts from: the safety state and anchor if saved, and the
  // saved batches above the anchor's lanes. corrupt_store for a file that
  // does not decode.
  base::Result<consensus::Recovery> recover() const;

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
  ConsensusStore(std::string directory, std::function<base::Status()> write_fault, ConsensusRetention retention)
      : directory_(std::move(directory)), write_fault_(std::move(write_fault)), retention_(retention) {}
  base::Status write(const std::string& path, const base::Bytes& bytes);
  void prune(const consensus::Anchor& anchor);

  std::string directory_;
  std::function<base::Status()> write_fault_;
  ConsensusRetention retention_;
  // What is on disk, by the file names: the consensus thread saves and
  // loads while the node's applier saves what was delivered.
  mutable std::mutex mutex_;
  std::map<consensus::Hash, BatchName, commit::HashOrder> batches_;
  std::map<consensus::Hash, consensus::Round, commit::HashOrder> blocks_;
};

}  // namespace sion::node
