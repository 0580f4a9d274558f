#include "sion/node/node.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "sion/codec/codec.hpp"
#include "sion/node/json_views.hpp"
#include "sion/node/log.hpp"
#include "sion/wallet/log_head.hpp"

namespace sion::node {
namespace {

using base::Errc;

// The accounts a transaction's event is shown to: its sender and, for a
// transfer, every payee.
std::set<commit::Hash> accounts_of(const exec::Transaction& tx) {
  std::set<commit::Hash> accounts{tx.payload.sender};
  std::visit(
      [&](const auto& body) {
        if constexpr (std::is_same_v<std::decay_t<decltype(body)>, exec::Transfer>) {
          for (const exec::Output& output : body.outputs) accounts.insert(output.owner);
        }
      },
      tx.payload.body);
  return accounts;
}

}  // namespace

Node::Node(NodeOptions options)
    : options_(std::move(options)), executor_(options_.execution_threads), cache_(std::size_t{1} << 18) {}

Node::~Node() = default;

std::string chain_directory(const std::string& data_dir) { return data_dir + "/chain"; }

base::Result<std::unique_ptr<Node>> Node::open(NodeOptions options) {
  SION_TRY_STATUS(exec::check_genesis(options.genesis));
  if (!options.validator) return base::fail(Errc::invalid_argument, "the node needs a validator key");
  const crypto::KeyBundle& keys = options.validator->public_bundle();
  const exec::Id validator = exec::account_id(keys);
  const bool listed = std::any_of(
      options.genesis.validators.begin(), options.genesis.validators.end(),
      [&](const exec::GenesisValidator& entry) { return crypto::bundle_id(entry.keys) == crypto::bundle_id(keys); });
  if (!listed) {
    return base::fail(
        Errc::invalid_argument,
        fmt::format("the validator key (id {}) is not one of the genesis file's validators", base::to_hex(validator)));
  }
  std::unique_ptr<Node> node(new Node(std::move(options)));
  node->validator_id_ = validator;

  ChainStoreOptions store_options;
  store_options.retain_heights = node->options_.retain_heights;
  store_options.sync_writes = node->options_.sync_writes;
  store_options.executor = &node->executor_;
  store_options.write_fault = node->options_.write_fault;
  SION_TRY_CONTEXT(node->chain_, "opening the chain in " + node->options_.data_dir,
                   ChainStore::open(chain_directory(node->options_.data_dir), store_options));
  // On a chain already there this checks it was made from this genesis.
  SION_TRY(const commit::Hash root, exec::genesis_state_root(node->options_.genesis));
  SION_TRY_STATUS(
      node->chain_->initialize(exec::genesis_writes(node->options_.genesis), root, node->options_.genesis.params));
  node->pool_ =
      std::make_unique<policy::TxPool>(node->options_.genesis.params, node->options_.policy, node->options_.pool);
  return node;
}

// ---- Admission ---------------------------------------------------------------------------

base::Result<SubmitOutcome> Node::submit(base::ByteView encoded, std::uint64_t now_ms) {
  SION_TRY(exec::Transaction tx, codec::decode<exec::Transaction>(encoded));
  return submit(std::move(tx), now_ms);
}

base::Result<SubmitOutcome> Node::submit(exec::Transaction tx, std::uint64_t now_ms) {
  SubmitOutcome out;
  policy::TxFacts facts;
  {
    auto chain_lock = read_lock();
    const exec::StoreView view(chain_->state());
    std::lock_guard pool_lock(pool_mutex_);
    SION_TRY(policy::Admission admission, pool_->check(tx, view));
    out.tx_id = admission.facts.tx_id;
    if (!admission.verdict.ok()) {
      out.verdict = std::move(admission.verdict);
      return out;
    }
    facts = admission.facts;
  }
  // The expensive step, outside every lock. A batch member has no
  // signature: the pool checked its place.
  if (exec::carries_signature(tx) && !exec::verify_signatures(tx, &cache_)) {
    std::lock_guard pool_lock(pool_mutex_);
    pool_->record_refusal(policy::PolicyCode::bad_signature);
    out.verdict = policy::refuse(policy::PolicyCode::bad_signature,
                                 "the signature bundle does not verify under the transaction's keys");
    return out;
  }
  std::vector<policy::Removed> removed;
  {
    auto chain_lock = read_lock();
    const exec::StoreView view(chain_->state());
    std::lock_guard pool_lock(pool_mutex_);
    SION_TRY(policy::Insertion insertion, pool_->insert(std::move(tx), facts, view, now_ms));
    out.verdict = std::move(insertion.verdict);
    out.status = insertion.status;
    removed = std::move(insertion.removed);
  }
  if (out.verdict.ok()) outcomes_.forget(out.tx_id);
  report_removed(removed);
  return out;
}

void Node::expire(std::uint64_t now_ms) {
  std::vector<policy::Removed> removed;
  {
    std::lock_guard pool_lock(pool_mutex_);
    removed = pool_->expire(now_ms);
  }
  report_removed(removed);
}

// ---- The pipeline ------------------------------------------------------------------------

base::Result<std::optional<std::uint64_t>> Node::produce(std::uint64_t now_ms) {
  std::lock_guard produce_lock(produce_mutex_);
  if (auto failed = failure()) return base::fail(*failed);
  policy::Selection selection;
  {
    std::lock_guard pool_lock(pool_mutex_);
    selection = pool_->select(chain_->params().limits);
  }
  if (selection.transactions.empty()) return std::optional<std::uint64_t>{};
  std::vector<exec::Transaction> candidates;
  candidates.reserve(selection.transactions.size());
  for (const auto& tx : selection.transactions) candidates.push_back(*tx);
  SION_TRY(const exec::PulseHeader header, build(candidates, now_ms, validator_id_));
  return std::optional<std::uint64_t>{header.height};
}

base::Result<exec::PulseHeader> Node::build_and_apply(std::span<const exec::Transaction> candidates,
                                                      std::uint64_t time_ms, const exec::Id& proposer) {
  std::lock_guard produce_lock(produce_mutex_);
  if (auto failed = failure()) return base::fail(*failed);
  return build(candidates, time_ms, proposer);
}

base::Result<exec::PulseHeader> Node::build(std::span<const exec::Transaction> candidates, std::uint64_t now_ms,
                                            const exec::Id& proposer) {
  exec::PulseOptions pulse_options;
  pulse_options.executor = &executor_;
  pulse_options.cache = &cache_;
  std::optional<exec::ProposedPulse> proposed;
  {
    auto chain_lock = read_lock();
    const exec::PulseHeader parent = chain_->head();
    // A clock that went backwards must not make an invalid Pulse.
    const std::uint64_t time_ms = std::max(now_ms, parent.time_ms);
    const exec::StorePreState pre(chain_->state());
    SION_TRY(exec::ProposedPulse made,
             exec::propose_pulse(pre, parent, candidates, time_ms, proposer, chain_->params(), pulse_options));
    proposed.emplace(std::move(made));
  }
  SION_TRY_STATUS(apply_pulse(proposed->pulse, proposed->outcome));
  return proposed->pulse.header;
}

std::vector<std::shared_ptr<const exec::Transaction>> Node::take_for_batch(const ledger::PulseLimits& limits,
                                                                           std::uint64_t now_ms,
                                                                           std::uint64_t retry_after_ms) {
  std::lock_guard pool_lock(pool_mutex_);
  // Marks of transactions that left the pool, or whose batch is overdue.
  std::erase_if(batched_, [&](const auto& entry) {
    return !pool_->status(entry.first) || now_ms >= entry.second + retry_after_ms || now_ms < entry.second;
  });
  policy::Selection selection = pool_->select(limits, [&](const exec::Id& id) { return batched_.contains(id); });
  for (const exec::Id& id : selection.ids) batched_.emplace(id, now_ms);
  return std::move(selection.transactions);
}

void Node::stop_production(base::Error error) {
  std::lock_guard lock(failure_mutex_);
  if (!failure_) failure_ = std::move(error);
}

base::Status Node::apply_pulse(const exec::Pulse& pulse, const exec::PulseOutcome& outcome) {
  if (auto failed = failure()) return base::fail(*failed);
  std::vector<exec::Id> included;
  included.reserve(pulse.body.size());
  for (const exec::Receipt& receipt : outcome.receipts) included.push_back(receipt.tx_id);
  std::vector<policy::Removed> removed;
  // The body's write and sync (most of a Pulse's bytes) happen before the
  // exclusive lock, so admissions wait only for the batch.
  // A Pulse the store refuses is the caller's error; any other failure stops production.
  const auto refused_or_stopped = [this](base::Error error) -> base::Status {
    if (error.code == Errc::invalid_argument) return base::fail(std::move(error));
    return fail_storage(std::move(error));
  };
  auto staged = chain_->stage_body(pulse);
  if (!staged) return refused_or_stopped(std::move(staged).error());
  {
    // The mempool learns of the Pulse under the same lock as the store
    // commits it: an admission in between would see the new nonces and
    // drop the Pulse's own transactions as stale before they were removed
    // as executed.
    std::unique_lock chain_lock(chain_mutex_);
    if (auto stored = chain_->commit(pulse, outcome, *staged); !stored)
      return refused_or_stopped(std::move(stored).error());
    const exec::StoreView view(chain_->state());
    std::lock_guard pool_lock(pool_mutex_);
    auto after = pool_->on_pulse_committed(included, view);
    if (!after) return fail_storage(std::move(after).error());
    removed = std::move(after).value();
  }
  component_logger("node")->info("pulse {} with {} transactions, state root {}", pulse.header.height, pulse.body.size(),
                                 base::to_hex(pulse.header.state_root).substr(0, 16));
  executed_.fetch_add(pulse.body.size());
  record_interval(pulse.header.time_ms);
  announce(pulse, outcome.receipts, removed);
  return {};
}

base::Status Node::fail_storage(base::Error error) {
  stop_production(error);
  return base::fail(std::move(error));
}

std::optional<base::Error> Node::failure() const {
  std::lock_guard lock(failure_mutex_);
  return failure_;
}

// ---- Announcement ------------------------------------------------------------------------

void Node::announce(const exec::Pulse& pulse, const std::vector<exec::Receipt>& receipts,
                    const std::vector<policy::Removed>& removed) {
  const exec::PulseHeader& header = pulse.header;
  Event pulse_event;
  pulse_event.type = "pulse";
  pulse_event.data = pulse_event_json(header, pulse.body.size());
  events_.publish(std::move(pulse_event));
  for (std::size_t i = 0; i < pulse.body.size() && i < receipts.size(); ++i) {
    Event event;
    event.type = "transaction";
    event.data = executed_event_json(receipts[i], header.height, static_cast<std::uint32_t>(i));
    event.accounts = accounts_of(pulse.body[i]);
    events_.publish(std::move(event));
  }
  // Executed ones were announced above with their receipts.
  std::vector<policy::Removed> others;
  for (const policy::Removed& item : removed) {
    if (item.reason != policy::RemovalReason::executed) others.push_back(item);
  }
  report_removed(others);
}

void Node::report_removed(const std::vector<policy::Removed>& removed) {
  if (removed.empty()) return;
  const std::uint64_t height = [&] {
    auto chain_lock = read_lock();
    return chain_->height();
  }();
  for (const policy::Removed& item : removed) {
    outcomes_.record(item.tx_id, {item.reason, height});
    Event event;
    event.type = "transaction";
    event.data = removed_event_json(item);
    events_.publish(std::move(event));
  }
}

SignedLogHead Node::signed_log_head() const {
  commit::TreeHead head;
  {
    auto chain_lock = read_lock();
    head = chain_->log_head();
  }
  // Signed when asked for, once per head: a dual signature costs milliseconds
  // (SLH-DSA signing), which a Pulse no client asks about need not pay.
  std::lock_guard lock(head_mutex_);
  if (!signed_head_ || signed_head_->head != head) {
    auto signature = wallet::sign_log_head(*options_.validator, head);
    if (signature) signed_head_ = SignedLogHead{head, std::move(signature).value()};
  }
  return signed_head_.value_or(SignedLogHead{});
}

// ---- Published data and metrics ----------------------------------------------------------

namespace {
constexpr std::uint64_t kIntervalBoundsMs[] = {50, 100, 150, 200, 300, 500, 1000, 2000, 5000, 10000};
constexpr std::size_t kPublishedKept = 8;
}  // namespace

base::Result<std::shared_ptr<const exec::PublishedPulse>> Node::published(std::uint64_t height) const {
  {
    std::lock_guard lock(published_mutex_);
    if (const auto it = published_.find(height); it != published_.end()) return it->second;
  }
  std::vector<exec::Transaction> body;
  {
    auto chain_lock = read_lock();
    if (height == 0 || height > chain_->height()) {
      return base::fail(Errc::not_found,
                        fmt::format("no Pulse at height {} (the chain is at {})", height, chain_->height()));
    }
    SION_TRY(body, chain_->body(height));
  }
  SION_TRY(exec::PublishedPulse data, exec::publish_pulse(body));
  auto shared = std::make_shared<const exec::PublishedPulse>(std::move(data));
  std::lock_guard lock(published_mutex_);
  published_.emplace(height, shared);
  while (published_.size() > kPublishedKept) published_.erase(published_.begin());
  return shared;
}

void Node::record_interval(std::uint64_t time_ms) {
  std::lock_guard lock(interval_mutex_);
  if (interval_counts_.empty()) interval_counts_.assign(std::size(kIntervalBoundsMs) + 1, 0);
  if (last_pulse_ms_ != 0 && time_ms >= last_pulse_ms_) {
    const std::uint64_t interval = time_ms - last_pulse_ms_;
    std::size_t bucket = 0;
    while (bucket < std::size(kIntervalBoundsMs) && interval > kIntervalBoundsMs[bucket]) ++bucket;
    ++interval_counts_[bucket];
    interval_sum_ms_ += interval;
  }
  last_pulse_ms_ = time_ms;
}

void Node::export_interval_histogram(PrometheusText& text) const {
  std::lock_guard lock(interval_mutex_);
  std::vector<std::uint64_t> counts = interval_counts_;
  counts.resize(std::size(kIntervalBoundsMs) + 1, 0);
  text.histogram("sion_pulse_interval_ms", "Time between consecutive Pulses (header times).", kIntervalBoundsMs, counts,
                 interval_sum_ms_);
}

// ---- Reads -------------------------------------------------------------------------------

base::Result<Node::TxView> Node::transaction(const exec::Id& tx_id) const {
  TxView view;
  {
    std::lock_guard pool_lock(pool_mutex_);
    if (const auto status = pool_->status(tx_id)) {
      view.kind = TxView::Kind::pooled;
      view.pool_status = *status;
      return view;
    }
  }
  {
    auto chain_lock = read_lock();
    SION_TRY(std::optional<TxRecord> record, chain_->find_transaction(tx_id));
    if (record) {
      view.kind = TxView::Kind::executed;
      view.record = std::move(record);
      return view;
    }
  }
  if (const auto outcome = outcomes_.find(tx_id)) {
    view.kind = TxView::Kind::removed;
    view.outcome = outcome;
  }
  return view;
}

Node::MempoolView Node::mempool() const {
  std::lock_guard pool_lock(pool_mutex_);
  return {pool_->size(), pool_->bytes(), pool_->held()};
}

std::vector<std::pair<std::string, std::uint64_t>> Node::refusal_counts() const {
  std::vector<std::pair<std::string, std::uint64_t>> counts;
  std::lock_guard pool_lock(pool_mutex_);
  for (const policy::PolicyCode code : codec_enum_values(policy::PolicyCode{})) {
    if (code == policy::PolicyCode::admitted) continue;
    counts.emplace_back(std::string(policy::policy_code_name(code)), pool_->refusals(code));
  }
  return counts;
}

std::vector<std::pair<std::string, std::uint64_t>> Node::removal_counts() const {
  std::vector<std::pair<std::string, std::uint64_t>> counts;
  std::lock_guard pool_lock(pool_mutex_);
  for (const policy::RemovalReason reason : policy::kAllRemovalReasons) {
    counts.emplace_back(std::string(policy::removal_reason_name(reason)), pool_->removals(reason));
  }
  return counts;
}

}  // namespace sion::node
