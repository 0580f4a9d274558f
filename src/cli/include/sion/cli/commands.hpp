#pragma once
// The `sion` commands, apart from their command-line parsing (app.hpp), so
// that each can be called with options already parsed.

#include <cstdio>
#include <optional>
#include <string>

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

}  // namespace sion::cli
