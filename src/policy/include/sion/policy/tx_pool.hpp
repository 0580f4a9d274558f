#pragma once
// The mempool (docs/mempool.md): transactions a node has admitted and not
// yet seen executed, with the admission checks against the latest
// committed state, priority by feerate, replacement, future nonces held
// until their gap fills, bounds with eviction, expiry, and the selection
// a proposer makes for a Pulse.
//
// Single-threaded and deterministic: the node serialises calls under its
// own lock; the same calls in the same order give the same pool and the
// same selections. Every decision iterates ordered containers only.
// Signatures are not verified here: the node verifies a bundle (through
// crypto::VerifyCache, on its workers) between check() and insert().

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/agents/standing.hpp"
#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/policy/mempool.hpp"
#include "sion/policy/verdict.hpp"

namespace sion::policy {

// Milliseconds on the node's clock; the pool only compares them.
using PoolTime = std::uint64_t;

struct PoolOptions {
  std::uint64_t max_transactions = 100'000;
  std::uint64_t max_bytes = 512u << 20;  // sum of the pooled transactions' encodings
  std::uint64_t max_per_sender = 64;     // pending and held together
  std::uint64_t max_nonce_gap = 16;      // admitted nonce <= account nonce + this
  std::uint64_t max_held_per_sender = 16;
  std::uint64_t replacement_bump_percent = 10;  // a replacement pays >= (100 + this)% of the feerate; at most 1000
  PoolTime expiry_ms = 3 * 60 * 60 * 1000;      // dropped after this long in the pool
};

// What the pool keeps of a transaction that its bytes alone decide.
struct TxFacts {
  ledger::Id tx_id{};
  std::optional<crypto::Hash256> keys_id;  // bundle_id(keys); nullopt: malformed keys
  ledger::PulseUsage usage;                // usage.bytes: the encoded size
  bool operator==(const TxFacts&) const = default;
};
TxFacts tx_facts(const exec::Transaction& tx);

// A pooled transaction is pending (selectable: its nonce continues the
// account's without a gap) or held (a lower nonce is missing). Wire values.
enum class PoolStatus : std::uint8_t { pending = 0, held = 1 };
std::string_view pool_status_name(PoolStatus status) noexcept;

// Why a transaction left the pool. Wire values: never renumber.
enum class RemovalReason : std::uint8_t {
  executed = 0,      // included in a committed Pulse
  stale_nonce = 1,   // the account's nonce passed it (another transaction took the nonce)
  inputs_spent = 2,  // its fee coin or an input is gone or no longer pays
  evicted = 3,       // the pool was full and a better-paying transaction took its place
  expired = 4,       // pooled longer than PoolOptions::expiry_ms
  replaced = 5,      // same sender and nonce, paying enough more
};
inline constexpr std::array<RemovalReason, 6> kAllRemovalReasons = {
    RemovalReason::executed, RemovalReason::stale_nonce, RemovalReason::inputs_spent,
    RemovalReason::evicted,  RemovalReason::expired,     RemovalReason::replaced};
std::string_view removal_reason_name(RemovalReason reason) noexcept;

struct Removed {
  ledger::Id tx_id{};
  RemovalReason reason = RemovalReason::executed;
  bool operator==(const Removed&) const = default;
};

// check()'s answer: the verdict and the facts insert() takes.
struct Admission {
  PolicyVerdict verdict;
  TxFacts facts;
};

// insert()'s answer: on admission, the status the transaction took and what
// left the pool for it (replaced, evicted, or made stale by a newer state).
struct Insertion {
  PolicyVerdict verdict;
  PoolStatus status = PoolStatus::pending;
  std::vector<Removed> removed;
};

// A Pulse's worth of transactions in an order the state machine accepts.
struct Selection {
  std::vector<std::shared_ptr<const exec::Transaction>> transactions;
  std::vector<ledger::Id> ids;  // their ids, in the same order
  ledger::PulseUsage usage;     // their usage summed
};

class TxPool {
 public:
  TxPool(ledger::ChainParams params, MempoolPolicy policy, PoolOptions options);

  // Every check but the signature, cheapest first (docs/mempool.md,
  // "Admission"), against `view`, the latest committed state. A refusal is
  // counted. An error is a read failure of the state (io_error,
  // corrupt_store), not a verdict.
  base::Result<Admission> check(const exec::Transaction& tx, const ledger::StateView& view);

  // Admits `tx`, whose signature the caller has verified and whose facts
  // are tx_facts(tx) (the caller's promise). Runs the checks again, since
  // the pool and the state may have moved since check(), then replaces or
  // evicts as the checks planned; if `view` moved the sender's nonce, its
  // transactions that became stale or lost their coins leave too.
  base::Result<Insertion> insert(exec::Transaction tx, const TxFacts& facts, const ledger::StateView& view,
                                 PoolTime now);

  // Counts a refusal decided outside the pool (bad_signature).
  void record_refusal(PolicyCode code) noexcept;

  // Drops every transaction pooled longer than expiry_ms, oldest first.
  std::vector<Removed> expire(PoolTime now);

  // Pending transactions within `limits`: per sender by ascending nonce
  // from the account's (as the last insert() or on_pulse_committed() read
  // it), across senders by the feerate of each sender's next transaction.
  // Removes nothing. A transaction `taken` says is already on its way (a
  // validator put it in a batch) is passed over as if selected: it is not
  // returned or counted, and its sender's next nonce becomes selectable.
  Selection select(const ledger::PulseLimits& limits, const std::function<bool(const ledger::Id&)>& taken = {}) const;

