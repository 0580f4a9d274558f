#pragma once
// The consensus core: a deterministic state machine with no sockets, threads
// or clocks (docs/consensus.md). The node and the simulator drive it the
// same way: they hand it messages from authenticated peers, local events and
// the current time, call on_tick() once next_wakeup() has passed, and carry
// out the actions take_actions() returns, in order.
//
// It runs the three parts of the protocol:
//   lanes      each validator chains its batches; the others approve the
//              ones they hold and checked, one signed Merkle root per sheet
//              of approvals; approvals from a third of the stake certify;
//   ordering   a 2-chain HotStuff (Jolteon) over blocks that carry newly
//              certified lane tips: a block commits when its child is
//              certified in the next round; timeouts and timeout
//              certificates change the view;
//   execution  the node executes each committed Pulse and the core gathers
//              signed votes on (height, Pulse hash, state root) into a
//              Pulse certificate; a quorum certifying another root halts it.

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/consensus/messages.hpp"
#include "sion/consensus/signing.hpp"
#include "sion/consensus/validator_set.hpp"

namespace sion::consensus {

inline constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

struct Timing {
  std::uint64_t min_block_interval_ms = 10;    // a leader waits this long after its parent's time
  std::uint64_t idle_block_interval_ms = 500;  // ... or this long when it has nothing to order
  std::uint64_t round_timeout_ms = 1500;       // a round without progress times out, doubling up to the max
  std::uint64_t max_round_timeout_ms = 12000;
  std::uint64_t approval_delay_ms = 1;      // approvals wait this long to share one signed sheet
  std::uint64_t retry_ms = 250;             // fetches and unapproved own batches are resent this often
  std::uint64_t max_clock_drift_ms = 2000;  // a block's time may be at most this far ahead of ours
};

struct CoreOptions {
  Hash chain_id{};
  Hash genesis_block{};  // the hash the round-0 certificate names
  std::uint64_t genesis_time_ms = 0;
  ValidatorIndex self = 0;
  Timing timing;
  std::uint64_t max_lane_gap = 64;        // batches of one lane a block may newly order
  std::uint64_t max_own_pending = 16;     // own batches not yet committed
  std::uint64_t max_own_uncertified = 2;  // own batches not yet certified
  std::uint64_t retention_rounds = 4000;  // committed blocks and batches kept to serve peers that lag
  // Test only: vote again in a round already voted in, breaking a safety
  // rule on purpose; the simulator must catch it.
  bool unsafe_skip_round_check = false;
};

// What must be on disk before a vote or timeout leaves (docs/consensus.md,
// "Safety state").
struct SafetyState {
  Round last_voted_round = 0;
  QuorumCert high_qc;
  static constexpr std::string_view codec_name = "SafetyState";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("last_voted_round", &SafetyState::last_voted_round),
                      codec::field("high_qc", &SafetyState::high_qc)};
  }
  bool operator==(const SafetyState&) const = default;
};

// One lane as of a delivered block.
struct LaneState {
  std::uint64_t seq = 0;      // the last batch of the lane delivered, 0 for none
  Hash digest{};              // its digest, zero for none
  std::uint64_t ordered = 0;  // the highest tip seq any block up to here carried (>= seq)
  static constexpr std::string_view codec_name = "LaneState";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("seq", &LaneState::seq), codec::field("digest", &LaneState::digest),
                      codec::field("ordered", &LaneState::ordered)};
  }
  bool operator==(const LaneState&) const = default;
};

// The last block delivered: the node stores it with each Pulse and gives it
// back on restart.
struct Anchor {
  Hash block{};
  Round round = 0;
  std::uint64_t time_ms = 0;
  Height height = 0;  // Pulses delivered
  codec::List<LaneState, kMaxValidators> lanes;
  static constexpr std::string_view codec_name = "Anchor";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("block", &Anchor::block), codec::field("round", &Anchor::round),
                      codec::field("time_ms", &Anchor::time_ms), codec::field("height", &Anchor::height),
                      codec::field("lanes", &Anchor::lanes)};
  }
  bool operator==(const Anchor&) const = default;
};

