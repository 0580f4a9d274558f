#include "sion/consensus/core.hpp"

#include <algorithm>

namespace sion::consensus {

Core::Core(CoreOptions options, ValidatorSet validators, Signer& signer, Verifier& verifier, Storage& storage,
           Recovery recovery, std::uint64_t now_ms)
    : options_(std::move(options)),
      validators_(std::move(validators)),
      signer_(signer),
      verifier_(verifier),
      storage_(storage),
      now_(now_ms) {
  const std::size_t n = validators_.size();
  approved_.resize(n);
  certified_by_lane_.resize(n);

  if (recovery.anchor) {
    anchor_ = *recovery.anchor;
  } else {
    anchor_.block = options_.genesis_block;
    anchor_.time_ms = options_.genesis_time_ms;
  }
  anchor_.lanes.resize(n);
  BlockEntry root{nullptr, Hash{}, anchor_.round, anchor_.time_ms, true, {}};
  for (const LaneState& lane : anchor_.lanes) root.lane_tips.push_back(lane.ordered);
  blocks_[anchor_.block] = std::move(root);
  ordered_block_ = anchor_.block;
  ordered_round_ = anchor_.round;

  high_qc_.round = 0;
  high_qc_.block = options_.genesis_block;
  if (recovery.safety) {
    last_voted_round_ = recovery.safety->last_voted_round;
    if (recovery.safety->high_qc.round > 0) high_qc_ = recovery.safety->high_qc;
  }
  verified_qcs_.insert({high_qc_.round, high_qc_.block});

  own_seq_ = anchor_.lanes[options_.self].seq;
  own_tip_ = anchor_.lanes[options_.self].digest;
  // Saved batches: what we approved (so we never approve another digest at
  // the same place of a lane) and our own uncommitted lane.
  std::sort(recovery.batches.begin(), recovery.batches.end(),
            [](const Batch& a, const Batch& b) { return a.header.seq < b.header.seq; });
  for (Batch& batch : recovery.batches) {
    const BatchHeader& h = batch.header;
    if (!validators_.contains(h.author) || h.seq <= anchor_.lanes[h.author].seq) continue;
    const Hash digest = batch_digest(h);
    approved_[h.author][h.seq] = digest;
    if (h.author == options_.self && h.seq == own_seq_ + 1 && h.parent == own_tip_) {
      own_seq_ = h.seq;
      own_tip_ = digest;
    }
    batches_[digest] = std::make_shared<const Batch>(std::move(batch));
  }
  if (own_seq_ > anchor_.lanes[options_.self].seq) resend_at_ = now_;

  round_ = std::max(high_qc_.round + 1, round_);
  round_deadline_ = now_ + round_timeout();
  recover_blocks();
  schedule_proposal();
}

void Core::recover_blocks() {
  BlockResponse saved;  // newest first, as a peer would serve them
  for (Hash at = high_qc_.block; !blocks_.contains(at) && saved.blocks.size() < kMaxRequestItems;) {
    const std::shared_ptr<const ProposalMessage> proposal = storage_.load_block(at);
    if (!proposal || block_hash(proposal->block) != at) return;  // peers serve the rest
    saved.blocks.push_back(*proposal);
    at = proposal->block.qc.block;
  }
  // Checked again like a peer's: our own disk is not trusted more than a peer.
  if (!saved.blocks.empty()) on_block_response(options_.self, saved);
}

bool Core::persist_block(const Hash& hash) {
  const auto it = blocks_.find(hash);
  if (it == blocks_.end() || !it->second.proposal) return true;
  if (auto saved = storage_.save_block(*it->second.proposal); !saved) {
    halt("could not save a block before voting for it: " + saved.error().to_string());
    return false;
  }
  return true;
}

void Core::send(std::optional<ValidatorIndex> to, Message message) {
  actions_.emplace_back(SendAction{to, std::make_shared<const Message>(std::move(message))});
}

void Core::halt(std::string reason) {
  if (halted_) return;
  halted_ = true;
  actions_.emplace_back(HaltAction{std::move(reason)});
}

bool Core::persist_safety() {
  SafetyState state{last_voted_round_, high_qc_};
  const base::Status saved = storage_.save_safety(state);
  if (!saved) {
    halt("could not persist the safety state (last voted round " + std::to_string(last_voted_round_) +
         "): " + saved.error().to_string());
    return false;
  }
  return true;
}

std::uint64_t Core::round_timeout() const noexcept {
  std::uint64_t timeout = options_.timing.round_timeout_ms;
  for (std::uint32_t i = 0; i < timeouts_in_a_row_ && timeout < options_.timing.max_round_timeout_ms; ++i) timeout *= 2;
  return std::min(timeout, options_.timing.max_round_timeout_ms);
}

bool Core::verify(ValidatorIndex signer, SignedKind kind, const Hash& message, const Signature& signature) {
  // Repeated checks (a certificate repeating votes seen one by one) are the
  // Verifier's to cache: the node's keeps a crypto::VerifyCache.
  if (verifier_.verify(signer, kind, message, signature)) return true;
  ++stats_.rejected;
  return false;
}

bool Core::has_quorum(const codec::List<SignerSignature, kMaxValidators>& signatures) const {
  const auto stake = validators_.ascending_stake(signatures, [](const SignerSignature& s) { return s.signer; });
  return stake && *stake >= validators_.quorum();
}

codec::List<SignerSignature, kMaxValidators> Core::signatures_of(const Tally& tally) {
  codec::List<SignerSignature, kMaxValidators> out;
  for (const auto& [signer, signature] : tally.signatures)
    out.push_back(SignerSignature{signer, signature});  // ascending
  return out;
}

void Core::evidence(ValidatorIndex offender, std::string what, Message first, Message second) {
  actions_.emplace_back(EvidenceAction{offender, std::move(what), std::move(first), std::move(second)});
}

void Core::on_message(ValidatorIndex from, Message message, std::uint64_t now_ms) {
  if (halted_ || !validators_.contains(from)) return;
  now_ = std::max(now_, now_ms);
  std::visit(
      [&](auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, BatchMessage>) {
          on_batch(from, std::move(m.batch));
        } else if constexpr (std::is_same_v<M, ApprovalsMessage>) {
          on_approvals(m, false);
        } else if constexpr (std::is_same_v<M, ProposalMessage>) {
          on_proposal(from, std::make_shared<const ProposalMessage>(std::move(m)));
        } else if constexpr (std::is_same_v<M, VoteMessage>) {
          on_vote(m, false);
        } else if constexpr (std::is_same_v<M, TimeoutMessage>) {
          on_timeout(m, false);
        } else if constexpr (std::is_same_v<M, BlockRequest>) {
          on_block_request(from, m);
        } else if constexpr (std::is_same_v<M, BlockResponse>) {
          on_block_response(from, m);
        } else if constexpr (std::is_same_v<M, BatchRequest>) {
          on_batch_request(from, m);
        } else if constexpr (std::is_same_v<M, BatchResponse>) {
          on_batch_response(std::move(m));
        } else if constexpr (std::is_same_v<M, PulseVoteMessage>) {
          on_pulse_vote(from, m, false);
        } else if constexpr (std::is_same_v<M, PulseCertificate>) {
          on_pulse_certificate(m);
        }
      },
      message);
}

