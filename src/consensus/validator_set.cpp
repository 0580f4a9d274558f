#include "sion/consensus/validator_set.hpp"

#include <algorithm>
#include <string>

#include "sion/base/endian.hpp"

namespace sion::consensus {

base::Result<ValidatorSet> ValidatorSet::create(std::vector<std::uint64_t> stakes) {
  if (stakes.empty()) return base::fail(base::Errc::invalid_value, "validator set: no validators");
  if (stakes.size() > kMaxValidators) {
    return base::fail(base::Errc::invalid_value, "validator set: " + std::to_string(stakes.size()) +
                                                     " validators, more than " + std::to_string(kMaxValidators));
  }
  ValidatorSet set;
  for (std::size_t i = 0; i < stakes.size(); ++i) {
    if (stakes[i] == 0) {
      return base::fail(base::Errc::invalid_value, "validator set: validator " + std::to_string(i) + " has no stake");
    }
    if (stakes[i] >= (std::uint64_t{1} << 62) - set.total_) {
      return base::fail(base::Errc::invalid_value, "validator set: total stake reaches 2^62");
    }
    set.total_ += stakes[i];
    set.cumulative_.push_back(set.total_);
  }
  set.stakes_ = std::move(stakes);
  set.quorum_ = set.total_ * 2 / 3 + 1;
  set.availability_ = set.total_ / 3 + 1;
  return set;
}

ValidatorIndex ValidatorSet::leader(Round round) const noexcept {
  std::uint8_t word[8];
  base::store_le(word, round);
  const Hash seed = commit::tagged_hash(commit::Domain::leader_seed, base::ByteView(word, 8));
  const std::uint64_t point = base::load_le<std::uint64_t>(seed.data()) % total_;
  // The first validator whose cumulative stake exceeds the point.
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), point);
  return static_cast<ValidatorIndex>(it - cumulative_.begin());
}

}  // namespace sion::consensus