// Where the core keeps what must survive a crash. What a call saved must be
// durable (fsync'd) before any action the core returns after it takes
// effect: a store may sync once per step, before the step's actions are
// performed. A failure halts the core.
class Storage {
 public:
  virtual ~Storage() = default;
  virtual base::Status save_safety(const SafetyState& state) = 0;
  // A batch this validator approves or authors, before the approval leaves.
  virtual base::Status save_batch(const Batch& batch) = 0;
  // A block this validator votes for or proposes, before the vote or the
  // proposal leaves: when every validator restarts at once, the certified
  // blocks above the last delivered one exist only here.
  virtual base::Status save_block(const ProposalMessage& proposal) = 0;
  // A batch saved earlier or delivered in a stored Pulse, to serve a peer
  // that fetches it after the core has let it go; null if not kept.
  virtual std::shared_ptr<const Batch> load_batch(const Hash& digest) = 0;
  // A block saved by save_block() or delivered (CommitAction::proposal) and
  // stored by the node, to serve a peer catching up from further back than
  // the core keeps, or the core itself after a restart; null if none.
  virtual std::shared_ptr<const ProposalMessage> load_block(const Hash& hash) = 0;
};

// What a restarted core starts from; default-constructed for a new chain.
struct Recovery {
  std::optional<SafetyState> safety;
  std::optional<Anchor> anchor;
  std::vector<Batch> batches;  // saved batches, any order
};

// ---- Actions ---------------------------------------------------------------

struct SendAction {
  std::optional<ValidatorIndex> to;  // absent: every other validator
  std::shared_ptr<const Message> message;
};

// The node checks the batch's items (decoding, signatures, budgets) and
// answers with on_batch_checked().
struct CheckBatchAction {
  Hash digest{};
  std::shared_ptr<const Batch> batch;
};

// A block committed and delivered, in order. A non-empty one is a Pulse: its
// batches in the flattening order (docs/consensus.md, "Flattening").
struct CommitAction {
  Hash block{};
  std::shared_ptr<const ProposalMessage> proposal;  // the block as proposed, to store and serve
  Round round = 0;
  std::uint64_t time_ms = 0;
  ValidatorIndex leader = 0;
  std::optional<Height> height;  // present when there are batches
  std::vector<std::shared_ptr<const Batch>> batches;
  Anchor anchor;  // after this block
};

struct PulseCertifiedAction {
  PulseCertificate certificate;
};

// Two signed messages of one validator that no honest validator would sign
// together.
struct EvidenceAction {
  ValidatorIndex offender = 0;
  std::string what;
  Message first;
  Message second;
};

struct HaltAction {
  std::string reason;
};

using Action =
    std::variant<SendAction, CheckBatchAction, CommitAction, PulseCertifiedAction, EvidenceAction, HaltAction>;

struct CoreStats {
  std::uint64_t proposals = 0;  // proposals this core made
  std::uint64_t votes = 0;      // votes it sent
  std::uint64_t timeouts = 0;   // rounds it timed out
  std::uint64_t rejected = 0;   // messages refused (bad signature, certificate or shape)
  std::uint64_t blocks_committed = 0;
  std::uint64_t blocks_fetched = 0;
  std::uint64_t batches_fetched = 0;
};

class Core {
 public:
  Core(CoreOptions options, ValidatorSet validators, Signer& signer, Verifier& verifier, Storage& storage,
       Recovery recovery, std::uint64_t now_ms);

  // A message from validator `from`, as the transport authenticated it.
  // Taken by value: a batch's payload (megabytes) moves into the core
  // rather than being copied.
  void on_message(ValidatorIndex from, Message message, std::uint64_t now_ms);
  void on_tick(std::uint64_t now_ms);
  // When on_tick() next has work; kNever for none.
  std::uint64_t next_wakeup() const noexcept;

  // A new batch for this validator's lane. Fails (unsupported) while
  // max_own_pending of its batches are undelivered or max_own_uncertified
  // uncertified, or when halted.
  base::Result<Hash> submit_batch(base::Bytes payload, std::uint32_t item_count, std::uint64_t now_ms);
  bool lane_has_room() const noexcept;
  // Own batches made but not yet certified (nor delivered).
  std::uint64_t own_uncertified() const noexcept;
  void on_batch_checked(const Hash& digest, bool valid, std::uint64_t now_ms);
  // Pulse `height` executed to `state_root`.
  void on_executed(Height height, const Hash& pulse, const Hash& state_root, std::uint64_t now_ms);

  std::vector<Action> take_actions() { return std::exchange(actions_, {}); }

