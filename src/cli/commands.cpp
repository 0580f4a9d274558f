#include "sion/cli/commands.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "sion/base/build_info.hpp"
#include "sion/base/cpu.hpp"
#include "sion/bench/group.hpp"
#include "sion/bench/report.hpp"
#include "sion/cli/keys.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/conformance.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/wallet/devnet.hpp"

namespace sion::cli {

void print_version(std::FILE* out) {
  const base::BuildInfo& build = base::build_info();
  fmt::print(out, "sion {}\n", build.version);
  fmt::print(out, "commit: {}\n", build.commit);
  fmt::print(out, "build: {} ({})\n", build.build_type, build.compiler);
  if (!build.sanitizers.empty()) fmt::print(out, "sanitizers: {}\n", build.sanitizers);
  fmt::print(out, "cpu: {}\n", base::cpu_model_name());
  const std::vector<std::string> features = base::cpu_features().names();
  fmt::print(out, "features: {}\n", features.empty() ? "none" : fmt::format("{}", fmt::join(features, " ")));
}

base::Status run_bench(const BenchOptions& options, std::FILE* out) {
  const auto groups = bench::select_groups(options.only);
  if (!groups) return base::fail(groups.error());
  if (options.json) {
    if (auto writable = bench::check_writable(*options.json); !writable) return writable;
  }

  bench::Results results{bench::describe_machine(), std::string(base::build_info().version), {}};
  bench::RunOptions run_options;
  run_options.quick = options.quick;
  run_options.devnet = !options.no_devnet;
  run_options.node = options.node;
  run_options.devnet_dir = options.devnet_dir;

  fmt::print(out, "{}\n", bench::table_header());
  std::fflush(out);
  SION_TRY(results.measurements, bench::run_groups(*groups, run_options, [out](const bench::Row& row) {
             fmt::print(out, "{}\n", bench::format_row(row));
             std::fflush(out);  // a long run shows each row as it is measured
           }));
  if (!options.json) return {};
  return bench::write_json(*options.json, results);
}

ConformanceTotals run_conformance(const ConformanceOptions& options, std::FILE* out, std::FILE* err) {
  ConformanceTotals totals;
  for (const std::string& file : options.files) {
    const auto report = crypto::run_conformance_file(file);
    if (!report) {
      std::fflush(out);
      fmt::print(err, "sion: error: {}\n", report.error().reason);
      std::fflush(err);
      ++totals.unusable_files;
      continue;
    }
    fmt::print(out, "{}: {} passed, {} failed", file, report->passed, report->failed);
    if (report->skipped > 0) fmt::print(out, ", {} skipped", report->skipped);
    fmt::print(out, "\n");
    // ACVP groups have their own ids; Wycheproof groups are numbered from 1.
    const char* group_word = report->format == crypto::VectorFormat::acvp_merged ? "tgId" : "group";
    const std::size_t shown = std::min(report->failures.size(), options.max_failures);
    for (std::size_t i = 0; i < shown; ++i) {
      const crypto::CaseNote& failure = report->failures[i];
      fmt::print(out, "  FAIL {} {} tcId {}: {}\n", group_word, failure.group_id, failure.tc_id, failure.reason);
    }
    if (report->failures.size() > shown) {
      fmt::print(out, "  ... and {} more failed cases\n", report->failures.size() - shown);
    }
    std::fflush(out);  // a long run shows each file as it finishes
    totals.passed += report->passed;
    totals.failed += report->failed;
    totals.skipped += report->skipped;
  }
  fmt::print(out, "{} passed, {} failed\n", totals.passed, totals.failed);
  return totals;
}

base::Status run_genesis(const GenesisOptions& options, std::FILE* out) {
  SION_TRY(const crypto::Profile profile, profile_option(options.profile));
  wallet::DevnetSpec spec;
  spec.accounts = options.accounts;
  spec.chain_id = options.chain_id;
  spec.amount = options.amount;
  spec.coins_per_account = options.coins_per_account;
  spec.profile = profile;
  spec.genesis_path = options.out;
  spec.key_dir = options.keys.value_or("");
  spec.overwrite = options.force;
  auto devnet = wallet::write_devnet(spec);
  if (!devnet) {
    base::Error error = std::move(devnet).error();
    if (error.reason.find("genesis file") != std::string::npos &&
        error.reason.find("already exists") != std::string::npos) {
      error.reason += " (--force replaces it)";
    }
    return base::fail(std::move(error));
  }

  const exec::Genesis& genesis = devnet->genesis;
  const std::size_t coins = options.coins_per_account * genesis.accounts.size();
  fmt::print(out, "genesis: {}\n", devnet->genesis_path);
  fmt::print(out, "chain id: {}\n", genesis.params.chain_id);
  fmt::print(out, "accounts: {} ({} keys)\n", genesis.accounts.size(), crypto::profile_name(profile));
  fmt::print(out, "coins: {} of {}, total supply {}\n", coins, options.amount, devnet->total_supply);
  fmt::print(out, "state root: {}\n", base::to_hex(devnet->state_root));
  const std::string& first = devnet->key_files.front();
  if (devnet->key_files.size() == 1) {
    fmt::print(out, "key files: {} (owner only)\n", first);
  } else {
    fmt::print(out, "key files: {} .. {} (owner only)\n", first, wallet::key_file_name(devnet->key_files.size() - 1));
  }
  return {};
}

}  // namespace sion::cli
