#include "sion/node/tx_outcomes.hpp"

namespace sion::node {

void TxOutcomes::record(const commit::Hash& tx_id, TxOutcome outcome) {
  std::lock_guard lock(mutex_);
  const std::uint64_t sequence = next_sequence_++;
  by_id_.insert_or_assign(tx_id, Kept{outcome, sequence});
  order_.emplace_back(tx_id, sequence);
  while (by_id_.size() > capacity_ || order_.size() > 2 * capacity_) {
    const auto [id, recorded] = order_.front();
    order_.pop_front();
    const auto it = by_id_.find(id);
    if (it != by_id_.end() && it->second.sequence == recorded) by_id_.erase(it);
  }
}

void TxOutcomes::forget(const commit::Hash& tx_id) {
  std::lock_guard lock(mutex_);
  by_id_.erase(tx_id);
}

std::optional<TxOutcome> TxOutcomes::find(const commit::Hash& tx_id) const {
  std::lock_guard lock(mutex_);
  const auto it = by_id_.find(tx_id);
  if (it == by_id_.end()) return std::nullopt;
  return it->second.outcome;
}

}  // namespace sion::node
