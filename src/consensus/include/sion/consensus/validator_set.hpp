#pragma once
// The validators of a chain, weighted by stake (docs/consensus.md,
// "Validators"): who leads each round and how much stake makes a quorum.

#include <cstdint>
#include <optional>
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

  // The stake of the validators signer(item) names for each of `items`,
  // when they are validators in strictly ascending order (so none twice, as
  // every certificate lists its signers); nullopt otherwise.
  template <class Items, class SignerOf>
  std::optional<std::uint64_t> ascending_stake(const Items& items, SignerOf signer) const {
    std::uint64_t total = 0;
    std::optional<ValidatorIndex> previous;
    for (const auto& item : items) {
      const ValidatorIndex v = signer(item);
      if (!contains(v) || (previous && v <= *previous)) return std::nullopt;
      previous = v;
      total += stakes_[v];
    }
    return total;
  }

 private:
  std::vector<std::uint64_t> stakes_;
  std::vector<std::uint64_t> cumulative_;  // cumulative_[i] = stakes_[0] + ... + stakes_[i]
  std::uint64_t total_ = 0;
  std::uint64_t quorum_ = 0;
  std::uint64_t availability_ = 0;
};

}  // namespace sion::consensus
