// Group `state`, continued: the Merkle sum tree over agent cohorts
// (src/commit/sum_tree.hpp). Target: docs/performance.md, "state".

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "groups.hpp"
#include "sion/bench/cores.hpp"
#include "sion/commit/sum_tree.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::bench::groups {

base::Status report_sum_tree(Context& context) {
  constexpr std::size_t kLeaves = 1U << 20;
  std::vector<commit::SumLeaf> leaves(kLeaves);
  for (std::size_t i = 0; i < kLeaves; ++i) {
    leaves[i].hash.fill(static_cast<std::uint8_t>(i));
    for (std::size_t b = 0; b < 8; ++b) leaves[i].hash[b] = static_cast<std::uint8_t>(i >> (8 * b));
    leaves[i].amount = (i * 0x9E3779B97F4A7C15ULL) >> 24;  // up to 2^40 each: the total fits
  }
  base::Executor all_cores(0);
  bool built = true;
  const Stats stats = time_each_call(
      [&] {
        auto tree = commit::SumTree::build(leaves, &all_cores);
        built &= tree.ok();
        if (tree) do_not_optimize(tree->root());
      },
      context.measure_options());
  if (!built) return base::fail(base::Errc::internal, "sum tree: build failed");
  context.report_time(
      fmt::format("build sum tree of {} leaves", kLeaves), stats, TimeUnit::ms,
      fmt::format("leaf and node hashes in SHA3-256 Keccak lanes, levels split over {}", cores_note(&all_cores)));
  return {};
}

}  // namespace sion::bench::groups
