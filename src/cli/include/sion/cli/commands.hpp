#pragma once
// The `sion` commands, apart from their command-line parsing (app.hpp), so
// that each can be called with options already parsed.

#include <cstddef>
#include <cstdint>
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
  std::optional<std::string> node;  // a running devnet to measure (default: group devnet starts its own)
  std::string devnet_dir{bench::kDefaultDevnetDir};
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
ConformanceTotals run_conformance(const ConformanceOptions& options, std::FILE* out, std::FILE* err);

struct GenesisOptions {
  std::size_t accounts = 0;
  std::string out;                  // the genesis file
  std::optional<std::string> keys;  // key directory; default: "keys" beside the genesis file
  std::uint64_t chain_id = 1;
  std::uint64_t amount = 1'000'000'000;
  std::size_t coins_per_account = 1;
  std::string profile = "dual";
  bool force = false;  // may replace an existing genesis file (key files never)
};

// `sion genesis`: a devnet genesis file and one owner-only key file per
// account (sion/exec/genesis.hpp, docs/genesis.md), then a summary on
// `out`. Errors: invalid_argument for options that make no sense or a
// destination that exists, io_error when writing fails.
base::Status run_genesis(const GenesisOptions& options, std::FILE* out);

}  // namespace sion::cli