void Core::on_tick(std::uint64_t now_ms) {
  if (halted_) return;
  now_ = std::max(now_, now_ms);
  if (flush_at_ <= now_) flush_approvals();
  if (!timed_out_ && round_deadline_ <= now_) local_timeout();
  if (timed_out_ && timeout_resend_at_ <= now_ && own_timeout_) {
    // Timeouts are resent until the round changes: a lost one must not
    // leave the others one short of a certificate.
    send(std::nullopt, *own_timeout_);
    timeout_resend_at_ = now_ + options_.timing.round_timeout_ms;
  }
  if (propose_at_ <= now_) propose();
  if (resend_at_ <= now_) resend_own_batches();
  run_fetches();
}

std::string Core::describe() const {
  return "round " + std::to_string(round_) + (timed_out_ ? " (timed out)" : "") + ", wake in " +
         (next_wakeup() == kNever ? std::string("never") : std::to_string(next_wakeup() - now_)) + ", high qc " +
         std::to_string(high_qc_.round) + ", voted " + std::to_string(last_voted_round_) + ", ordered " +
         std::to_string(ordered_round_) + ", delivered round " + std::to_string(anchor_.round) + " height " +
         std::to_string(anchor_.height) + ", queued " + std::to_string(delivery_queue_.size()) + ", blocks " +
         std::to_string(blocks_.size()) + ", orphans " + std::to_string(orphans_.size()) + ", fetching " +
         std::to_string(block_fetches_.size()) + " blocks " + std::to_string(batch_fetches_.size()) +
         " batches, certified " + std::to_string(certified_.size()) + (halted_ ? ", halted" : "");
}

std::uint64_t Core::next_wakeup() const noexcept {
  if (halted_) return kNever;
  std::uint64_t at = std::min({flush_at_, propose_at_, resend_at_, timed_out_ ? timeout_resend_at_ : round_deadline_});
  for (const auto& [hash, fetch] : block_fetches_) at = std::min(at, fetch.next_at);
  for (const auto& [digest, fetch] : batch_fetches_) at = std::min(at, fetch.next_at);
  return at;
}

}  // namespace sion::consensus
