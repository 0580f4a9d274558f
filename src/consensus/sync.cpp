// Fetching what a validator missed: blocks by hash (with ancestors) and
// batches by digest (docs/consensus.md, "Catch-up").

#include <algorithm>

#include "sion/consensus/core.hpp"

namespace sion::consensus {

namespace {

constexpr std::uint32_t kBlocksPerRequest = 32;
constexpr std::size_t kAttemptsPerSource = 8;
constexpr std::size_t kMaxResponseBytes = 8 * 1024 * 1024;

// `first` (when a peer), then every other validator but us, in index order.
std::vector<ValidatorIndex> sources_from(const std::vector<ValidatorIndex>& first, std::size_t validators,
                                         ValidatorIndex self) {
  std::vector<ValidatorIndex> sources;
  for (const ValidatorIndex v : first) {
    if (v != self && v < validators && std::find(sources.begin(), sources.end(), v) == sources.end()) {
      sources.push_back(v);
    }
  }
  for (ValidatorIndex v = 0; v < validators; ++v) {
    if (v != self && std::find(sources.begin(), sources.end(), v) == sources.end()) sources.push_back(v);
  }
  return sources;
}

}  // namespace

void Core::want_block(const Hash& hash, ValidatorIndex source) {
  if (blocks_.contains(hash)) return;
  const auto [it, fresh] = block_fetches_.try_emplace(hash);
  if (!fresh) return;
  it->second.next_at = now_;
  it->second.sources = sources_from({source}, validators_.size(), options_.self);
}

void Core::want_batch(const Hash& digest, const std::vector<ValidatorIndex>& sources, std::uint32_t ancestors) {
  if (batches_.contains(digest)) return;
  const auto [it, fresh] = batch_fetches_.try_emplace(digest);
  it->second.ancestors = std::max(it->second.ancestors, ancestors);
  if (!fresh) return;
  it->second.next_at = now_;
  it->second.sources = sources_from(sources, validators_.size(), options_.self);
}

void Core::run_fetches() {
  // A fetch every validator was asked for several times is given up; what
  // needs it asks again when it next sees the hash.
  const auto exhausted = [](const auto& entry) {
    return entry.second.attempt >= kAttemptsPerSource * entry.second.sources.size();
  };
  std::erase_if(block_fetches_, exhausted);
  std::erase_if(batch_fetches_, exhausted);
  for (auto& [hash, fetch] : block_fetches_) {
    if (fetch.next_at > now_ || fetch.sources.empty()) continue;
    send(fetch.sources[fetch.attempt % fetch.sources.size()], BlockRequest{hash, kBlocksPerRequest});
    ++fetch.attempt;
    fetch.next_at = now_ + options_.timing.retry_ms;
  }
  std::map<ValidatorIndex, BatchRequest> requests;
  for (auto& [digest, fetch] : batch_fetches_) {
    if (fetch.next_at > now_ || fetch.sources.empty()) continue;
    BatchRequest& request = requests[fetch.sources[fetch.attempt % fetch.sources.size()]];
    if (request.wants.size() >= kMaxRequestItems) continue;
    request.wants.push_back(BatchWant{digest, fetch.ancestors});
    ++fetch.attempt;
    fetch.next_at = now_ + options_.timing.retry_ms;
  }
  for (auto& [to, request] : requests) send(to, std::move(request));
}

void Core::on_block_request(ValidatorIndex from, const BlockRequest& request) {
  BlockResponse response;
  std::size_t bytes = 0;
  Hash at = request.hash;
  const std::uint32_t count = std::min(request.count, kBlocksPerRequest);
  while (response.blocks.size() < count) {
    // Recent blocks from memory, older ones from what the node stored.
    const auto it = blocks_.find(at);
    const std::shared_ptr<const ProposalMessage> proposal =
        it != blocks_.end() && it->second.proposal ? it->second.proposal : storage_.load_block(at);
    if (!proposal) break;
    bytes += codec::encoded_size(*proposal);
    if (bytes > kMaxResponseBytes && !response.blocks.empty()) break;
    response.blocks.push_back(*proposal);
    at = proposal->block.qc.block;
  }
  if (!response.blocks.empty()) send(from, std::move(response));
}

void Core::on_block_response(ValidatorIndex from, const BlockResponse& response) {
  // Oldest first, so that each block's parent is in place before it.
  for (auto it = response.blocks.rbegin(); it != response.blocks.rend(); ++it) {
    const Hash hash = block_hash(it->block);
    if (blocks_.contains(hash)) continue;
    ++stats_.blocks_fetched;
    // Checked like a proposal: signature, certificates, tips.
    on_proposal(from, std::make_shared<const ProposalMessage>(*it));
  }
}

void Core::on_batch_request(ValidatorIndex from, const BatchRequest& request) {
  BatchResponse response;
  std::size_t bytes = 0;
  for (const BatchWant& want : request.wants) {
    Hash at = want.digest;
    for (std::uint64_t k = 0; k <= want.ancestors; ++k) {
      const auto it = batches_.find(at);
      const std::shared_ptr<const Batch> batch = it != batches_.end() ? it->second : storage_.load_batch(at);
      if (!batch || response.batches.size() >= kMaxRequestItems) break;
      bytes += batch->payload.size();
      if (bytes > kMaxResponseBytes && !response.batches.empty()) break;
      response.batches.push_back(*batch);
      if (batch->header.seq <= 1) break;
      at = batch->header.parent;
    }
  }
  if (!response.batches.empty()) send(from, std::move(response));
}

void Core::on_batch_response(BatchResponse&& response) {
  // A batch is taken if we asked for it, or if it is the parent of one
  // taken just before: digests chain them, so both are authenticated.
  bool got = false;
  std::optional<Hash> expected_parent;
  for (Batch& batch : response.batches) {
    const Hash digest = batch_digest(batch.header);
    const bool asked = batch_fetches_.contains(digest) || (expected_parent && *expected_parent == digest);
    expected_parent.reset();
    if (!asked) continue;
    if (batch.payload.size() != batch.header.payload_bytes ||
        payload_hash(batch.payload) != batch.header.payload_hash) {
      ++stats_.rejected;  // the next attempt asks another validator
      continue;
    }
    batch_fetches_.erase(digest);
    expected_parent = batch.header.parent;
    if (batches_.contains(digest)) continue;
    ++stats_.batches_fetched;
    hold_batch(digest, std::make_shared<const Batch>(std::move(batch)));
    got = true;
  }
  if (got) deliver_ready();
}

void Core::prefetch_lanes(const std::vector<LaneState>& lanes) {
  // The highest tip of each lane among the queued blocks: fetching it with
  // its ancestors brings every batch the queue needs in that lane at once.
  std::map<ValidatorIndex, const LaneTip*> highest;
  for (const Hash& hash : delivery_queue_) {
    for (const LaneTip& tip : blocks_.at(hash).proposal->block.tips) {
      const LaneTip*& best = highest[tip.header.author];
      if (best == nullptr || tip.header.seq > best->header.seq) best = &tip;
    }
  }
  for (const auto& [author, tip] : highest) {
    if (tip->header.seq <= lanes[author].seq) continue;
    std::vector<ValidatorIndex> sources;
    for (const ApprovalProof& proof : tip->approvals) sources.push_back(proof.approver);
    const auto depth = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(tip->header.seq - lanes[author].seq - 1, kMaxRequestItems - 1));
    want_batch(batch_digest(tip->header), sources, depth);
  }
}

}  // namespace sion::consensus
