#pragma once
// Cohorts: up to 2^20 keyless agents committed by one Merkle sum tree,
// each materialized later with its sum proof (docs/agents.md,
// "SpawnCohort", "MaterializeAgents").

#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/agents/caveats.hpp"
#include "sion/base/executor.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/sum_tree.hpp"

namespace sion::agents {

inline constexpr std::uint32_t kMaxCohortMembers = 1u << 20;

// What a member is promised, beside its allotment (the leaf's amount).
struct MemberTerms {
  std::uint32_t index = 0;
  Caveats caveats;
  static constexpr std::string_view codec_name = "MemberTerms";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("index", &MemberTerms::index), codec::field("caveats", &MemberTerms::caveats)};
  }
  bool operator==(const MemberTerms&) const = default;
};

// The member's leaf: {SHA3-256(0x49 || encode(terms)), allotment}.
commit::SumLeaf member_leaf(const MemberTerms& terms, Amount allotment);

// A cohort as its builder holds it: member i's caveats and allotment at
// position i.
struct CohortSpec {
  std::vector<Caveats> caveats;    // member i's
  std::vector<Amount> allotments;  // member i's
};
// The members' sum tree, hashed in Keccak lanes and split over `executor`.
// invalid_argument for no members, more than 2^20, lists of unequal
// length, or allotments summing past 2^64 - 1.
base::Result<commit::SumTree> build_cohort_tree(const CohortSpec& cohort, base::Executor* executor = nullptr);

}  // namespace sion::agents
