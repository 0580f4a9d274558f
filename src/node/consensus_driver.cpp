#include "sion/node/consensus_driver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "sion/base/clock.hpp"
#include "sion/base/thread_name.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/node/batch_payload.hpp"
#include "sion/node/log.hpp"

namespace sion::node {
namespace {

using base::Errc;

// Events waiting for the consensus thread; past this, inbound messages are
// dropped (the protocol retries what matters) rather than queued without bound.
constexpr std::size_t kMaxInbox = 1 << 16;
// The consensus thread looks at least this often (status, a clock step).
constexpr std::uint64_t kMaxSleepMs = 100;

base::Result<consensus::LegPolicy> leg_policy(const exec::ConsensusRules& rules) {
  consensus::LegPolicy policy = consensus::LegPolicy::defaults();
  SION_TRY_STATUS(policy.set(consensus::SignedKind::proposal, rules.proposal_legs));
  SION_TRY_STATUS(policy.set(consensus::SignedKind::vote, rules.vote_legs));
  SION_TRY_STATUS(policy.set(consensus::SignedKind::timeout, rules.timeout_legs));
  SION_TRY_STATUS(policy.set(consensus::SignedKind::approvals, rules.approvals_legs));
  SION_TRY_STATUS(policy.set(consensus::SignedKind::pulse_vote, rules.pulse_vote_legs));
  return policy;
}

// A second proposal for the same round that no honest leader would sign
// next to `original`: the same block one millisecond later.
std::shared_ptr<const consensus::Message> conflicting_proposal(const consensus::ProposalMessage& original,
                                                               const consensus::Hash& chain_id,
                                                               consensus::Signer& signer) {
  consensus::ProposalMessage other = original;
  other.block.time_ms += 1;
  auto signature = signer.sign(consensus::SignedKind::proposal,
                               consensus::proposal_signed(chain_id, consensus::block_hash(other.block)));
  if (!signature) return nullptr;
  other.signature = std::move(signature).value();
  return std::make_shared<const consensus::Message>(std::move(other));
}

}  // namespace

std::string consensus_directory(const std::string& data_dir) { return data_dir + "/consensus"; }

base::Result<std::unique_ptr<ConsensusDriver>> ConsensusDriver::start(Node& node, std::string data_dir,
                                                                      ConsensusDriverOptions options) {
  std::unique_ptr<ConsensusDriver> driver(new ConsensusDriver(node, std::move(options)));
  ConsensusDriver& d = *driver;
  const exec::Genesis& genesis = node.genesis();
  SION_TRY(const consensus::LegPolicy policy, leg_policy(genesis.consensus));
  SION_TRY(d.signer_, consensus::BundleSigner::create(d.options_.profile, d.options_.seed, policy));
  const crypto::KeyBundle& own = d.signer_->public_bundle();
  const std::vector<crypto::KeyBundle> keys = exec::validator_keys(genesis);
  const auto self = std::find(keys.begin(), keys.end(), own);
  if (self == keys.end()) {
    return base::fail(Errc::invalid_argument, "the validator key is not one of the genesis file's validators");
  }
  d.self_ = static_cast<std::uint32_t>(self - keys.begin());
  std::vector<std::uint64_t> stakes;
  for (const exec::GenesisValidator& validator : genesis.validators) {
    stakes.push_back(validator.stake);
    d.validator_accounts_.push_back(exec::account_id(validator.keys));
  }
  SION_TRY(consensus::ValidatorSet validators, consensus::ValidatorSet::create(std::move(stakes)));
  SION_TRY(d.verifier_, consensus::BundleVerifier::create(keys, policy,
                                                          std::make_shared<crypto::VerifyCache>(std::size_t{1} << 14)));

  exec::PulseHeader genesis_header;
  std::uint64_t chain_height = 0;
  {
    auto lock = node.read_lock();
    SION_TRY(genesis_header, node.chain().header(0));
    chain_height = node.chain().height();
  }
  d.chain_id_ = exec::pulse_hash(genesis_header);

  SION_TRY(d.store_, ConsensusStore::open(consensus_directory(data_dir), d.options_.write_fault));
  SION_TRY(consensus::Recovery recovery, d.store_->recover());
  SION_TRY(std::vector<EvidenceRecord> evidence, d.store_->load_evidence());
  for (EvidenceRecord& record : evidence) node.consensus().add_evidence(std::move(record));
  const std::uint64_t delivered = recovery.anchor ? recovery.anchor->height : 0;
  if (chain_height < delivered) {
    return base::fail(Errc::corrupt_store,
                      fmt::format("the chain store ends at height {} but consensus delivered Pulses up to {}: the "
                                  "store lost Pulses it had acknowledged (restore the data folder or resync it)",
                                  chain_height, delivered));
  }

  consensus::CoreOptions core_options;
  core_options.chain_id = d.chain_id_;
  core_options.genesis_block = d.chain_id_;
  core_options.genesis_time_ms = genesis_header.time_ms;
  core_options.self = d.self_;
  core_options.timing = d.options_.timing;
  core_options.max_lane_gap = genesis.consensus.max_lane_gap;
  d.core_ = std::make_unique<consensus::Core>(core_options, std::move(validators), *d.signer_, *d.verifier_, *d.store_,
                                              std::move(recovery), base::unix_time_ms());

  net::TransportOptions transport;
  transport.self = d.self_;
  std::copy(d.chain_id_.begin(), d.chain_id_.end(), transport.chain_id.begin());
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    net::Peer peer;
    peer.keys = keys[i];
    if (const auto found = d.options_.peers.find(i); found != d.options_.peers.end() && i != d.self_) {
      peer.host = found->second.host;
      peer.port = found->second.port;
    }
    transport.peers.push_back(std::move(peer));
  }
  SION_TRY(crypto::SigningKey link_key,
           net::bundle_component_key(d.options_.profile, d.options_.seed, crypto::Scheme::ml_dsa_44));
  SION_TRY(transport.signer, net::mldsa_signer(std::make_shared<const crypto::SigningKey>(std::move(link_key))));
  transport.listen_address = d.options_.listen.host;
  transport.listen_port = d.options_.listen.port;
  // The seed has served its purpose: the signers hold their own keys.
  base::secure_wipe(d.options_.seed.data(), d.options_.seed.size());

