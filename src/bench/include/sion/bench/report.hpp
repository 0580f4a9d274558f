#pragma once
// The two outputs of `sion bench`: the table on standard output, laid out as
// in docs/performance.md so runs compare line by line, and the JSON file of
// --json.

#include <filesystem>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/bench/group.hpp"

namespace sion::bench {

// The table's header line and one row, without a newline. Widths are counted
// in characters (code points), not bytes, so "µs" and "×" line up.
std::string table_header();
std::string format_row(const Row& row);

struct MachineInfo {
  std::string cpu;                 // processor brand string
  unsigned cores = 0;              // hardware threads
  std::vector<std::string> flags;  // CPU features the kernels dispatch on
  std::string compiler;
  std::string build_type;
  std::string commit;
  std::string date;  // UTC, ISO 8601, e.g. 2026-10-28T09:14:03Z
};

// This machine and this build, dated now.
MachineInfo describe_machine();

struct Results {
  MachineInfo machine;
  std::string version;
  std::vector<Row> measurements;
};

// {"machine": {...}, "version": ..., "measurements": [{group, name, value,
// [p95,] unit, note}, ...]}, indented; p95 where the row has one.
base::Result<std::string> to_json(const Results& results);

// Writes to_json(results) to a temporary file beside `path`, then renames it,
// so a reader never sees half a file. io_error if the file cannot be written.
base::Status write_json(const std::filesystem::path& path, const Results& results);

// Fails as write_json would if `path` cannot be written, so that a long run
// is not wasted on a bad --json argument. Leaves nothing behind.
base::Status check_writable(const std::filesystem::path& path);

}  // namespace sion::bench
