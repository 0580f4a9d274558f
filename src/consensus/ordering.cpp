// Ordering: proposals, votes, timeouts and the commit rule of 2-chain
// HotStuff (Jolteon) (docs/consensus.md, "Ordering").

#include <algorithm>

#include "sion/consensus/core.hpp"

namespace sion::consensus {

namespace {

// Votes and timeouts for rounds further ahead than this are dropped: a
// validator that far behind catches up through certificates instead.
constexpr Round kMaxRoundsAhead = 1000;

}  // namespace

bool Core::verify_qc(const QuorumCert& qc) {
  if (qc.round == 0) return qc.block == options_.genesis_block && qc.votes.empty();
  if (verified_qcs_.contains({qc.round, qc.block})) return true;
  if (!has_quorum(qc.votes)) return false;
  const Hash message = vote_signed(options_.chain_id, qc.round, qc.block);
  for (const SignerSignature& vote : qc.votes) {
    if (!verify(vote.signer, SignedKind::vote, message, vote.signature)) return false;
  }
  verified_qcs_.insert({qc.round, qc.block});
  return true;
}

bool Core::verify_tc(const TimeoutCert& tc) {
  const auto stake = validators_.ascending_stake(tc.timeouts, [](const TimeoutSignature& t) { return t.signer; });
  if (!stake || *stake < validators_.quorum()) return false;
  for (const TimeoutSignature& t : tc.timeouts) {
    if (!verify(t.signer, SignedKind::timeout, timeout_signed(options_.chain_id, tc.round, t.high_qc_round),
                t.signature)) {
      return false;
    }
  }
  return true;
}

void Core::process_qc(const QuorumCert& qc, ValidatorIndex source) {
  if (qc.round > high_qc_.round) high_qc_ = qc;
  advance_round(qc.round + 1, std::nullopt);
  try_commit(qc, source);
}

void Core::advance_round(Round round, std::optional<TimeoutCert> tc) {
  if (round <= round_) return;
  round_ = round;
  timeouts_in_a_row_ = tc ? timeouts_in_a_row_ + 1 : 0;
  entry_tc_ = std::move(tc);
  round_deadline_ = now_ + round_timeout();
  timed_out_ = false;
  own_timeout_.reset();
  timeout_resend_at_ = kNever;
  proposed_ = false;
  schedule_proposal();
  // Votes and timeouts of rounds we left can no longer change anything.
  votes_.erase(votes_.begin(), votes_.lower_bound({round_ - 1, Hash{}}));
  timeouts_.erase(timeouts_.begin(), timeouts_.lower_bound(round_ - 1));
}

void Core::on_proposal(ValidatorIndex from, const std::shared_ptr<const ProposalMessage>& proposal) {
  const Block& block = proposal->block;
  const Hash hash = block_hash(block);
  if (blocks_.contains(hash)) return;
  {
    if (block.round == 0 || block.author != validators_.leader(block.round) ||
        !verify(block.author, SignedKind::proposal, proposal_signed(options_.chain_id, hash), proposal->signature)) {
      ++stats_.rejected;
      return;
    }
    const auto [seen, fresh] = proposals_seen_.try_emplace({block.author, block.round}, proposal);
    if (!fresh && block_hash(seen->second->block) != hash) {
      evidence(block.author, "two proposals for round " + std::to_string(block.round), *seen->second, *proposal);
    }
    // Shape: a block extends the previous round's certificate, or a timeout
    // certificate of the previous round justifies the gap.
    const bool direct = !block.tc && block.qc.round + 1 == block.round;
    const bool after_timeout = block.tc && block.tc->round + 1 == block.round && block.qc.round + 1 < block.round;
    if ((!direct && !after_timeout) || !verify_qc(block.qc) || (block.tc && !verify_tc(*block.tc))) {
      ++stats_.rejected;
      return;
    }
    process_qc(block.qc, from);
    if (block.tc) advance_round(block.tc->round + 1, *block.tc);
  }
  const Hash& parent = block.qc.block;
  const auto parent_entry = blocks_.find(parent);
  if (parent_entry == blocks_.end()) {
    if (block.qc.round <= ordered_round_) return;  // would fork below what is committed
    if (orphans_.size() > 4096) orphans_.clear();
    auto& waiting = orphans_[parent];
    if (waiting.size() < 16) waiting.push_back(proposal);
    want_block(parent, from);
    return;
  }
  {
    if (block.time_ms <= parent_entry->second.time_ms || block.time_ms > now_ + options_.timing.max_clock_drift_ms ||
        !check_tips(block, parent)) {
      ++stats_.rejected;
      return;
    }
  }
  insert_block(hash, proposal);
  try_vote(block, hash);
}

void Core::insert_block(const Hash& hash, std::shared_ptr<const ProposalMessage> proposal) {
  const Block& block = proposal->block;
  const auto parent = blocks_.find(block.qc.block);
  if (parent == blocks_.end() || blocks_.contains(hash)) return;
  BlockEntry entry{proposal, block.qc.block, block.round, block.time_ms, false, parent->second.lane_tips};
  for (const LaneTip& tip : block.tips) {
    entry.lane_tips[tip.header.author] = std::max(entry.lane_tips[tip.header.author], tip.header.seq);
  }
  blocks_.emplace(hash, std::move(entry));
  block_fetches_.erase(hash);
  // What waited for this block: proposals extending it, a commit rule
  // whose certified block it is, our own proposal.
  const auto waiting = orphans_.find(hash);
  if (waiting != orphans_.end()) {
    const auto children = std::move(waiting->second);
    orphans_.erase(waiting);
    for (const auto& child : children) on_proposal(child->block.author, child);
  }
  try_commit(block.qc, block.author);
  try_commit(high_qc_, block.author);
  if (!proposed_ && propose_at_ == kNever) schedule_proposal();
}

void Core::try_vote(const Block& block, const Hash& hash) {
  if (halted_ || block.round != round_) return;
  if (block.round <= last_voted_round_ && !options_.unsafe_skip_round_check) return;
  // The lock: after a timeout certificate, vote only for a block whose
  // certificate is at least as high as every signer's highest one.
  if (block.tc && block.qc.round < block.tc->max_high_qc_round()) return;
  last_voted_round_ = std::max(last_voted_round_, block.round);
  if (!persist_safety() || !persist_block(hash)) return;
  sign_vote(block.round, hash);
}

void Core::sign_vote(Round round, const Hash& hash) {
  auto signature = signer_.sign(SignedKind::vote, vote_signed(options_.chain_id, round, hash));
  if (!signature) {
    halt("could not sign a vote: " + signature.error().to_string());
    return;
  }
  VoteMessage vote{round, hash, options_.self, std::move(*signature)};
  ++stats_.votes;
  send(std::nullopt, vote);
  on_vote(vote, true);
}

void Core::on_vote(const VoteMessage& vote, bool own) {
  // Votes far ahead of us cannot be for a round we will vote in soon; a
  // faulty validator must not fill memory with them.
  if (!validators_.contains(vote.voter) || vote.round <= high_qc_.round || vote.round > round_ + kMaxRoundsAhead) {
    return;
  }
  if (!own) {
    if (!verify(vote.voter, SignedKind::vote, vote_signed(options_.chain_id, vote.round, vote.block), vote.signature)) {
      return;
    }
    const auto [seen, fresh] = votes_seen_.try_emplace({vote.voter, vote.round}, vote);
    if (!fresh && seen->second.block != vote.block) {
      evidence(vote.voter, "two votes in round " + std::to_string(vote.round), seen->second, vote);
      return;
    }
  }
  Tally& tally = votes_[{vote.round, vote.block}];
  if (!tally.signatures.emplace(vote.voter, vote.signature).second) return;
  tally.stake += validators_.stake(vote.voter);
  if (tally.stake < validators_.quorum()) return;
  QuorumCert qc;
  qc.round = vote.round;
  qc.block = vote.block;
  qc.votes = signatures_of(tally);
  verified_qcs_.insert({qc.round, qc.block});
  votes_.erase({vote.round, vote.block});
  process_qc(qc, vote.voter);
}

void Core::local_timeout() {
  timed_out_ = true;
  ++stats_.timeouts;
  last_voted_round_ = std::max(last_voted_round_, round_);  // no vote in this round from now on
  if (!persist_safety()) return;
  auto signature = signer_.sign(SignedKind::timeout, timeout_signed(options_.chain_id, round_, high_qc_.round));
  if (!signature) {
    halt("could not sign a timeout: " + signature.error().to_string());
    return;
  }
  std::optional<TimeoutCert> last_tc;
  if (entry_tc_ && entry_tc_->round + 1 == round_) last_tc = entry_tc_;
  own_timeout_ = std::make_shared<const TimeoutMessage>(
      TimeoutMessage{round_, options_.self, high_qc_, std::move(*signature), std::move(last_tc)});
  timeout_resend_at_ = now_ + options_.timing.round_timeout_ms;
  send(std::nullopt, *own_timeout_);
  on_timeout(*own_timeout_, true);
}

void Core::on_timeout(const TimeoutMessage& timeout, bool own) {
  if (!validators_.contains(timeout.sender)) return;
  if (!own) {
    if (timeout.high_qc.round >= timeout.round || !verify_qc(timeout.high_qc) ||
        (timeout.last_tc && (timeout.last_tc->round + 1 != timeout.round || !verify_tc(*timeout.last_tc))) ||
        !verify(timeout.sender, SignedKind::timeout,
                timeout_signed(options_.chain_id, timeout.round, timeout.high_qc.round), timeout.signature)) {
      ++stats_.rejected;
      return;
    }
    process_qc(timeout.high_qc, timeout.sender);
    if (timeout.last_tc) advance_round(timeout.last_tc->round + 1, *timeout.last_tc);
  }
  if (timeout.round < round_ || timeout.round > round_ + kMaxRoundsAhead) return;
  auto& senders = timeouts_[timeout.round];
  if (!senders.emplace(timeout.sender, std::make_shared<const TimeoutMessage>(timeout)).second) return;
  std::uint64_t stake = 0;
  for (const auto& [sender, message] : senders) stake += validators_.stake(sender);
  // A third of the stake timing out a round we are in (or ahead of us):
  // join, so that a timeout certificate forms even if our timer is slower.
  if (stake >= validators_.availability() && !(timed_out_ && round_ == timeout.round)) {
    advance_round(timeout.round, std::nullopt);
    if (!timed_out_) local_timeout();
  }
  if (stake < validators_.quorum()) return;
  TimeoutCert tc;
  tc.round = timeout.round;
  for (const auto& [sender, message] : senders) {
    tc.timeouts.push_back(TimeoutSignature{sender, message->high_qc.round, message->signature});
  }
  advance_round(tc.round + 1, std::move(tc));
}

void Core::schedule_proposal() {
  propose_at_ = kNever;
  if (halted_ || proposed_ || validators_.leader(round_) != options_.self) return;
  const auto parent = blocks_.find(high_qc_.block);
  if (parent == blocks_.end()) {
    want_block(high_qc_.block, validators_.leader(high_qc_.round));
    return;
  }
  if (high_qc_.round + 1 < round_ && (!entry_tc_ || entry_tc_->round + 1 != round_)) return;
  const std::uint64_t wait =
      has_work(high_qc_.block) ? options_.timing.min_block_interval_ms : options_.timing.idle_block_interval_ms;
  propose_at_ = std::max(now_, parent->second.time_ms + wait);
}

bool Core::has_work(const Hash& parent) {
  if (!select_tips(parent).empty()) return true;
  // Tips in the last two blocks commit only once blocks follow them.
  Hash hash = parent;
  for (int depth = 0; depth < 2; ++depth) {
    const auto it = blocks_.find(hash);
    if (it == blocks_.end() || it->second.committed || !it->second.proposal) return false;
    if (!it->second.proposal->block.tips.empty()) return true;
    hash = it->second.parent;
  }
  return false;
}

void Core::propose() {
  propose_at_ = kNever;
  if (halted_ || proposed_ || validators_.leader(round_) != options_.self) return;
  // A leader votes for its own block, so a round it voted (or timed out) in
  // is one it may already have proposed in before a restart: never twice.
  if (round_ <= last_voted_round_) return;
  const auto parent = blocks_.find(high_qc_.block);
  if (parent == blocks_.end()) return;
  auto message = std::make_shared<ProposalMessage>();
  Block& block = message->block;
  block.round = round_;
  block.author = options_.self;
  block.time_ms = std::max(now_, parent->second.time_ms + 1);
  block.qc = high_qc_;
  if (high_qc_.round + 1 < round_) {
    if (!entry_tc_ || entry_tc_->round + 1 != round_) return;
    block.tc = entry_tc_;
  }
  for (LaneTip& tip : select_tips(high_qc_.block)) block.tips.push_back(std::move(tip));
  const Hash hash = block_hash(block);
  auto signature = signer_.sign(SignedKind::proposal, proposal_signed(options_.chain_id, hash));
  if (!signature) {
    halt("could not sign a proposal: " + signature.error().to_string());
    return;
  }
  message->signature = std::move(*signature);
  proposed_ = true;
  ++stats_.proposals;
  // The round is spent before the proposal leaves; our vote follows it.
  last_voted_round_ = round_;
  if (!persist_safety()) return;
  if (auto saved = storage_.save_block(*message); !saved) {
    halt("could not save our proposal: " + saved.error().to_string());
    return;
  }
  send(std::nullopt, *message);
  insert_block(hash, message);
  sign_vote(block.round, hash);
}

void Core::try_commit(const QuorumCert& qc, ValidatorIndex source) {
  // 2-chain rule: a certified block whose parent is certified in the round
  // just before it commits that parent and all its ancestors.
  if (qc.round <= ordered_round_ + 1) return;
  const auto certified = blocks_.find(qc.block);
  if (certified == blocks_.end()) {
    want_block(qc.block, source);
    return;
  }
  const BlockEntry& child = certified->second;
  if (!child.proposal) return;
  const QuorumCert& parent_qc = child.proposal->block.qc;
  if (parent_qc.round + 1 != child.round || parent_qc.round <= ordered_round_) return;
  commit_chain(parent_qc.block);
}

void Core::commit_chain(const Hash& hash) {
  std::vector<Hash> chain;
  for (Hash at = hash; at != ordered_block_;) {
    const auto it = blocks_.find(at);
    if (it == blocks_.end() || it->second.round <= ordered_round_) {
      // Not a descendant of what we committed: only conflicting quorums
      // could produce this, which needs more than a third of the stake faulty.
      halt("safety violation: a committed block does not extend the last committed block");
      return;
    }
    chain.push_back(at);
    at = it->second.parent;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    BlockEntry& entry = blocks_.at(*it);
    entry.committed = true;
    ordered_block_ = *it;
    ordered_round_ = entry.round;
    delivery_queue_.push_back(*it);
    ++stats_.blocks_committed;
  }
  deliver_ready();
  prune();
}

void Core::prune() {
  // Only below what is delivered: a queued block must stay until it is.
  if (anchor_.round <= options_.retention_rounds || ++prune_counter_ % 64 != 0) return;
  const Round floor = anchor_.round - options_.retention_rounds;
  std::erase_if(blocks_, [&](const auto& entry) {
    return entry.second.round < floor && entry.first != anchor_.block && entry.first != ordered_block_;
  });
  std::erase_if(proposals_seen_, [&](const auto& entry) { return entry.first.second < floor; });
  std::erase_if(votes_seen_, [&](const auto& entry) { return entry.first.second < floor; });
  std::erase_if(verified_qcs_, [&](const auto& entry) { return entry.first < floor && entry.first != high_qc_.round; });
  // Batches at or below a delivered lane position that were not delivered
  // (a forked or skipped branch) can never be needed again.
  std::erase_if(batches_, [&](const auto& entry) {
    const BatchHeader& h = entry.second->header;
    return h.seq <= anchor_.lanes[h.author].seq && !delivered_digests_.contains(entry.first);
  });
  std::erase_if(orphans_, [&](const auto& entry) {
    return entry.second.empty() || entry.second.front()->block.round < ordered_round_;
  });
}

}  // namespace sion::consensus