  net::TransportHandlers handlers;
  handlers.on_frame = [raw = &d](std::uint32_t peer, base::Bytes payload) {
    auto message = consensus::decode_message(payload);
    if (!message) {
      component_logger("consensus")
          ->debug("validator {} sent a message that does not decode: {}", peer, message.error().to_string());
      return;
    }
    raw->post(Inbound{peer, std::move(message).value()});
  };
  handlers.on_log = [](std::string_view line) { component_logger("net")->info("{}", line); };
  d.transport_ = std::make_unique<net::Transport>(std::move(transport), std::move(handlers));
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    if (i != d.self_ && d.options_.link_delay.count() > 0) d.transport_->set_link_delay(i, d.options_.link_delay);
  }
  SION_TRY_STATUS_CONTEXT("consensus listen address " + to_string(d.options_.listen), d.transport_->start());
  component_logger("consensus")
      ->info("validator {} of {}, listening on {}:{}; chain at height {}, consensus delivered {}", d.self_, keys.size(),
             d.options_.listen.host, d.transport_->port(), chain_height, delivered);
  if (d.options_.equivocate) {
    component_logger("consensus")->warn("TEST HOOK: this validator equivocates as leader (testing.equivocate)");
  }

  d.apply_thread_ = std::thread([raw = &d] {
    base::name_this_thread("sion-apply");
    raw->run_applier();
  });
  d.check_thread_ = std::thread([raw = &d] {
    base::name_this_thread("sion-check");
    raw->run_checks();
  });
  d.consensus_thread_ = std::thread([raw = &d] {
    base::name_this_thread("sion-consensus");
    raw->run_consensus();
  });
  return driver;
}

ConsensusDriver::~ConsensusDriver() { stop(); }

