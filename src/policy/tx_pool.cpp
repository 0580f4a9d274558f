#include "sion/policy/tx_pool.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <variant>

#include "sion/agents/batch.hpp"
#include "sion/agents/standing.hpp"
#include "sion/base/bytes.hpp"
#include "sion/base/checked.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/policy/kind_rules.hpp"

namespace sion::policy {
namespace {

// Feerates compare as fractions fee / bytes by cross-multiplication: the
// products of a u64 fee and a size below 2^32 times a percentage need 128
// bits, never a float (docs/mempool.md, "Priority").
__extension__ typedef unsigned __int128 Wide;

// Whether fee_a / bytes_a * 100 >= fee_b / bytes_b * percent.
bool feerate_at_least(ledger::Amount fee_a, std::uint64_t bytes_a, ledger::Amount fee_b, std::uint64_t bytes_b,
                      std::uint64_t percent) {
  return Wide{fee_a} * bytes_b * 100 >= Wide{fee_b} * bytes_a * percent;
}

std::string short_id(const ledger::Id& id) { return base::to_hex(base::ByteView(id.data(), 8)); }

// The agent at `sender`, if a charter is there (docs/agents.md).
base::Result<std::optional<agents::AgentState>> agent_at(const ledger::StateView& view, const ledger::Id& sender) {
  const ledger::Overlay state(view);
  return agents::read_agent(state, sender);
}

// A batch member's place against the latest state: it must prove the
// payload in a batch its agent's controller opened. Expiry is left to
// execution, which knows the height (docs/agents.md, step 2).
base::Result<PolicyVerdict> check_place(const exec::Transaction& tx, const agents::AgentState& agent,
                                        const ledger::StateView& view) {
  const auto* keyless = std::get_if<agents::Keyless>(&agent.charter.authority);
  if (keyless == nullptr) {
    return refuse(PolicyCode::wrong_keys, "a keyed agent signs its own transactions; it sends no batch members");
  }
  const auto place = agents::member_place(tx.auth);
  if (!place) return refuse(PolicyCode::bad_batch_place, "the member's auth holds no batch place");
  SION_TRY(const auto object, view.get(place->batch));
  if (!object || object->type != static_cast<std::uint32_t>(ledger::ObjectType::batch)) {
    return refuse(PolicyCode::bad_batch_place, "batch " + short_id(place->batch) + " does not exist");
  }
  SION_TRY(const agents::AuthBatch batch, agents::batch_from(*object));
  if (batch.controller != keyless->controller) {
    return refuse(PolicyCode::bad_batch_place, "batch " + short_id(place->batch) + " was opened by " +
                                                   short_id(batch.controller) + ", not the agent's controller " +
                                                   short_id(keyless->controller));
  }
  if (!agents::proves_member(*place, codec::encode(tx.payload), batch)) {
    return refuse(PolicyCode::bad_batch_place, "the place does not prove the transaction as item " +
                                                   std::to_string(place->index) + " of batch " +
                                                   short_id(place->batch));
  }
  return PolicyVerdict{};
}

}  // namespace

std::string_view pool_status_name(PoolStatus status) noexcept {
  switch (status) {
    case PoolStatus::pending: return "pending";
    case PoolStatus::held: return "held";
  }
  return "unknown_pool_status";
}

std::string_view removal_reason_name(RemovalReason reason) noexcept {
  switch (reason) {
    case RemovalReason::executed: return "executed";
    case RemovalReason::stale_nonce: return "stale_nonce";
    case RemovalReason::inputs_spent: return "inputs_spent";
    case RemovalReason::evicted: return "evicted";
    case RemovalReason::expired: return "expired";
    case RemovalReason::replaced: return "replaced";
  }
  return "unknown_removal_reason";
}

TxFacts tx_facts(const exec::Transaction& tx) {
  TxFacts facts;
  facts.tx_id = exec::tx_id(tx.payload);
  if (crypto::check_key_bundle(tx.keys)) facts.keys_id = crypto::bundle_id(tx.keys);
  facts.usage = exec::tx_usage(tx);
  return facts;
}

bool TxPool::BetterFirst::operator()(const Rank& a, const Rank& b) const noexcept {
  const Wide left = Wide{a.fee} * b.bytes;
  const Wide right = Wide{b.fee} * a.bytes;
  if (left != right) return left > right;
  return a.seq < b.seq;  // seq is unique: a strict total order
}

TxPool::TxPool(ledger::ChainParams params, MempoolPolicy policy, PoolOptions options)
    : params_(params), policy_(policy), options_(options) {
  // Keeps fee * bytes * (100 + bump) within 128 bits.
  options_.replacement_bump_percent = std::min<std::uint64_t>(options_.replacement_bump_percent, 1000);
}

TxPool::Rank TxPool::rank_of(const Entry& entry) {
  return {entry.fee, entry.facts.usage.bytes, entry.seq, entry.facts.tx_id};
}

PolicyVerdict TxPool::counted(PolicyVerdict verdict) noexcept {
  if (!verdict.ok()) record_refusal(verdict.code);
  return verdict;
}

std::size_t TxPool::held() const noexcept {
  std::size_t count = 0;
  for (const auto& [id, entry] : entries_) count += entry.held ? 1 : 0;
  return count;
}

void TxPool::record_refusal(PolicyCode code) noexcept {
  const auto index = static_cast<std::size_t>(code);
  if (index < refusals_.size()) ++refusals_[index];
}

std::optional<TxPool::PooledCoin> TxPool::pooled_coin(const ledger::Id& sender, std::uint64_t below_nonce,
                                                      const ledger::Id& coin) const {
  const auto found = senders_.find(sender);
  if (found == senders_.end()) return std::nullopt;
  for (const auto& [nonce, pooled_id] : found->second.nonces) {
    if (nonce >= below_nonce) break;
    const ledger::Id& tx_id = pooled_id;  // a lambda below captures it (not a structured binding)
    const exec::Transaction& parent = *entries_.at(tx_id).tx;
    std::optional<PooledCoin> made;
    std::visit(
        [&](const auto& body) {
          if constexpr (std::is_same_v<std::decay_t<decltype(body)>, ledger::Transfer>) {
            // Outputs first, then the change to the sender (ledger/transfer.cpp).
            const auto ids = ledger::coin_ids(tx_id, ledger::max_created_objects(body));
            for (std::size_t i = 0; i < ids.size() && !made; ++i) {
              if (ids[i] != coin) continue;
              made = i < body.outputs.size() ? PooledCoin{body.outputs[i].owner, body.outputs[i].amount}
                                             : PooledCoin{parent.payload.sender, std::nullopt};
            }
          } else if constexpr (requires { body.coins; }) {
            // An account's agent kind returns its change at id 0 (docs/agents.md).
            if (!body.coins.empty() && ledger::coin_id(tx_id, 0) == coin) {
              made = PooledCoin{parent.payload.sender, std::nullopt};
            }
          }
        },
        parent.payload.body);
    if (made) return made;
  }
  return std::nullopt;
}

base::Result<PolicyVerdict> TxPool::check_coins(const exec::Transaction& tx, const ledger::StateView& view,
                                                const agents::AgentState* agent) const {
  const exec::TxPayload& payload = tx.payload;
  // An agent pays its fee from its allotment and spends no coins.
  if (agent != nullptr) {
    if (agent->allotment.balance < payload.fee) {
      return refuse(PolicyCode::fee_unpayable, "the agent's allotment holds " +
                                                   std::to_string(agent->allotment.balance) + ", less than the fee " +
                                                   std::to_string(payload.fee));
    }
    return PolicyVerdict{};
  }
  // A coin that a lower nonce of the same sender creates counts as there: a
  // wallet may send a chain of transactions, each spending the change of
  // the one before. The amount of such a change coin is not known before
  // execution, which settles it.
  const auto find_coin = [&](const ledger::Id& id) -> base::Result<std::optional<PooledCoin>> {
    SION_TRY(const auto object, view.get(id));
    if (object) {
      if (object->type != static_cast<std::uint32_t>(ledger::ObjectType::coin)) return std::optional<PooledCoin>{};
      SION_TRY(const ledger::Coin coin, ledger::coin_from(*object));
      return std::optional<PooledCoin>{PooledCoin{coin.owner, coin.amount}};
    }
    return pooled_coin(payload.sender, payload.nonce, id);
  };
  const auto fee_coin_id = std::visit([](const auto& body) { return fee_coin(body); }, payload.body);
  if (!fee_coin_id) return check_fee_from_body(payload, view);
  SION_TRY(const auto fee_coin_value, find_coin(*fee_coin_id));
  if (!fee_coin_value) {
    return refuse(PolicyCode::fee_unpayable, "fee coin " + short_id(*fee_coin_id) + " does not exist");
  }
  if (fee_coin_value->owner != payload.sender) {
    return refuse(PolicyCode::fee_unpayable, "fee coin " + short_id(*fee_coin_id) + " is not the sender's");
  }
  if (fee_coin_value->amount && *fee_coin_value->amount < payload.fee) {
    return refuse(PolicyCode::fee_unpayable, "fee coin " + short_id(*fee_coin_id) + " holds " +
                                                 std::to_string(*fee_coin_value->amount) + ", less than the fee " +
                                                 std::to_string(payload.fee));
  }
  const auto inputs = std::visit([](const auto& body) { return spent_coins(body); }, payload.body);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    SION_TRY(const auto coin, find_coin(inputs[i]));
    if (!coin) {
      return refuse(PolicyCode::unknown_input,
                    "input " + std::to_string(i) + " (" + short_id(inputs[i]) + ") is not an existing coin");
    }
    if (coin->owner != payload.sender) {
      return refuse(PolicyCode::input_not_owned,
                    "input " + std::to_string(i) + " (" + short_id(inputs[i]) + ") belongs to another account");
    }
  }
  return PolicyVerdict{};
}