  // After a Pulse commits: removes the executed transactions (`executed`:
  // the ids the Pulse included), those whose nonce the new state passed,
  // and those whose coins it spent; promotes held ones whose gap closed.
  base::Result<std::vector<Removed>> on_pulse_committed(std::span<const ledger::Id> executed,
                                                        const ledger::StateView& view);

  std::optional<PoolStatus> status(const ledger::Id& tx_id) const;
  std::shared_ptr<const exec::Transaction> get(const ledger::Id& tx_id) const;
  std::size_t size() const noexcept { return entries_.size(); }
  // Pooled transactions waiting for a lower nonce (PoolStatus::held).
  std::size_t held() const noexcept;
  std::uint64_t bytes() const noexcept { return bytes_; }
  std::uint64_t refusals(PolicyCode code) const noexcept { return refusals_[static_cast<std::size_t>(code)]; }
  std::uint64_t removals(RemovalReason reason) const noexcept { return removals_[static_cast<std::size_t>(reason)]; }

 private:
  struct Entry {
    std::shared_ptr<const exec::Transaction> tx;
    TxFacts facts;
    ledger::Id sender{};
    std::uint64_t nonce = 0;
    ledger::Amount fee = 0;
    std::uint64_t seq = 0;  // arrival order, the tie-break of equal feerates
    PoolTime added = 0;
    bool held = false;
  };
  // An entry's place in priority order: feerate, then arrival.
  struct Rank {
    ledger::Amount fee = 0;
    std::uint64_t bytes = 0;
    std::uint64_t seq = 0;
    ledger::Id tx_id{};
  };
  struct BetterFirst {
    bool operator()(const Rank& a, const Rank& b) const noexcept;
  };
  struct WorseFirst {
    bool operator()(const Rank& a, const Rank& b) const noexcept { return BetterFirst{}(b, a); }
  };
  struct Sender {
    std::uint64_t next_nonce = 0;                // the account's nonce as last read
    std::map<std::uint64_t, ledger::Id> nonces;  // pooled transactions by nonce
  };
  struct Plan {
    PolicyVerdict verdict;
    std::uint64_t account_nonce = 0;
    std::optional<ledger::Id> replaces;
    std::vector<ledger::Id> evicts;
  };
  using Senders = std::map<ledger::Id, Sender, commit::HashOrder>;

  static Rank rank_of(const Entry& entry);
  // The checks a transaction's bytes decide: policy, then the required fee.
  PolicyVerdict check_stateless(const exec::Transaction& tx) const;
  // The checks from the duplicate on, and what admitting would replace and evict.
  base::Result<Plan> plan(const exec::Transaction& tx, const TxFacts& facts, const ledger::StateView& view) const;
  // plan()'s steps from the nonce on, the sender's nonce in `out`; `agent`
  // is the sending agent (nullptr for an account).
  base::Result<Plan> check_nonce_and_room(const exec::Transaction& tx, const TxFacts& facts,
                                          const ledger::StateView& view, const agents::AgentState* agent,
                                          Plan& out) const;
  PolicyVerdict plan_room(const exec::Transaction& tx, const TxFacts& facts, Plan& out) const;
  PolicyVerdict plan_eviction(const Rank& newcomer, const ledger::Id& sender, std::uint64_t count, std::uint64_t bytes,
                              Plan& out) const;
  // The fee and the coins of `tx`, sent by `agent` (nullptr: an account),
  // read once by the caller.
  base::Result<PolicyVerdict> check_coins(const exec::Transaction& tx, const ledger::StateView& view,
                                          const agents::AgentState* agent) const;
  // A coin that a pooled transaction of `sender` with a nonce below
  // `below_nonce` creates: its owner, and its amount where the transaction
  // fixes it (outputs; not change).
  struct PooledCoin {
    ledger::Id owner{};
    std::optional<ledger::Amount> amount;
  };
  std::optional<PooledCoin> pooled_coin(const ledger::Id& sender, std::uint64_t below_nonce,
                                        const ledger::Id& coin) const;
  PolicyVerdict counted(PolicyVerdict verdict) noexcept;

  // Brings a sender to `account_nonce`: if the nonce moved, drops what it
  // passed and what lost its coins.
  base::Status resync(const ledger::Id& sender, std::uint64_t account_nonce, const ledger::StateView& view,
                      std::vector<Removed>& removed);
  void remove(const ledger::Id& tx_id, RemovalReason reason, std::vector<Removed>& removed);
  // Marks a sender's entries pending or held and keeps its tail (highest
  // nonce, the one eviction may take) in tails_.
  void refresh(Senders::iterator sender);

  ledger::ChainParams params_;
  MempoolPolicy policy_;
  PoolOptions options_;
  std::map<ledger::Id, Entry, commit::HashOrder> entries_;
  Senders senders_;
  std::set<Rank, WorseFirst> tails_;  // each sender's highest-nonce entry
  std::map<ledger::Id, Rank, commit::HashOrder> tail_of_;
  std::set<std::tuple<PoolTime, std::uint64_t, ledger::Id>> by_age_;
  std::uint64_t bytes_ = 0;
  std::uint64_t next_seq_ = 0;
  std::array<std::uint64_t, kAllPolicyCodes.size()> refusals_{};
  std::array<std::uint64_t, kAllRemovalReasons.size()> removals_{};
};

}  // namespace sion::policy
