// Lanes: batches, approvals and certificates (docs/consensus.md, "Lanes").

#include <algorithm>

#include "sion/commit/batch_root.hpp"
#include "sion/consensus/core.hpp"

namespace sion::consensus {

namespace {

constexpr std::size_t kMaxWaitingBatches = 1024;
constexpr std::size_t kMaxUncertified = 1u << 16;

std::vector<base::ByteView> digest_views(const std::vector<Hash>& digests) {
  std::vector<base::ByteView> views;
  views.reserve(digests.size());
  for (const Hash& d : digests) views.emplace_back(d.data(), d.size());
  return views;
}

}  // namespace

bool Core::lane_has_room() const noexcept {
  if (halted_) return false;
  // While earlier batches await their certificates the next one waits and
  // grows: under load a lane makes fewer, larger batches, and the costs
  // paid per batch (approval sheets signed and checked, records synced)
  // are paid less often; a quiet lane is not slowed.
  return own_seq_ - anchor_.lanes[options_.self].seq < options_.max_own_pending &&
         own_uncertified() < options_.max_own_uncertified;
}

std::uint64_t Core::own_uncertified() const noexcept {
  const auto& certified = certified_by_lane_[options_.self];
  std::uint64_t last = anchor_.lanes[options_.self].seq;
  if (!certified.empty()) last = std::max(last, certified.rbegin()->first);
  return own_seq_ > last ? own_seq_ - last : 0;
}

base::Result<Hash> Core::submit_batch(base::Bytes payload, std::uint32_t item_count, std::uint64_t now_ms) {
  now_ = std::max(now_, now_ms);
  if (halted_) return base::fail(base::Errc::unsupported, "consensus has halted");
  if (!lane_has_room()) {
    return base::fail(base::Errc::unsupported, "lane full: " + std::to_string(options_.max_own_pending) +
                                                   " batches await delivery or " +
                                                   std::to_string(options_.max_own_uncertified) + " a certificate");
  }
  if (payload.size() > kMaxBatchPayloadBytes) {
    return base::fail(base::Errc::invalid_argument, "batch payload of " + std::to_string(payload.size()) +
                                                        " bytes exceeds " + std::to_string(kMaxBatchPayloadBytes));
  }
  Batch batch;
  batch.header.author = options_.self;
  batch.header.seq = own_seq_ + 1;
  batch.header.parent = own_tip_;
  batch.header.payload_hash = payload_hash(payload);
  batch.header.payload_bytes = static_cast<std::uint32_t>(payload.size());
  batch.header.item_count = item_count;
  batch.payload = std::move(payload);
  const base::Status saved = storage_.save_batch(batch);
  if (!saved) {
    halt("could not persist our batch " + std::to_string(batch.header.seq) + ": " + saved.error().to_string());
    return base::fail(saved.error());
  }
  const Hash digest = batch_digest(batch.header);
  own_seq_ = batch.header.seq;
  own_tip_ = digest;
  approved_[options_.self][own_seq_] = digest;
  auto shared = std::make_shared<const Batch>(std::move(batch));
  send(std::nullopt, BatchMessage{*shared});
  hold_batch(digest, shared);
  pending_approvals_.push_back(digest);
  if (flush_at_ == kNever) flush_at_ = now_ + options_.timing.approval_delay_ms;
  if (resend_at_ == kNever) resend_at_ = now_ + options_.timing.retry_ms;
  return digest;
}

bool Core::parent_in_lane(const BatchHeader& header) const {
  const LaneState& delivered = anchor_.lanes[header.author];
  if (header.seq == delivered.seq + 1) return header.parent == delivered.digest;
  const auto it = approved_[header.author].find(header.seq - 1);
  return it != approved_[header.author].end() && it->second == header.parent;
}

void Core::hold_batch(const Hash& digest, std::shared_ptr<const Batch> batch) {
  batches_[digest] = std::move(batch);
  try_certify(digest);
}

void Core::on_batch(ValidatorIndex from, Batch&& batch) {
  const BatchHeader& h = batch.header;
  // Only the author pushes its batch; anyone may relay it in a BatchResponse.
  if (h.author != from || h.seq == 0 || batch.payload.size() != h.payload_bytes) {
    ++stats_.rejected;
    return;
  }
  // Only batches within reach of what is delivered: a faulty author cannot
  // make us check, store and keep an endless lane.
  const LaneState& delivered = anchor_.lanes[h.author];
  if (h.seq <= delivered.seq || h.seq > delivered.seq + options_.max_lane_gap) return;
  const Hash digest = batch_digest(h);
  // One approval per place in a lane: an author that forks its lane gets
  // at most one branch approved by us.
  if (const auto approved = approved_[h.author].find(h.seq); approved != approved_[h.author].end()) {
    // The author pushes again while it lacks our approval (lost, or signed
    // before a restart of ours): the same digest, whose payload we checked
    // then, is approved again.
    if (approved->second == digest) reapprove(digest);
    return;
  }
  if (batches_.contains(digest) || awaiting_check_.contains(digest) || refused_.contains(digest)) return;
  // The payload's hash last: it is the one costly check (megabytes), made
  // once per batch taken.
  if (payload_hash(batch.payload) != h.payload_hash) {
    ++stats_.rejected;
    return;
  }
  take_batch(digest, std::make_shared<const Batch>(std::move(batch)));
}

void Core::take_batch(const Hash& digest, std::shared_ptr<const Batch> batch) {
  if (!parent_in_lane(batch->header)) {
    if (waiting_for_parent_batch_.size() >= kMaxWaitingBatches) waiting_for_parent_batch_.clear();
    waiting_for_parent_batch_[batch->header.parent] = std::move(batch);
    return;
  }
  awaiting_check_.insert(digest);
  hold_batch(digest, batch);
  actions_.emplace_back(CheckBatchAction{digest, std::move(batch)});
}

void Core::on_batch_checked(const Hash& digest, bool valid, std::uint64_t now_ms) {
  if (halted_) return;
  now_ = std::max(now_, now_ms);
  if (awaiting_check_.erase(digest) == 0) return;
  const auto it = batches_.find(digest);
  if (it == batches_.end()) return;
  if (!valid) {
    // Remembered, so that the author resending it costs no second check.
    if (refused_.size() >= 4096) refused_.clear();
    refused_.insert(digest);
    if (!certified_.contains(digest)) batches_.erase(it);
    return;
  }
  approve(digest, it->second);
}

void Core::approve(const Hash& digest, const std::shared_ptr<const Batch>& batch) {
  const BatchHeader& h = batch->header;
  if (h.seq <= anchor_.lanes[h.author].seq || approved_[h.author].contains(h.seq) || !parent_in_lane(h)) return;
  const base::Status saved = storage_.save_batch(*batch);
  if (!saved) {
    halt("could not persist a batch before approving it: " + saved.error().to_string());
    return;
  }
  approved_[h.author][h.seq] = digest;
  pending_approvals_.push_back(digest);
  if (flush_at_ == kNever) flush_at_ = now_ + options_.timing.approval_delay_ms;
  // A batch that arrived before this one, its parent, can be approved now.
  release_child(digest);
}

void Core::reapprove(const Hash& digest) {
  if (certified_.contains(digest) ||
      std::find(pending_approvals_.begin(), pending_approvals_.end(), digest) != pending_approvals_.end()) {
    return;
  }
  pending_approvals_.push_back(digest);
  if (flush_at_ == kNever) flush_at_ = now_ + options_.timing.approval_delay_ms;
}

void Core::release_child(const Hash& parent) {
  const auto child = waiting_for_parent_batch_.find(parent);
  if (child == waiting_for_parent_batch_.end()) return;
  std::shared_ptr<const Batch> next = std::move(child->second);
  waiting_for_parent_batch_.erase(child);
  // Its payload was checked when it arrived; what else it waited on may
  // have changed since.
  const BatchHeader& h = next->header;
  if (h.seq <= anchor_.lanes[h.author].seq || approved_[h.author].contains(h.seq)) return;
  const Hash digest = batch_digest(h);
  if (batches_.contains(digest) || awaiting_check_.contains(digest) || refused_.contains(digest)) return;
  take_batch(digest, std::move(next));
}

void Core::flush_approvals() {
  flush_at_ = kNever;
  while (!pending_approvals_.empty() && !halted_) {
    // One sheet holds at most kMaxApprovalsPerSheet digests; more wait for the next.
    const std::size_t take = std::min(pending_approvals_.size(), kMaxApprovalsPerSheet);
    std::vector<Hash> digests(pending_approvals_.begin(),
                              pending_approvals_.begin() + static_cast<std::ptrdiff_t>(take));
    pending_approvals_.erase(pending_approvals_.begin(),
                             pending_approvals_.begin() + static_cast<std::ptrdiff_t>(take));
    sign_sheet(std::move(digests));
  }
}

void Core::sign_sheet(std::vector<Hash> digests) {
  ApprovalsMessage sheet;
  sheet.approver = options_.self;
  sheet.digests = std::move(digests);
  const std::vector<base::ByteView> views = digest_views(sheet.digests);
  const Hash root = commit::batch_root(views);
  auto signature =
      signer_.sign(SignedKind::approvals, approvals_signed(options_.chain_id, options_.self, views.size(), root));
  if (!signature) {
    halt("could not sign approvals: " + signature.error().to_string());
    return;
  }
  sheet.signature = std::move(*signature);
  send(std::nullopt, sheet);
  on_approvals(sheet, true);
}

void Core::on_approvals(const ApprovalsMessage& sheet, bool own) {
  if (!validators_.contains(sheet.approver) || sheet.digests.empty()) {
    ++stats_.rejected;
    return;
  }
  const std::vector<base::ByteView> views = digest_views(sheet.digests);
  const commit::BatchTree tree(views);
  const Hash root = tree.root();
  if (!own && !verify(sheet.approver, SignedKind::approvals,
                      approvals_signed(options_.chain_id, sheet.approver, views.size(), root), sheet.signature)) {
    return;
  }
  if (approvals_.size() > kMaxUncertified) {
    // Approvals of batches nobody delivered to us: drop them rather than grow.
    std::erase_if(approvals_, [this](const auto& entry) { return !batches_.contains(entry.first); });
  }
  for (std::size_t i = 0; i < sheet.digests.size(); ++i) {
    const Hash& digest = sheet.digests[i];
    if (certified_.contains(digest)) continue;
    auto inclusion = tree.prove(i);
    if (!inclusion) continue;
    add_approval(digest, ApprovalProof{sheet.approver, root, std::move(*inclusion), sheet.signature});
  }
}

void Core::add_approval(const Hash& digest, ApprovalProof proof) {
  Certifying& entry = approvals_[digest];
  if (entry.proofs.contains(proof.approver)) return;
  entry.stake += validators_.stake(proof.approver);
  const ValidatorIndex approver = proof.approver;
  entry.proofs.emplace(approver, std::move(proof));
  try_certify(digest);
}

void Core::try_certify(const Hash& digest) {
  if (certified_.contains(digest)) return;
  const auto entry = approvals_.find(digest);
  if (entry == approvals_.end() || entry->second.stake < validators_.availability()) return;
  const auto batch = batches_.find(digest);
  if (batch == batches_.end()) return;
  const BatchHeader& h = batch->second->header;
  if (h.seq <= anchor_.lanes[h.author].seq) return;
  LaneTip tip;
  tip.header = h;
  std::uint64_t stake = 0;
  for (const auto& [approver, proof] : entry->second.proofs) {  // ascending approvers
    tip.approvals.push_back(proof);
    stake += validators_.stake(approver);
    if (stake >= validators_.availability()) break;
  }
  certified_.emplace(digest, std::move(tip));
  certified_by_lane_[h.author][h.seq] = digest;
  approvals_.erase(entry);
  if (!proposed_ && validators_.leader(round_) == options_.self) schedule_proposal();
}

bool Core::check_approval(const Hash& digest, const ApprovalProof& proof) {
  if (!validators_.contains(proof.approver)) return false;
  const commit::TreeHead sheet{proof.inclusion.tree_size, proof.root};
  if (!commit::verify_batch_inclusion(base::ByteView(digest.data(), digest.size()), proof.inclusion, sheet)) {
    return false;
  }
  return verify(proof.approver, SignedKind::approvals,
                approvals_signed(options_.chain_id, proof.approver, sheet.size, sheet.root), proof.signature);
}

void Core::resend_own_batches() {
  resend_at_ = kNever;
  const std::uint64_t delivered = anchor_.lanes[options_.self].seq;
  if (own_seq_ <= delivered) return;
  for (std::uint64_t seq = delivered + 1; seq <= own_seq_; ++seq) {
    const auto it = approved_[options_.self].find(seq);
    if (it == approved_[options_.self].end() || certified_.contains(it->second)) continue;
    const auto batch = batches_.find(it->second);
    if (batch == batches_.end()) continue;
    const auto entry = approvals_.find(it->second);
    // Our own approval too may have been lost with a restart.
    if (entry == approvals_.end() || !entry->second.proofs.contains(options_.self)) reapprove(it->second);
    for (ValidatorIndex v = 0; v < validators_.size(); ++v) {
      if (v == options_.self || (entry != approvals_.end() && entry->second.proofs.contains(v))) continue;
      send(v, BatchMessage{*batch->second});
    }
  }
  resend_at_ = now_ + options_.timing.retry_ms;
}

std::vector<LaneTip> Core::select_tips(const Hash& parent) {
  std::vector<LaneTip> tips;
  const std::vector<std::uint64_t>& base = blocks_.at(parent).lane_tips;
  for (ValidatorIndex a = 0; a < validators_.size(); ++a) {
    const auto& lane = certified_by_lane_[a];
    // The highest certified batch within the gap above what is ordered.
    auto it = lane.upper_bound(base[a] + options_.max_lane_gap);
    if (it == lane.begin()) continue;
    --it;
    if (it->first <= base[a]) continue;
    tips.push_back(certified_.at(it->second));
  }
  return tips;
}

bool Core::check_tips(const Block& block, const Hash& parent) {
  const std::vector<std::uint64_t>& base = blocks_.at(parent).lane_tips;
  // One tip per lane, authors ascending (the stake is not what counts here).
  if (!validators_.ascending_stake(block.tips, [](const LaneTip& tip) { return tip.header.author; })) return false;
  for (const LaneTip& tip : block.tips) {
    const ValidatorIndex a = tip.header.author;
    if (tip.header.seq <= base[a] || tip.header.seq > base[a] + options_.max_lane_gap) return false;
    const auto stake =
        validators_.ascending_stake(tip.approvals, [](const ApprovalProof& proof) { return proof.approver; });
    if (!stake || *stake < validators_.availability()) return false;
    const Hash digest = batch_digest(tip.header);
    for (const ApprovalProof& proof : tip.approvals) {
      if (!check_approval(digest, proof)) return false;
    }
  }
  return true;
}

}  // namespace sion::consensus