PolicyVerdict TxPool::check_stateless(const exec::Transaction& tx) const {
  PolicyVerdict verdict = check_mempool_policy(tx, params_, policy_);
  if (!verdict) return verdict;
  const auto required = exec::required_fee(tx, params_.fees);
  if (!required || tx.payload.fee < *required) {
    return refuse(PolicyCode::fee_below_required,
                  "fee " + std::to_string(tx.payload.fee) + " is below the required fee " +
                      (required ? std::to_string(*required) : std::string("(past 2^64 - 1)")));
  }
  return {};
}

base::Result<TxPool::Plan> TxPool::plan(const exec::Transaction& tx, const TxFacts& facts,
                                        const ledger::StateView& view) const {
  Plan out;
  const exec::TxPayload& payload = tx.payload;
  if (entries_.contains(facts.tx_id)) {
    out.verdict = refuse(PolicyCode::already_pooled, "transaction " + short_id(facts.tx_id) + " is already pooled");
    return out;
  }
  // The sender's object, read once: an account, or an agent's charter.
  SION_TRY(const auto sender_object, view.get(payload.sender));
  // An agent's transaction: the sender's charter, its keys or its batch
  // place, and its allotment's nonce (docs/agents.md, "Authorization of an
  // agent's transaction").
  std::optional<agents::AgentState> agent;
  if (sender_object && sender_object->type == static_cast<std::uint32_t>(ledger::ObjectType::charter)) {
    SION_TRY(agent, agent_at(view, payload.sender));
  }
  const bool member = ledger::is_batch_member(tx.keys);
  if (agent || member) {
    if (!agent || agent->charter.cohort) {
      out.verdict = refuse(PolicyCode::not_an_agent, agent ? "the sender is a cohort node, which never acts"
                                                           : "a batch member's sender holds no charter");
      return out;
    }
    if (member) {
      SION_TRY(out.verdict, check_place(tx, *agent, view));
      if (!out.verdict) return out;
    } else {
      const auto* keyed = std::get_if<agents::Keyed>(&agent->charter.authority);
      if (keyed == nullptr || !facts.keys_id || *facts.keys_id != keyed->keys_id) {
        out.verdict = refuse(PolicyCode::wrong_keys, "the keys are not the agent's");
        return out;
      }
    }
    out.account_nonce = agent->allotment.nonce;
    return check_nonce_and_room(tx, facts, view, &*agent, out);
  }
  // The sender's account in the latest committed state (docs/ledger.md,
  // "Applying a transaction", steps 2, 5 and 7, and the inputs of step 8).
  if (!facts.keys_id) {
    out.verdict = refuse(PolicyCode::wrong_keys, "the key bundle is malformed");
    return out;
  }
  const auto& account_object = sender_object;
  if (!account_object) {
    if (ledger::account_id_from_keys_id(*facts.keys_id) != payload.sender) {
      out.verdict = refuse(PolicyCode::wrong_keys, "no account exists and the keys do not hash to the sender");
      return out;
    }
  } else if (account_object->type != static_cast<std::uint32_t>(ledger::ObjectType::account)) {
    out.verdict = refuse(PolicyCode::wrong_keys, "the sender's id holds no account");
    return out;
  } else {
    SION_TRY(const ledger::Account account, ledger::account_from(*account_object));
    if (account.keys_id != *facts.keys_id) {
      out.verdict = refuse(PolicyCode::wrong_keys, "the keys are not the account's");
      return out;
    }
    out.account_nonce = account.nonce;
  }
  return check_nonce_and_room(tx, facts, view, nullptr, out);
}