void ConsensusDriver::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  checks_wake_.notify_all();
  commits_wake_.notify_all();
  // The transport first: no handler posts once it has stopped.
  if (transport_) transport_->stop();
  if (consensus_thread_.joinable()) consensus_thread_.join();
  if (check_thread_.joinable()) check_thread_.join();
  if (apply_thread_.joinable()) apply_thread_.join();
  // What the applier saved last (the anchor) need not wait for a restart's luck.
  if (store_) {
    if (auto synced = store_->sync(); !synced)
      component_logger("consensus")->error("could not sync the consensus records: {}", synced.error().to_string());
  }
}

void ConsensusDriver::post(Event event) {
  {
    std::lock_guard lock(mutex_);
    if (std::holds_alternative<Inbound>(event) && inbox_.size() >= kMaxInbox) {
      ++inbox_dropped_;
      return;
    }
    inbox_.push_back(std::move(event));
  }
  wake_.notify_one();
}

// ---- The consensus thread ------------------------------------------------------------------

void ConsensusDriver::run_consensus() {
  std::vector<Event> events;
  for (;;) {
    {
      const std::uint64_t now = base::unix_time_ms();
      std::uint64_t wake_at = std::min(core_->next_wakeup(), now + kMaxSleepMs);
      if (!halted_ && core_->lane_has_room() && node_.mempool().transactions > 0)
        wake_at = std::min(wake_at, std::max(next_batch_ms_, now));
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, std::chrono::milliseconds(wake_at > now ? wake_at - now : 0),
                     [this] { return stopping_ || !inbox_.empty(); });
      if (stopping_) return;
      events.swap(inbox_);
    }
    const std::uint64_t now = base::unix_time_ms();
    const auto began = std::chrono::steady_clock::now();
    const std::size_t handled = events.size();
    for (Event& event : events) handle(event, now);
    events.clear();
    const auto handled_at = std::chrono::steady_clock::now();
    if (!halted_) {
      if (core_->next_wakeup() <= now) core_->on_tick(now);
      const auto ticked_at = std::chrono::steady_clock::now();
      make_batch(now);
      const auto batched_at = std::chrono::steady_clock::now();
      std::vector<consensus::Action> actions = core_->take_actions();
      // What the step saved is durable before any of its messages leaves
      // (one sync for the whole step).
      if (auto synced = store_->sync(); !synced) {
        halt("could not make the consensus records durable: " + synced.error().to_string());
      } else {
        perform(std::move(actions), now);
      }
      const auto done = std::chrono::steady_clock::now();
      const auto ms = [](auto d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); };
      if (done - began > std::chrono::milliseconds(100)) {
        component_logger("consensus")
            ->warn("slow step: {} ms ({} events {} ms, tick {} ms, batch {} ms, actions {} ms)", ms(done - began),
                   handled, ms(handled_at - began), ms(ticked_at - handled_at), ms(batched_at - ticked_at),
                   ms(done - batched_at));
      }
    }
    publish_status();
  }
}

void ConsensusDriver::handle(Event& event, std::uint64_t now_ms) {
  if (auto* failed = std::get_if<Failed>(&event)) {
    halt(failed->reason);
    return;
  }
  if (halted_) return;
  if (auto* inbound = std::get_if<Inbound>(&event)) {
    core_->on_message(inbound->from, std::move(inbound->message), now_ms);
  } else if (auto* checked = std::get_if<Checked>(&event)) {
    if (!checked->valid) ++batches_refused_;
    core_->on_batch_checked(checked->digest, checked->valid, now_ms);
  } else if (auto* executed = std::get_if<Executed>(&event)) {
    core_->on_executed(executed->height, executed->pulse, executed->state_root, now_ms);
  }
}

