#pragma once
// What a validator's consensus core keeps on disk (docs/consensus.md,
// "Safety state"), under DATA_DIR/consensus:
//
//   safety              the SafetyState encoding, replaced atomically and
//                       synced before any vote, timeout or proposal leaves
//   anchor              the Anchor encoding of the last block delivered and
//                       stored: written (synced) after the block's Pulse
//   batches/<digest>    the Batch encoding of every batch this validator
//                       authored or approved (synced before its approval
//                       leaves) and of the batches of delivered blocks
//   blocks/<hash>       the ProposalMessage encoding of every block this
//                       validator voted for or proposed (synced before the
//                       vote leaves) and of delivered blocks
//   evidence/<hash>     two conflicting messages of one validator
//
// Each file is replaced atomically and synced (base::replace_file).
// File names are lower-case hex. The core reaches it through
// consensus::Storage; the node writes what delivery produces and reads the
// Recovery a restarted core starts from.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/consensus/core.hpp"
#include "sion/node/consensus_records.hpp"

namespace sion::node {

class ConsensusStore final : public consensus::Storage {
 public:
  // Opens (creating as needed) the folder. `write_fault`, a test hook, runs
  // before every write and fails it when it fails.
  static base::Result<std::unique_ptr<ConsensusStore>> open(const std::string& directory,
                                                            std::function<base::Status()> write_fault = {});

  base::Status save_safety(const consensus::SafetyState& state) override;
  base::Status save_batch(const consensus::Batch& batch) override;
  base::Status save_block(const consensus::ProposalMessage& proposal) override;
  std::shared_ptr<const consensus::Batch> load_batch(const consensus::Hash& digest) override;
  std::shared_ptr<const consensus::ProposalMessage> load_block(const consensus::Hash& hash) override;

  // A delivered block, once the node has stored its Pulse (if any): its
  // batches, the block itself, then the anchor; each synced.
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

 private:
  ConsensusStore(std::string directory, std::function<base::Status()> write_fault)
      : directory_(std::move(directory)), write_fault_(std::move(write_fault)) {}
  base::Status write(const std::string& path, const base::Bytes& bytes);

  std::string directory_;
  std::function<base::Status()> write_fault_;
};

}  // namespace sion::node
