#pragma once
// What became of transactions the node admitted and then removed without
// executing them (evicted, expired, replaced, dropped): kept for the most
// recent ones so that `GET /v1/transactions/{id}` can tell a sender
// instead of leaving it guessing (docs/api.md). Bounded: the oldest
// outcome goes first.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "sion/commit/hash.hpp"
#include "sion/policy/tx_pool.hpp"

namespace sion::node {

struct TxOutcome {
  policy::RemovalReason reason = policy::RemovalReason::evicted;
  std::uint64_t height = 0;  // the latest height when it was removed
};

class TxOutcomes {
 public:
  explicit TxOutcomes(std::size_t capacity = 100'000) : capacity_(capacity == 0 ? 1 : capacity) {}

  void record(const commit::Hash& tx_id, TxOutcome outcome);
  // A later admission of the same transaction makes the outcome stale.
  void forget(const commit::Hash& tx_id);
  std::optional<TxOutcome> find(const commit::Hash& tx_id) const;

 private:
  mutable std::mutex mutex_;
  std::size_t capacity_;
  struct Kept {
    TxOutcome outcome;
    std::uint64_t sequence = 0;  // when it was recorded
  };
  std::map<commit::Hash, Kept> by_id_;
  // (id, sequence), oldest first; entries whose sequence no longer matches
  // by_id_ (forgotten or recorded again since) are skipped.
  std::deque<std::pair<commit::Hash, std::uint64_t>> order_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace sion::node