void ConsensusDriver::make_batch(std::uint64_t now_ms) {
  if (now_ms < next_batch_ms_ || !core_->lane_has_room()) return;
  ledger::PulseLimits limits = node_.chain().params().limits;
  limits.max_transactions = std::min<std::uint32_t>(limits.max_transactions, options_.max_batch_transactions);
  limits.max_bytes = std::min<std::uint64_t>(limits.max_bytes, options_.max_batch_bytes);
  limits.max_auth_bytes = std::min<std::uint64_t>(limits.max_auth_bytes, options_.max_batch_bytes);
  const auto transactions = node_.take_for_batch(limits, now_ms, options_.rebatch_after_ms);
  if (transactions.empty()) return;
  next_batch_ms_ = now_ms + options_.batch_interval_ms;
  auto digest =
      core_->submit_batch(encode_batch_payload(transactions), static_cast<std::uint32_t>(transactions.size()), now_ms);
  if (!digest) {
    component_logger("consensus")->warn("could not make a batch: {}", digest.error().to_string());
    return;
  }
  ++batches_made_;
}

void ConsensusDriver::perform(std::vector<consensus::Action> actions, std::uint64_t now_ms) {
  const auto log = component_logger("consensus");
  for (consensus::Action& action : actions) {
    if (auto* send_action = std::get_if<consensus::SendAction>(&action)) {
      send(*send_action);
    } else if (auto* check = std::get_if<consensus::CheckBatchAction>(&action)) {
      {
        std::lock_guard lock(mutex_);
        checks_.push_back(std::move(*check));
      }
      checks_wake_.notify_one();
    } else if (auto* commit = std::get_if<consensus::CommitAction>(&action)) {
      {
        std::lock_guard lock(mutex_);
        commits_.push_back(std::move(*commit));
      }
      commits_wake_.notify_one();
    } else if (auto* certified = std::get_if<consensus::PulseCertifiedAction>(&action)) {
      const std::uint64_t height = certified->certificate.body.height;
      node_.consensus().add_certificate(std::move(certified->certificate));
      node::Event event;
      event.type = "certificate";
      event.data = fmt::format(R"({{"height":{}}})", height);
      node_.events().publish(std::move(event));
    } else if (auto* evidence = std::get_if<consensus::EvidenceAction>(&action)) {
      log->warn("evidence against validator {}: {}", evidence->offender, evidence->what);
      EvidenceRecord record{evidence->offender, std::move(evidence->what), std::move(evidence->first),
                            std::move(evidence->second), now_ms};
      if (auto saved = store_->save_evidence(record); !saved)
        log->error("could not store evidence: {}", saved.error().to_string());
      node_.consensus().add_evidence(std::move(record));
    } else if (auto* halted = std::get_if<consensus::HaltAction>(&action)) {
      halt(halted->reason);
      return;
    }
  }
}

void ConsensusDriver::send(const consensus::SendAction& action) {
  base::Bytes bytes = consensus::encode_message(*action.message);
  if (action.to) {
    transport_->send(*action.to, std::move(bytes));
    return;
  }
  const auto* proposal = std::get_if<consensus::ProposalMessage>(action.message.get());
  if (!options_.equivocate || proposal == nullptr) {
    transport_->broadcast(std::move(bytes));
    return;
  }
  // Test hook: both proposals to everyone, in opposite orders to the two
  // halves, so each honest validator sees both and votes for one.
  const auto other = conflicting_proposal(*proposal, chain_id_, *signer_);
  if (!other) {
    transport_->broadcast(std::move(bytes));
    return;
  }
  const base::Bytes other_bytes = consensus::encode_message(*other);
  for (std::uint32_t peer = 0; peer < validator_accounts_.size(); ++peer) {
    if (peer == self_) continue;
    const bool first = peer % 2 == 0;
    transport_->send(peer, first ? bytes : other_bytes);
    transport_->send(peer, first ? other_bytes : bytes);
  }
}

void ConsensusDriver::halt(const std::string& reason) {
  if (halted_) return;
  halted_ = true;
  component_logger("consensus")->critical("halted: {}", reason);
  node_.stop_production(base::Error{Errc::internal, "consensus halted: " + reason});
}

