#include "sion/bench/group.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include <fmt/format.h>

#include "groups/groups.hpp"

namespace sion::bench {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

}  // namespace

void Context::report(std::string name, double value, std::string unit, std::string note,
                     std::optional<double> p95) const {
  sink_(Row{group_, std::move(name), value, std::move(unit), std::move(note), p95});
}

void Context::report_time(std::string name, const Stats& stats, TimeUnit unit, std::string note) const {
  report(std::move(name), seconds_in(unit, stats.median), std::string(unit_symbol(unit)), std::move(note),
         seconds_in(unit, stats.p95));
}

void Context::report_rate(std::string name, const Stats& stats, double per_call, std::string unit,
                          std::string note) const {
  report(std::move(name), per_call / stats.median, std::move(unit), std::move(note), per_call / stats.p95);
}

std::span<const Group> all_groups() noexcept {
  // An explicit list rather than self-registration from each group's file:
  // the linker drops object files of a static library that nothing
  // references, and their registrars with them. The order of
  // docs/performance.md, so that runs compare line by line.
  static const Group kGroups[] = {groups::signatures(), groups::authorization(), groups::state(),
                                  groups::data(),       groups::transparency(),  groups::execution(),
                                  groups::lineage(),    groups::streams(),       groups::devnet()};
  return kGroups;
}

std::string group_names() {
  std::string names;
  for (const Group& group : all_groups()) {
    if (!names.empty()) names += ", ";
    names += group.name;
  }
  return names;
}

base::Result<std::vector<const Group*>> select_groups(std::optional<std::string_view> only) {
  const auto groups = all_groups();
  std::vector<bool> chosen(groups.size(), !only.has_value());
  std::string_view rest = only.value_or(std::string_view{});
  while (only && !rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    const auto found =
        std::find_if(groups.begin(), groups.end(), [item](const Group& group) { return group.name == item; });
    if (found == groups.end()) {
      return base::fail(base::Errc::invalid_argument,
                        fmt::format("unknown group '{}' in --only; valid groups: {}", item, group_names()));
    }
    chosen[static_cast<std::size_t>(found - groups.begin())] = true;
  }

  std::vector<const Group*> selected;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (chosen[i]) selected.push_back(&groups[i]);
  }
  if (selected.empty()) {
    return base::fail(base::Errc::invalid_argument,
                      fmt::format("--only names no group; valid groups: {}", group_names()));
  }
  return selected;
}

base::Result<std::vector<Row>> run_groups(std::span<const Group* const> groups, const RunOptions& options,
                                          const RowSink& on_row) {
  std::vector<Row> rows;
  const RowSink collect = [&rows, &on_row](const Row& row) {
    rows.push_back(row);
    on_row(row);
  };
  for (const Group* group : groups) {
    Context context(std::string(group->name), options, collect);
    // A group may use code that throws; its exceptions end here, as errors.
    base::Status status;
    try {
      status = group->run(context);
    } catch (const std::exception& e) {
      status = base::fail(base::Errc::internal, e.what());
    }
    if (!status) {
      return base::fail(status.error().code, fmt::format("group '{}': {}", group->name, status.error().reason));
    }
  }
  return rows;
}

}  // namespace sion::bench
