// Delivery: committed blocks become Pulses, in order, once every batch they
// order is held (docs/consensus.md, "Flattening").

#include <algorithm>

#include "sion/consensus/core.hpp"

namespace sion::consensus {

void Core::deliver_ready() {
  while (!delivery_queue_.empty() && !halted_) {
    const Hash hash = delivery_queue_.front();
    const BlockEntry& entry = blocks_.at(hash);
    const Block& block = entry.proposal->block;
    std::vector<LaneState> lanes(anchor_.lanes.begin(), anchor_.lanes.end());
    std::vector<std::shared_ptr<const Batch>> batches;
    bool missing = false;
    for (const LaneTip& tip : block.tips) {
      const ValidatorIndex author = tip.header.author;
      LaneState& lane = lanes[author];
      lane.ordered = std::max(lane.ordered, tip.header.seq);
      if (tip.header.seq <= lane.seq) continue;
      // Walk the lane down from the tip to what is delivered.
      const Hash tip_digest = batch_digest(tip.header);
      std::vector<std::shared_ptr<const Batch>> chain;
      Hash at = tip_digest;
      bool broken = false;
      for (std::uint64_t seq = tip.header.seq; seq > lane.seq; --seq) {
        const auto it = batches_.find(at);
        if (it == batches_.end()) {
          std::vector<ValidatorIndex> sources;
          for (const ApprovalProof& proof : tip.approvals) sources.push_back(proof.approver);
          want_batch(at, sources, static_cast<std::uint32_t>(std::min<std::uint64_t>(seq - lane.seq - 1, 255)));
          missing = true;
          break;
        }
        const BatchHeader& h = it->second->header;
        if (h.author != author || h.seq != seq) {
          broken = true;
          break;
        }
        chain.push_back(it->second);
        at = h.parent;
      }
      // A tip whose lane does not lead back to what is delivered (its author
      // forked the lane) orders nothing; every validator decides alike.
      if (missing || broken || at != lane.digest) continue;
      batches.insert(batches.end(), chain.rbegin(), chain.rend());
      lane.seq = tip.header.seq;
      lane.digest = tip_digest;
    }
    if (missing) {
      prefetch_lanes(std::vector<LaneState>(anchor_.lanes.begin(), anchor_.lanes.end()));
      return;  // on_batch_response() resumes
    }

    CommitAction commit;
    commit.block = hash;
    commit.proposal = entry.proposal;
    commit.round = block.round;
    commit.time_ms = block.time_ms;
    commit.leader = block.author;
    anchor_.block = hash;
    anchor_.round = block.round;
    anchor_.time_ms = block.time_ms;
    anchor_.lanes.assign(lanes.begin(), lanes.end());
    if (!batches.empty()) commit.height = ++anchor_.height;
    commit.anchor = anchor_;
    note_committed_batches(batches);
    commit.batches = std::move(batches);
    actions_.emplace_back(std::move(commit));
    delivery_queue_.pop_front();
  }
}

void Core::note_committed_batches(const std::vector<std::shared_ptr<const Batch>>& batches) {
  for (const auto& batch : batches) {
    const Hash digest = batch_digest(batch->header);
    committed_batches_.emplace_back(anchor_.round, digest);
    delivered_digests_.insert(digest);
  }
  // Forget what the delivered lanes have passed.
  for (ValidatorIndex a = 0; a < validators_.size(); ++a) {
    const LaneState& lane = anchor_.lanes[a];
    auto& certified = certified_by_lane_[a];
    for (auto it = certified.begin(); it != certified.end() && it->first <= lane.ordered;) {
      certified_.erase(it->second);
      approvals_.erase(it->second);
      it = certified.erase(it);
    }
    auto& approved = approved_[a];
    approved.erase(approved.begin(), approved.upper_bound(lane.seq));
    // A batch that waited for this lane's new tip can be approved now.
    release_child(lane.digest);
  }
  // Delivered batches stay a while for peers that fetch them.
  while (!committed_batches_.empty() && committed_batches_.front().first + options_.retention_rounds < anchor_.round) {
    batches_.erase(committed_batches_.front().second);
    delivered_digests_.erase(committed_batches_.front().second);
    committed_batches_.pop_front();
  }
}

}  // namespace sion::consensus
