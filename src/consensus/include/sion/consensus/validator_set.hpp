#pragma once
// The validators of a chain, weighted by stake (docs/consensus.md,
// "Validators"): who leads each round and how much stake makes a quorum.

#include <cstdint>
#include <span>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/consensus/messages.hpp"

namespace sion::consensus {

class ValidatorSet {
 public:
  // Each validator's stake, by index; at least one validator, none with
  // zero stake, at most kMaxValidators, a total below 2^62.
  static base::Result<ValidatorSet> create(std::vector<std::uint64_t> stakes);

  std::size_t size() const noexcept { return stakes_.size(); }
  std::uint64_t stake(ValidatorIndex v) const noexcept { return stakes_[v]; }
  std::uint64_t total() const noexcept { return total_; }
  bool contains(ValidatorIndex v) const noexcept { return v < stakes_.size(); }

  // floor(2 total / 3) + 1: any two quorums share more than a third of the
  // stake, so at least one honest validator while faulty stake < total / 3.
  std::uint64_t quorum() const noexcept { return quorum_; }
  // floor(total / 3) + 1: any set this heavy holds an honest validator.
  std::uint64_t availability() const noexcept { return availability_; }

  // The leader of `round`: the validator whose cumulative stake interval
  // holds u64le(SHA3-256(0x73 || u64le(round))[0..8)) mod total.
  ValidatorIndex leader(Round round) const noexcept;

 private:
  std::vector<std::uint64_t> stakes_;
  std::vector<std::uint64_t> cumulative_;  // cumulative_[i] = stakes_[0] + ... + stakes_[i]
  std::uint64_t total_ = 0;
  std::uint64_t quorum_ = 0;
  std::uint64_t availability_ = 0;
};

// Sums the stake of a set of validators given as a sorted, duplicate-free
// list; the caller checks membership.
class StakeTally {
 public:
  explicit StakeTally(const ValidatorSet& set) : set_(&set), seen_(set.size(), false) {}
  // False when `v` is out of range or counted already.
  bool add(ValidatorIndex v) {
    if (!set_->contains(v) || seen_[v]) return false;
    seen_[v] = true;
    total_ += set_->stake(v);
    return true;
  }
  bool has(ValidatorIndex v) const noexcept { return set_->contains(v) && seen_[v]; }
  std::uint64_t total() const noexcept { return total_; }

 private:
  const ValidatorSet* set_;
  std::vector<bool> seen_;
  std::uint64_t total_ = 0;
};

}  // namespace sion::consensus