// From the nonce on, for accounts and agents alike.
base::Result<TxPool::Plan> TxPool::check_nonce_and_room(const exec::Transaction& tx, const TxFacts& facts,
                                                        const ledger::StateView& view, const agents::AgentState* agent,
                                                        Plan& out) const {
  const exec::TxPayload& payload = tx.payload;
  if (payload.nonce < out.account_nonce) {
    out.verdict =
        refuse(PolicyCode::nonce_too_low, "nonce " + std::to_string(payload.nonce) + " is below the account's nonce " +
                                              std::to_string(out.account_nonce));
    return out;
  }
  SION_TRY(out.verdict, check_coins(tx, view, agent));
  if (!out.verdict) return out;
  if (payload.nonce - out.account_nonce > options_.max_nonce_gap) {
    out.verdict =
        refuse(PolicyCode::nonce_too_far_ahead, "nonce " + std::to_string(payload.nonce) + " is more than " +
                                                    std::to_string(options_.max_nonce_gap) +
                                                    " past the account's nonce " + std::to_string(out.account_nonce));
    return out;
  }
  out.verdict = plan_room(tx, facts, out);
  return out;
}

// Replacement, the sender's bounds, then the pool's (docs/mempool.md).
PolicyVerdict TxPool::plan_room(const exec::Transaction& tx, const TxFacts& facts, Plan& out) const {
  const exec::TxPayload& payload = tx.payload;
  const Rank newcomer{payload.fee, facts.usage.bytes, next_seq_, facts.tx_id};
  std::uint64_t count = entries_.size();
  std::uint64_t bytes = bytes_;
  std::uint64_t sender_count = 0;
  std::uint64_t held = 0;
  if (const auto found = senders_.find(payload.sender); found != senders_.end()) {
    const Sender& sender = found->second;
    if (const auto same = sender.nonces.find(payload.nonce); same != sender.nonces.end()) {
      const Entry& old = entries_.at(same->second);
      if (!feerate_at_least(payload.fee, facts.usage.bytes, old.fee, old.facts.usage.bytes,
                            100 + options_.replacement_bump_percent)) {
        return refuse(PolicyCode::replacement_underpriced,
                      "replacing " + short_id(old.facts.tx_id) + " (fee " + std::to_string(old.fee) + " for " +
                          std::to_string(old.facts.usage.bytes) + " bytes) needs a feerate " +
                          std::to_string(options_.replacement_bump_percent) + "% higher; fee " +
                          std::to_string(payload.fee) + " for " + std::to_string(facts.usage.bytes) + " bytes is not");
      }
      out.replaces = old.facts.tx_id;
      --count;
      bytes -= old.facts.usage.bytes;
    }
    // The sender's transactions once the new state's nonce drops the stale
    // ones (insert does) and this one joins: the run from the account's
    // nonce is pending, the rest held.
    std::set<std::uint64_t> nonces{payload.nonce};
    for (const auto& [nonce, id] : sender.nonces) {
      if (nonce >= out.account_nonce) nonces.insert(nonce);
    }
    sender_count = nonces.size();
    std::uint64_t expect = out.account_nonce;
    for (const std::uint64_t nonce : nonces) {
      if (nonce == expect) {
        ++expect;
      } else {
        ++held;
      }
    }
  } else {
    sender_count = 1;
    held = payload.nonce == out.account_nonce ? 0 : 1;
  }
  if (!out.replaces && sender_count > options_.max_per_sender) {
    return refuse(PolicyCode::sender_full, "the sender has " + std::to_string(sender_count - 1) +
                                               " pooled transactions, the most the pool holds per sender");
  }
  if (held > options_.max_held_per_sender) {
    return refuse(PolicyCode::too_many_held, "the sender would have " + std::to_string(held) +
                                                 " held transactions, above the limit of " +
                                                 std::to_string(options_.max_held_per_sender));
  }
  return plan_eviction(newcomer, payload.sender, count + 1, bytes + facts.usage.bytes, out);
}