  bool halted() const noexcept { return halted_; }
  Round round() const noexcept { return round_; }
  Round high_qc_round() const noexcept { return high_qc_.round; }
  Round last_voted_round() const noexcept { return last_voted_round_; }
  const Anchor& anchor() const noexcept { return anchor_; }
  const CoreStats& stats() const noexcept { return stats_; }
  const ValidatorSet& validators() const noexcept { return validators_; }
  // One line of internal state, for logs and failing tests.
  std::string describe() const;

 private:
  struct BlockEntry {
    std::shared_ptr<const ProposalMessage> proposal;  // null for the anchor
    Hash parent{};
    Round round = 0;
    std::uint64_t time_ms = 0;
    bool committed = false;
    std::vector<std::uint64_t> lane_tips;  // per lane, the highest tip seq of this block and its ancestors
  };
  struct Tally {
    std::map<ValidatorIndex, Signature> signatures;
    std::uint64_t stake = 0;
  };
  struct Certifying {
    std::map<ValidatorIndex, ApprovalProof> proofs;
    std::uint64_t stake = 0;
  };
  struct Fetch {
    std::uint64_t next_at = 0;
    std::uint32_t attempt = 0;
    std::vector<ValidatorIndex> sources;
    std::uint32_t ancestors = 0;  // batches only: how far down the lane to fetch with it
  };
  static codec::List<SignerSignature, kMaxValidators> signatures_of(const Tally& tally);
  struct PulseTally {
    std::map<PulseVoteBody, Tally> bodies;
    std::set<ValidatorIndex> voters;
  };

  // core.cpp
  void send(std::optional<ValidatorIndex> to, Message message);
  void halt(std::string reason);
  bool persist_safety();
  // Saves the block `hash` (known) before our vote or proposal for it leaves.
  bool persist_block(const Hash& hash);
  // After a restart: the blocks saved above the anchor, up to the highest
  // certified one, back in place.
  void recover_blocks();
  std::uint64_t round_timeout() const noexcept;
  bool verify(ValidatorIndex signer, SignedKind kind, const Hash& message, const Signature& signature);
  // Signers ascending, each a validator once, with a quorum of stake.
  bool has_quorum(const codec::List<SignerSignature, kMaxValidators>& signatures) const;
  void evidence(ValidatorIndex offender, std::string what, Message first, Message second);

  // lanes.cpp
  void on_batch(ValidatorIndex from, Batch&& batch);
  // A pushed batch whose payload matches its header: checked by the node
  // once its parent is in the lane, held until then.
  void take_batch(const Hash& digest, std::shared_ptr<const Batch> batch);
  bool parent_in_lane(const BatchHeader& header) const;
  void approve(const Hash& digest, const std::shared_ptr<const Batch>& batch);
  // Signs an approval again for a digest approved before (never another one).
  void reapprove(const Hash& digest);
  // A batch that waited for `parent` to be approved or delivered is looked at again.
  void release_child(const Hash& parent);
  void flush_approvals();
  void sign_sheet(std::vector<Hash> digests);
  void on_approvals(const ApprovalsMessage& message, bool own);
  void add_approval(const Hash& digest, ApprovalProof proof);
  void try_certify(const Hash& digest);
  bool check_approval(const Hash& digest, const ApprovalProof& proof);
  void resend_own_batches();
  std::vector<LaneTip> select_tips(const Hash& parent);
  bool check_tips(const Block& block, const Hash& parent);
  void hold_batch(const Hash& digest, std::shared_ptr<const Batch> batch);

  // ordering.cpp
  void on_proposal(ValidatorIndex from, const std::shared_ptr<const ProposalMessage>& proposal);
  void on_vote(const VoteMessage& vote, bool own);
  void on_timeout(const TimeoutMessage& timeout, bool own);
  bool verify_qc(const QuorumCert& qc);
  bool verify_tc(const TimeoutCert& tc);
  void process_qc(const QuorumCert& qc, ValidatorIndex source);
  void advance_round(Round round, std::optional<TimeoutCert> tc);
  void try_vote(const Block& block, const Hash& hash);
  void sign_vote(Round round, const Hash& hash);  // after the safety state is persisted
  void local_timeout();
  void schedule_proposal();
  bool has_work(const Hash& parent);
  void propose();
  void insert_block(const Hash& hash, std::shared_ptr<const ProposalMessage> proposal);
  void try_commit(const QuorumCert& qc, ValidatorIndex source);
  void commit_chain(const Hash& hash);
  void prune();

