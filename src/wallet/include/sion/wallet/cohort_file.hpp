#pragma once
// The file in which `sion agent cohort` keeps what it promised a cohort's
// members (docs/wallet.md, "Cohort files"): enough to rebuild the members'
// sum tree and prove any member for MaterializeAgents later. Every member
// of a cohort the CLI makes has the same caveats and allotment.

#include <cstdint>
#include <string>
#include <string_view>

#include "sion/agents/caveats.hpp"
#include "sion/agents/cohort.hpp"
#include "sion/base/result.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::wallet {

inline constexpr std::size_t kMaxCohortFileBytes = 64 * 1024;

struct CohortFile {
  exec::Id cohort{};           // the cohort node's lineage id
  std::uint32_t members = 0;   // 1 ..= agents::kMaxCohortMembers
  exec::Amount allotment = 0;  // each member's
  agents::Caveats caveats;     // each member's
  bool operator==(const CohortFile&) const = default;
};

// Member i's caveats and allotment at position i.
agents::CohortSpec cohort_spec(const CohortFile& file);

// {"cohort", "members", "allotment", "caveats_hex"}: the canonical JSON text.
std::string cohort_file_to_json(const CohortFile& file);
// Exactly those fields; caveats_hex must decode to exactly one Caveats.
// invalid_value naming the field.
base::Result<CohortFile> parse_cohort_file(std::string_view json);

// A new file (never replacing one), mode 0644.
base::Status write_cohort_file(const std::string& path, const CohortFile& file);
base::Result<CohortFile> read_cohort_file(const std::string& path);

}  // namespace sion::wallet