// Evicts the worst of the senders' last transactions (their highest nonce,
// so no sender is left with a gap) until the newcomer fits, each strictly
// below the newcomer's feerate. The sender's own are never evicted for it.
PolicyVerdict TxPool::plan_eviction(const Rank& newcomer, const ledger::Id& sender, std::uint64_t count,
                                    std::uint64_t bytes, Plan& out) const {
  // tails_ as it would be after the evictions so far: entries of tails_
  // not yet taken, merged with the predecessors of the ones taken.
  auto next_tail = tails_.begin();
  std::set<Rank, WorseFirst> uncovered;
  while (count > options_.max_transactions || bytes > options_.max_bytes) {
    while (next_tail != tails_.end() && entries_.at(next_tail->tx_id).sender == sender) ++next_tail;
    std::optional<Rank> worst;
    if (next_tail != tails_.end()) worst = *next_tail;
    if (!uncovered.empty() && (!worst || WorseFirst{}(*uncovered.begin(), *worst))) worst = *uncovered.begin();
    if (!worst || feerate_at_least(worst->fee, worst->bytes, newcomer.fee, newcomer.bytes, 100)) {
      return refuse(PolicyCode::pool_full, "the pool is full (" + std::to_string(entries_.size()) + " transactions, " +
                                               std::to_string(bytes_) +
                                               " bytes) and every transaction it could evict pays at least "
                                               "this one's feerate");
    }
    if (next_tail != tails_.end() && worst->tx_id == next_tail->tx_id) {
      ++next_tail;
    } else {
      uncovered.erase(uncovered.begin());
    }
    const Entry& evicted = entries_.at(worst->tx_id);
    const Sender& owner = senders_.at(evicted.sender);
    if (auto below = owner.nonces.find(evicted.nonce); below != owner.nonces.begin()) {
      uncovered.insert(rank_of(entries_.at(std::prev(below)->second)));
    }
    out.evicts.push_back(worst->tx_id);
    --count;
    bytes -= worst->bytes;
  }
  return {};
}