  // delivery.cpp
  void deliver_ready();
  void note_committed_batches(const std::vector<std::shared_ptr<const Batch>>& batches);

  // sync.cpp
  void want_block(const Hash& hash, ValidatorIndex source);
  void want_batch(const Hash& digest, const std::vector<ValidatorIndex>& sources, std::uint32_t ancestors);
  void prefetch_lanes(const std::vector<LaneState>& lanes);
  void on_block_request(ValidatorIndex from, const BlockRequest& request);
  void on_block_response(ValidatorIndex from, const BlockResponse& response);
  void on_batch_request(ValidatorIndex from, const BatchRequest& request);
  void on_batch_response(BatchResponse&& response);
  void run_fetches();

  // pulse_votes.cpp
  void on_pulse_vote(ValidatorIndex from, const PulseVoteMessage& vote, bool own);
  void on_pulse_certificate(const PulseCertificate& certificate);
  void check_pulse(Height height);

  CoreOptions options_;
  ValidatorSet validators_;
  Signer& signer_;
  Verifier& verifier_;
  Storage& storage_;
  std::uint64_t now_ = 0;
  bool halted_ = false;
  std::vector<Action> actions_;
  CoreStats stats_;

  // Lanes.
  std::map<Hash, std::shared_ptr<const Batch>, commit::HashOrder> batches_;
  std::vector<std::map<std::uint64_t, Hash>> approved_;  // per author: seq -> the digest we approved
  std::set<Hash, commit::HashOrder> awaiting_check_;
  std::set<Hash, commit::HashOrder> refused_;  // batches the node found invalid
  std::map<Hash, std::shared_ptr<const Batch>, commit::HashOrder> waiting_for_parent_batch_;  // by parent
  std::vector<Hash> pending_approvals_;
  std::uint64_t flush_at_ = kNever;
  std::map<Hash, Certifying, commit::HashOrder> approvals_;
  std::map<Hash, LaneTip, commit::HashOrder> certified_;
  std::vector<std::map<std::uint64_t, Hash>> certified_by_lane_;
  std::uint64_t own_seq_ = 0;
  Hash own_tip_{};
  std::uint64_t resend_at_ = kNever;
  std::deque<std::pair<Round, Hash>> committed_batches_;  // delivered, kept for peers until pruned
  std::set<Hash, commit::HashOrder> delivered_digests_;   // the same digests, to look up

  // Ordering.
  Round round_ = 1;
  Round last_voted_round_ = 0;
  QuorumCert high_qc_;
  std::optional<TimeoutCert> entry_tc_;  // the certificate that made us enter round_, if a timeout one
  std::uint32_t timeouts_in_a_row_ = 0;
  std::uint64_t round_deadline_ = kNever;
  bool timed_out_ = false;
  std::shared_ptr<const TimeoutMessage> own_timeout_;
  std::uint64_t timeout_resend_at_ = kNever;
  bool proposed_ = false;
  std::uint64_t propose_at_ = kNever;
  std::map<Hash, BlockEntry, commit::HashOrder> blocks_;
  std::map<Hash, std::vector<std::shared_ptr<const ProposalMessage>>, commit::HashOrder> orphans_;  // by parent
  std::map<std::pair<Round, Hash>, Tally> votes_;
  std::map<Round, std::map<ValidatorIndex, std::shared_ptr<const TimeoutMessage>>> timeouts_;
  std::map<std::pair<ValidatorIndex, Round>, std::shared_ptr<const ProposalMessage>> proposals_seen_;
  std::map<std::pair<ValidatorIndex, Round>, VoteMessage> votes_seen_;
  std::set<std::pair<Round, Hash>> verified_qcs_;
  Hash ordered_block_{};  // the last block committed by the ordering (delivered or not)
  Round ordered_round_ = 0;
  std::deque<Hash> delivery_queue_;
  std::uint64_t prune_counter_ = 0;

  // Delivery.
  Anchor anchor_;

  // Sync.
  std::map<Hash, Fetch, commit::HashOrder> block_fetches_;
  std::map<Hash, Fetch, commit::HashOrder> batch_fetches_;

  // Execution.
  std::map<Height, PulseVoteBody> executed_;
  std::map<Height, PulseTally> pulse_votes_;
  std::map<Height, PulseCertificate> pulse_certs_;
  std::set<Height> pulse_announced_;
};

}  // namespace sion::consensus
