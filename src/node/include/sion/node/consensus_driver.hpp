#pragma once
// A validator's consensus (docs/consensus.md, "The node"): the consensus
// core driven over the transport, with the node's mempool, store and
// execution around it.
//
//   mempool -> batches of this validator's lane -> consensus (lanes,
//   ordering) -> delivered blocks -> Pulses built from their batches,
//   executed and stored -> Pulse votes -> Pulse certificates
//
// Threads, each with one job:
//   sion-net        the transport; frames are decoded into the inbox
//   sion-consensus  the core's only caller: the inbox, its timers, batching
//                   and the actions it returns
//   sion-check      checks peers' batches (signatures through the node's
//                   verify cache, split over its executor)
//   sion-apply      builds, executes and stores delivered Pulses in order,
//                   then what the core must find on restart
//
// A halt (the core's, or a store or execution failure) stops production:
// the node keeps serving reads and reports why (Node::failure()).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/consensus/bundle_signing.hpp"
#include "sion/consensus/core.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/net/transport.hpp"
#include "sion/node/config.hpp"
#include "sion/node/consensus_store.hpp"
#include "sion/node/node.hpp"

namespace sion::node {

// Where a node keeps its consensus store (ConsensusStore): DATA_DIR/consensus.
std::string consensus_directory(const std::string& data_dir);

struct ConsensusDriverOptions {
  consensus::Timing timing;
  HostPort listen{"127.0.0.1", 0};
  std::map<std::uint32_t, HostPort> peers;  // by validator index (genesis order); ourselves left out
  // The validator's secret, from its key file: the master seed the consensus
  // signer and the link key are derived from (crypto::SigningBundle::from_seed).
  crypto::Profile profile = crypto::Profile::dual;
  crypto::KeySeed seed{};
  // Batches of this validator's lane.
  std::uint32_t max_batch_transactions = 256;
  std::uint64_t max_batch_bytes = 2u << 20;
  std::uint64_t batch_interval_ms = 10;   // a batch is cut at most this often
  std::uint64_t rebatch_after_ms = 5000;  // a batched transaction not executed by then is batched again
  // ---- Test hooks (docs/node-config.md, "[testing]") ----
  bool equivocate = false;  // as leader, send two conflicting proposals
  std::chrono::milliseconds link_delay{0};
  std::function<base::Status()> write_fault = {};  // before every consensus store write
};

class ConsensusDriver {
 public:
  // Recovers the consensus store under the node's data_dir, starts the
  // transport (io_error naming the address it could not bind) and the
  // threads. invalid_argument for options that do not fit the genesis (a
  // key that is not a validator's, a leg policy its bundle cannot sign).
  static base::Result<std::unique_ptr<ConsensusDriver>> start(Node& node, std::string data_dir,
                                                              ConsensusDriverOptions options);
  ~ConsensusDriver();  // stop()
  ConsensusDriver(const ConsensusDriver&) = delete;
  ConsensusDriver& operator=(const ConsensusDriver&) = delete;

  // Stops the threads and the transport; a Pulse being stored is finished
  // first. Idempotent.
  void stop();

  std::uint16_t port() const noexcept { return transport_->port(); }
  std::uint32_t self() const noexcept { return self_; }
  net::Transport& transport() noexcept { return *transport_; }

 private:
  struct Inbound {
    std::uint32_t from = 0;
    consensus::Message message;
  };
  struct Checked {
    consensus::Hash digest{};
    bool valid = false;
  };
  struct Executed {
    consensus::Height height = 0;
    consensus::Hash pulse{};
    consensus::Hash state_root{};
  };
  struct Failed {
    std::string reason;
  };
  using Event = std::variant<Inbound, Checked, Executed, Failed>;

  ConsensusDriver(Node& node, ConsensusDriverOptions options) : node_(node), options_(std::move(options)) {}
  void post(Event event);
  void run_consensus();
  void run_checks();
  void run_applier();
  void handle(Event& event, std::uint64_t now_ms);
  void make_batch(std::uint64_t now_ms);
  void perform(std::vector<consensus::Action> actions, std::uint64_t now_ms);
  void send(const consensus::SendAction& action);
  void halt(const std::string& reason);
  void publish_status();
  base::Result<consensus::PulseVoteBody> apply(const consensus::CommitAction& commit);

  Node& node_;
  ConsensusDriverOptions options_;
  std::uint32_t self_ = 0;
  consensus::Hash chain_id_{};
  std::vector<exec::Id> validator_accounts_;
  std::unique_ptr<ConsensusStore> store_;
  std::unique_ptr<consensus::BundleSigner> signer_;
  std::unique_ptr<consensus::BundleVerifier> verifier_;
  std::unique_ptr<consensus::Core> core_;  // only sion-consensus touches it once started
  std::unique_ptr<net::Transport> transport_;
  bool halted_ = false;  // sion-consensus only
  std::uint64_t next_batch_ms_ = 0;
  std::uint64_t batches_made_ = 0;
  std::uint64_t batches_refused_ = 0;  // sion-consensus only (from Checked events)

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<Event> inbox_;
  std::uint64_t inbox_dropped_ = 0;
  std::deque<consensus::CheckBatchAction> checks_;
  std::condition_variable checks_wake_;
  std::deque<consensus::CommitAction> commits_;
  std::condition_variable commits_wake_;

  std::thread consensus_thread_;
  std::thread check_thread_;
  std::thread apply_thread_;
};

}  // namespace sion::node