base::Result<Admission> TxPool::check(const exec::Transaction& tx, const ledger::StateView& view) {
  Admission admission;
  // Stateless first: the facts hash an encoding, which only an encodable
  // transaction has.
  admission.verdict = check_stateless(tx);
  if (!admission.verdict) {
    admission.verdict = counted(std::move(admission.verdict));
    return admission;
  }
  admission.facts = tx_facts(tx);
  SION_TRY(const Plan planned, plan(tx, admission.facts, view));
  admission.verdict = counted(planned.verdict);
  return admission;
}

base::Result<Insertion> TxPool::insert(exec::Transaction tx, const TxFacts& facts, const ledger::StateView& view,
                                       PoolTime now) {
  Insertion insertion;
  insertion.verdict = check_stateless(tx);
  if (!insertion.verdict) {
    insertion.verdict = counted(std::move(insertion.verdict));
    return insertion;
  }
  SION_TRY(Plan planned, plan(tx, facts, view));
  insertion.verdict = counted(std::move(planned.verdict));
  if (!insertion.verdict) return insertion;
  const ledger::Id sender = tx.payload.sender;
  if (senders_.contains(sender)) {
    SION_TRY_STATUS(resync(sender, planned.account_nonce, view, insertion.removed));
  }
  if (planned.replaces) remove(*planned.replaces, RemovalReason::replaced, insertion.removed);
  for (const ledger::Id& id : planned.evicts) remove(id, RemovalReason::evicted, insertion.removed);

  Entry entry;
  entry.sender = sender;
  entry.nonce = tx.payload.nonce;
  entry.fee = tx.payload.fee;
  entry.facts = facts;
  entry.seq = next_seq_++;
  entry.added = now;
  entry.tx = std::make_shared<const exec::Transaction>(std::move(tx));
  auto [slot, fresh] = senders_.try_emplace(sender);
  if (fresh) slot->second.next_nonce = planned.account_nonce;
  slot->second.nonces[entry.nonce] = facts.tx_id;
  by_age_.emplace(now, entry.seq, facts.tx_id);
  bytes_ += facts.usage.bytes;
  entries_.emplace(facts.tx_id, std::move(entry));
  refresh(slot);
  insertion.status = entries_.at(facts.tx_id).held ? PoolStatus::held : PoolStatus::pending;
  return insertion;
}

