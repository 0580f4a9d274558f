#include "sion/bench/report.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sion/base/build_info.hpp"
#include "sion/base/cpu.hpp"
#include "sion/base/file.hpp"

namespace sion::bench {
namespace {

// Column widths of the tables in docs/performance.md, fitted to every row:
// group 12, measurement 52, value 14 (two decimals), unit 8, each followed by
// one space. A longer cell pushes the rest of its line right.
constexpr std::size_t kGroupWidth = 12;
constexpr std::size_t kNameWidth = 52;
constexpr std::size_t kValueWidth = 14;
constexpr std::size_t kUnitWidth = 8;

// Characters, not bytes: every byte but a UTF-8 continuation byte starts one.
std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

void append_left(std::string& out, std::string_view text, std::size_t width) {
  out += text;
  const std::size_t used = display_width(text);
  if (used < width) out.append(width - used, ' ');
}

void append_right(std::string& out, std::string_view text, std::size_t width) {
  const std::size_t used = display_width(text);
  if (used < width) out.append(width - used, ' ');
  out += text;
}

std::string format_line(std::string_view group, std::string_view name, std::string_view value, std::string_view unit,
                        std::string_view note) {
  std::string line;
  append_left(line, group, kGroupWidth);
  line += ' ';
  append_left(line, name, kNameWidth);
  line += ' ';
  append_right(line, value, kValueWidth);
  line += ' ';
  append_left(line, unit, kUnitWidth);
  line += ' ';
  line += note;
  return line;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  const std::size_t size = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string(text, size);
}

}  // namespace

std::string table_header() { return format_line("group", "measurement", "value", "unit", "note"); }

std::string format_row(const Row& row) {
  return format_line(row.group, row.name, fmt::format("{:.2f}", row.value), row.unit, row.note);
}

MachineInfo describe_machine() {
  const base::BuildInfo& build = base::build_info();
  MachineInfo machine;
  machine.cpu = base::cpu_model_name();
  machine.cores = std::thread::hardware_concurrency();
  // The features in force (after SION_CPU_DISABLE), since those decide which
  // kernels the measurements ran.
  machine.flags = base::cpu_features().names();
  machine.compiler = build.compiler;
  machine.build_type = build.build_type;
  machine.commit = build.commit;
  machine.date = utc_now_iso8601();
  return machine;
}

base::Result<std::string> to_json(const Results& results) {
  // ordered_json keeps the keys in the documented order, for people reading the file.
  using json = nlohmann::ordered_json;
  try {
    json measurements = json::array();
    for (const Row& row : results.measurements) {
      json entry = {{"group", row.group}, {"name", row.name}, {"value", row.value}};
      if (row.p95) entry["p95"] = *row.p95;
      entry["unit"] = row.unit;
      entry["note"] = row.note;
      measurements.push_back(std::move(entry));
    }
    const MachineInfo& machine = results.machine;
    const json document = {
        {"machine",
         {{"cpu", machine.cpu},
          {"cores", machine.cores},
          {"flags", machine.flags},
          {"compiler", machine.compiler},
          {"build_type", machine.build_type},
          {"commit", machine.commit},
          {"date", machine.date}}},
        {"version", results.version},
        {"measurements", std::move(measurements)},
    };
    // Invalid UTF-8 in a name or note becomes U+FFFD instead of an error.
    return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  } catch (const json::exception& e) {
    return base::fail(base::Errc::internal, fmt::format("cannot encode JSON: {}", e.what()));
  }
}

// The file replaced atomically (base::replace_file): a reader sees the old
// report or the new one, never part of one.
base::Status write_json(const std::filesystem::path& path, const Results& results) {
  const auto text = to_json(results);
  if (!text) return base::fail(text.error());
  return base::replace_file(path.string(), *text, {.what = "", .mode = 0644});
}

base::Status check_writable(const std::filesystem::path& path) {
  // What replace_file would refuse only at the end of the run.
  return base::check_replaceable(path.string(), {.what = "", .mode = 0644});
}

}  // namespace sion::bench