void ConsensusDriver::publish_status() {
  ConsensusStatus status;
  status.running = !halted_;
  status.self = self_;
  status.validators = static_cast<std::uint32_t>(validator_accounts_.size());
  status.round = core_->round();
  status.high_qc_round = core_->high_qc_round();
  status.last_voted_round = core_->last_voted_round();
  status.delivered_height = core_->anchor().height;
  status.connected = transport_->connected_peers();
  const consensus::CoreStats& stats = core_->stats();
  status.proposals = stats.proposals;
  status.votes = stats.votes;
  status.timeouts = stats.timeouts;
  status.rejected = stats.rejected;
  status.blocks_committed = stats.blocks_committed;
  status.batches_made = batches_made_;
  status.batches_refused = batches_refused_;
  {
    std::lock_guard lock(mutex_);
    status.inbox_dropped = inbox_dropped_;
  }
  if (halted_) {
    if (const auto failure = node_.failure()) status.halted = failure->reason;
  }
  node_.consensus().set_status(std::move(status));
}

// ---- Batch checks ----------------------------------------------------------------------------

void ConsensusDriver::run_checks() {
  for (;;) {
    consensus::CheckBatchAction check;
    {
      std::unique_lock lock(mutex_);
      checks_wake_.wait(lock, [this] { return stopping_ || !checks_.empty(); });
      if (stopping_) return;
      check = std::move(checks_.front());
      checks_.pop_front();
    }
    const base::Status status =
        check_batch(*check.batch, node_.chain().params(), &node_.executor(), &node_.verify_cache());
    if (!status) {
      component_logger("consensus")
          ->warn("refused batch {} of validator {}: {}", check.batch->header.seq, check.batch->header.author,
                 status.error().to_string());
    }
    post(Checked{check.digest, status.ok()});
  }
}

// ---- Execution of delivered Pulses -----------------------------------------------------------

void ConsensusDriver::run_applier() {
  for (;;) {
    consensus::CommitAction commit;
    {
      std::unique_lock lock(mutex_);
      // A delivered block is stored even when stopping: what consensus
      // delivered must reach the disk before the process ends.
      commits_wake_.wait(lock, [this] { return stopping_ || !commits_.empty(); });
      if (commits_.empty()) return;
      commit = std::move(commits_.front());
      commits_.pop_front();
    }
    std::optional<consensus::PulseVoteBody> executed;
    if (commit.height) {
      auto applied = apply(commit);
      if (!applied) {
        post(Failed{applied.error().to_string()});
        return;
      }
      executed = *applied;
    }
    if (auto saved = store_->save_delivered(commit); !saved) {
      post(Failed{"storing a delivered block: " + saved.error().to_string()});
      return;
    }
    if (executed) post(Executed{executed->height, executed->pulse, executed->state_root});
  }
}

base::Result<consensus::PulseVoteBody> ConsensusDriver::apply(const consensus::CommitAction& commit) {
  const consensus::Height height = *commit.height;
  std::uint64_t stored = 0;
  {
    auto lock = node_.read_lock();
    stored = node_.chain().height();
  }
  exec::PulseHeader header;
  if (height <= stored) {
    // Stored before a restart, whose anchor had not been written yet.
    auto lock = node_.read_lock();
    SION_TRY(header, node_.chain().header(height));
  } else if (height == stored + 1) {
    std::vector<exec::Transaction> candidates;
    for (const auto& batch : commit.batches) {
      SION_TRY_CONTEXT(BatchPayload payload,
                       fmt::format("delivered batch {} of validator {}", batch->header.seq, batch->header.author),
                       decode_batch_payload(batch->payload));
      for (exec::Transaction& tx : payload.transactions) candidates.push_back(std::move(tx));
    }
    SION_TRY_CONTEXT(header, fmt::format("executing Pulse {}", height),
                     node_.build_and_apply(candidates, commit.time_ms, validator_accounts_.at(commit.leader)));
    if (header.height != height) {
      return base::fail(Errc::internal, fmt::format("consensus delivered Pulse {} but the chain stored it at {}",
                                                    height, header.height));
    }
  } else {
    return base::fail(Errc::internal,
                      fmt::format("consensus delivered Pulse {} but the chain is at {}", height, stored));
  }
  return consensus::PulseVoteBody{height, exec::pulse_hash(header), header.state_root};
}

}  // namespace sion::node
