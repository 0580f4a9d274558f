#pragma once
// The `sion` commands, apart from their command-line parsing (app.hpp), so
// that each can be called with options already parsed.

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/bench/group.hpp"

namespace sion::cli {

// `sion version`: version, commit, build, sanitizers, CPU and its features,
// one `key: value` line each.
void print_version(std::FILE* out);

struct BenchOptions {
  std::string node{bench::kDefaultNode};
  bool quick = false;
  bool no_devnet = false;
  std::optional<std::string> only;  // comma-separated group names
  std::optional<std::string> json;  // file to write the measurements to
};

// `sion bench`: prints the table to `out`, a row as soon as it is measured,
// then writes --json. Errors: invalid_argument for a bad --only, io_error for
// an unwritable --json (checked before measuring), or a group's error.
base::Status run_bench(const BenchOptions& options, std::FILE* out);

struct ConformanceOptions {
  std::vector<std::string> files;
  std::size_t max_failures = 20;  // failure lines printed per file
};

// What `sion conformance` found, over all its files.
struct ConformanceTotals {
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::size_t unusable_files = 0;  // unreadable, not JSON, unknown format, malformed
};

// `sion conformance FILE...`: runs each vector file through the conformance
// runner (sion/crypto/conformance.hpp) and prints, per file, `FILE: N passed,
// M failed[, K skipped]` and up to max_failures failure lines, then the
// totals as the last line, `N passed, M failed`. A file that cannot be run
// is reported on `err` as `sion: error: FILE: why`, and the other files
// still run.
ConformanceTotals run_conformance(const ConformanceOptions& options, std::FILE* out,
                                  std::FILE* err);

}  // namespace sion::cli
