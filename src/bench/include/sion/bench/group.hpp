#pragma once
// Benchmark groups and the run that drives them. A group is a named set of
// measurements (the `group` column of docs/performance.md); `sion bench
// --only` selects groups by these names.

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/bench/measure.hpp"

namespace sion::bench {

// One line of the table and one entry of the JSON "measurements".
struct Row {
  std::string group;
  std::string name;
  double value = 0;
  std::string unit;
  std::string note;
  // The 95th-percentile counterpart of value, in the same unit, where the
  // row was timed over samples (JSON only; the table shows the median).
  std::optional<double> p95;
};

using RowSink = std::function<void(const Row&)>;

// The devnet folder whose key files `--node` measures with, unless told
// otherwise (`sion devnet`'s default folder).
inline constexpr std::string_view kDefaultDevnetDir = ".sion-devnet";

struct RunOptions {
  bool quick = false;  // smaller sizes and shorter sampling
  bool devnet = true;  // false: skip the end-to-end devnet measurement
  // A running devnet's API to measure; nullopt: group devnet starts its own.
  std::optional<std::string> node;
  std::string devnet_dir{kDefaultDevnetDir};  // with `node`: its genesis.json and keys/
};

// What a group sees while it runs: the run's options and where rows go.
class Context {
 public:
  Context(std::string group, const RunOptions& options, const RowSink& sink)
      : group_(std::move(group)), options_(options), sink_(sink) {}

  bool quick() const noexcept { return options_.quick; }
  bool devnet() const noexcept { return options_.devnet; }
  const std::optional<std::string>& node() const noexcept { return options_.node; }
  const std::string& devnet_dir() const noexcept { return options_.devnet_dir; }
  MeasureOptions measure_options() const noexcept { return MeasureOptions::for_run(quick()); }

  // Emits one row of this group.
  void report(std::string name, double value, std::string unit, std::string note = {},
              std::optional<double> p95 = std::nullopt) const;
  // Emits the median of `stats`, converted from seconds per call to `unit`,
  // with its 95th percentile.
  void report_time(std::string name, const Stats& stats, TimeUnit unit, std::string note = {}) const;
  // Emits a rate: `per_call` items (transactions, leaves) per call of
  // `stats`, per second at the median time; p95 is the rate at the
  // 95th-percentile time (the slow end, so at most value).
  void report_rate(std::string name, const Stats& stats, double per_call, std::string unit,
                   std::string note = {}) const;

 private:
  std::string group_;
  const RunOptions& options_;
  const RowSink& sink_;
};

struct Group {
  std::string_view name;
  std::string_view description;  // one line, for `sion bench --help`
  // Reports its rows through the context; an error stops the run.
  base::Status (*run)(Context& context);
};

// Every group, in the order of docs/performance.md.
std::span<const Group> all_groups() noexcept;

// The group names, comma-separated, for help and error texts.
std::string group_names();

// The groups `--only` names (nullopt: every group), each once, in the order
// of all_groups() so that runs compare line by line. Items are trimmed; empty items
// are ignored. Unknown names and a list naming no group are invalid_argument
// errors that list the valid groups.
base::Result<std::vector<const Group*>> select_groups(std::optional<std::string_view> only);

// Runs the groups in order, handing each row to on_row as soon as it is
// measured, and returns every row. Stops at the first group that fails; its
// error names the group.
base::Result<std::vector<Row>> run_groups(std::span<const Group* const> groups, const RunOptions& options,
                                          const RowSink& on_row);

}  // namespace sion::bench