void TxPool::remove(const ledger::Id& tx_id, RemovalReason reason, std::vector<Removed>& removed) {
  const auto found = entries_.find(tx_id);
  if (found == entries_.end()) return;
  const Entry& entry = found->second;
  const auto sender = senders_.find(entry.sender);
  sender->second.nonces.erase(entry.nonce);
  by_age_.erase({entry.added, entry.seq, tx_id});
  bytes_ -= entry.facts.usage.bytes;
  entries_.erase(found);
  ++removals_[static_cast<std::size_t>(reason)];
  removed.push_back({tx_id, reason});
  refresh(sender);
}

void TxPool::refresh(Senders::iterator sender) {
  const ledger::Id& sender_id = sender->first;
  if (const auto tail = tail_of_.find(sender_id); tail != tail_of_.end()) {
    tails_.erase(tail->second);
    tail_of_.erase(tail);
  }
  Sender& state = sender->second;
  if (state.nonces.empty()) {
    senders_.erase(sender);
    return;
  }
  std::uint64_t expect = state.next_nonce;
  for (const auto& [nonce, id] : state.nonces) {
    Entry& entry = entries_.at(id);
    entry.held = nonce != expect;
    if (!entry.held) ++expect;
  }
  const Rank tail = rank_of(entries_.at(state.nonces.rbegin()->second));
  tails_.insert(tail);
  tail_of_.emplace(sender_id, tail);
}

base::Status TxPool::resync(const ledger::Id& sender, std::uint64_t account_nonce, const ledger::StateView& view,
                            std::vector<Removed>& removed) {
  auto found = senders_.find(sender);
  if (found == senders_.end() || found->second.next_nonce == account_nonce) return {};
  found->second.next_nonce = account_nonce;
  // The account moved: what it passed is gone, and what remains may have
  // lost its coins (only the sender's own transactions spend them, and each
  // of those moves the nonce).
  std::vector<std::pair<ledger::Id, RemovalReason>> drop;
  SION_TRY(const auto agent, agent_at(view, sender));
  for (const auto& [nonce, id] : found->second.nonces) {
    if (nonce < account_nonce) {
      drop.emplace_back(id, RemovalReason::stale_nonce);
      continue;
    }
    SION_TRY(const PolicyVerdict coins, check_coins(*entries_.at(id).tx, view, agent ? &*agent : nullptr));
    if (!coins) drop.emplace_back(id, RemovalReason::inputs_spent);
  }
  for (const auto& [id, reason] : drop) remove(id, reason, removed);
  if (const auto still = senders_.find(sender); still != senders_.end()) refresh(still);
  return {};
}

