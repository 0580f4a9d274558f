#include "sion/agents/cohort.hpp"

#include <string>
#include <vector>

#include "sion/commit/hash.hpp"

namespace sion::agents {

commit::SumLeaf member_leaf(const MemberTerms& terms, Amount allotment) {
  return commit::SumLeaf{commit::tagged_hash(commit::Domain::cohort_member, codec::encode(terms)), allotment};
}

base::Result<commit::SumTree> build_cohort_tree(const CohortSpec& cohort, base::Executor* executor) {
  const std::size_t count = cohort.caveats.size();
  if (count == 0 || count > kMaxCohortMembers || cohort.allotments.size() != count) {
    return base::fail(base::Errc::invalid_argument,
                      "a cohort has 1 to 2^20 members, each with caveats and an allotment; got " +
                          std::to_string(count) + " caveats and " + std::to_string(cohort.allotments.size()) +
                          " allotments");
  }
  // Equal-length encodings hash together in Keccak lanes.
  codec::EncodingBatch encodings;
  for (std::size_t i = 0; i < count; ++i) encodings.add(MemberTerms{static_cast<std::uint32_t>(i), cohort.caveats[i]});
  const auto views = encodings.views();
  std::vector<commit::Hash> hashes(count);
  commit::tagged_hashes(commit::Domain::cohort_member, views, hashes.data(), executor);
  std::vector<commit::SumLeaf> leaves(count);
  for (std::size_t i = 0; i < count; ++i) leaves[i] = commit::SumLeaf{hashes[i], cohort.allotments[i]};
  return commit::SumTree::build(leaves, executor);
}

}  // namespace sion::agents