std::vector<Removed> TxPool::expire(PoolTime now) {
  std::vector<Removed> removed;
  while (!by_age_.empty()) {
    const auto& [added, seq, id] = *by_age_.begin();
    const auto deadline = base::checked_add(added, options_.expiry_ms);
    if (!deadline || *deadline >= now) break;
    const ledger::Id expired = id;
    remove(expired, RemovalReason::expired, removed);
  }
  return removed;
}

Selection TxPool::select(const ledger::PulseLimits& limits, const std::function<bool(const ledger::Id&)>& taken) const {
  Selection selection;
  // Each sender's next pending transaction, best first.
  std::set<Rank, BetterFirst> heads;
  for (const auto& [sender_id, sender] : senders_) {
    const auto first = sender.nonces.find(sender.next_nonce);
    if (first != sender.nonces.end()) heads.insert(rank_of(entries_.at(first->second)));
  }
  while (!heads.empty() && selection.usage.transactions < limits.max_transactions) {
    const Rank best = *heads.begin();
    heads.erase(heads.begin());
    const Entry& entry = entries_.at(best.tx_id);
    if (!taken || !taken(best.tx_id)) {
      // A sender whose next transaction does not fit has no later one
      // selectable either: its nonces must stay consecutive.
      if (!selection.usage.fits(entry.facts.usage, limits)) continue;
      selection.usage.add(entry.facts.usage);
      selection.transactions.push_back(entry.tx);
      selection.ids.push_back(best.tx_id);
    }
    const Sender& sender = senders_.at(entry.sender);
    if (const auto next = sender.nonces.find(entry.nonce + 1); next != sender.nonces.end()) {
      heads.insert(rank_of(entries_.at(next->second)));
    }
  }
  return selection;
}

base::Result<std::vector<Removed>> TxPool::on_pulse_committed(std::span<const ledger::Id> executed,
                                                              const ledger::StateView& view) {
  std::vector<Removed> removed;
  const std::set<ledger::Id> included(executed.begin(), executed.end());
  // Included ones leave whatever their receipt said (a rejected one would
  // only be rejected again).
  for (const ledger::Id& id : included) remove(id, RemovalReason::executed, removed);
  std::vector<ledger::Id> senders;
  senders.reserve(senders_.size());
  for (const auto& [sender, state] : senders_) senders.push_back(sender);
  for (const ledger::Id& sender : senders) {
    SION_TRY(const auto object, view.get(sender));
    std::uint64_t nonce = 0;
    if (object && object->type == static_cast<std::uint32_t>(ledger::ObjectType::account)) {
      SION_TRY(const ledger::Account account, ledger::account_from(*object));
      nonce = account.nonce;
    } else if (object && object->type == static_cast<std::uint32_t>(ledger::ObjectType::charter)) {
      SION_TRY(const auto agent, agent_at(view, sender));
      if (agent) nonce = agent->allotment.nonce;
    }
    SION_TRY_STATUS(resync(sender, nonce, view, removed));
  }
  return removed;
}

std::optional<PoolStatus> TxPool::status(const ledger::Id& tx_id) const {
  const auto found = entries_.find(tx_id);
  if (found == entries_.end()) return std::nullopt;
  return found->second.held ? PoolStatus::held : PoolStatus::pending;
}

std::shared_ptr<const exec::Transaction> TxPool::get(const ledger::Id& tx_id) const {
  const auto found = entries_.find(tx_id);
  return found == entries_.end() ? nullptr : found->second.tx;
}

}  // namespace sion::policy
