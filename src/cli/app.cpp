#include "sion/cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "sion/bench/group.hpp"
#include "sion/cli/commands.hpp"

namespace sion::cli {
namespace {

int code(ExitCode exit_code) { return static_cast<int>(exit_code); }

// C stdio only: this also runs inside catch blocks, where it must not throw.
void print_error(const char* reason) { std::fprintf(stderr, "sion: error: %s\n", reason); }

// The environment's value, shown in help as seed 000 shows it.
std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string{} : std::string(value);
}

// Options and help texts follow seed 000's `sion bench --help`.
void add_bench(CLI::App& app, BenchOptions& options) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Measure the costs that decide how far this design scales, on this machine");
  bench->add_option("--node", options.node,
                    fmt::format("The node's API [env: SION_NODE={}] [default: {}]",
                                env_or_empty("SION_NODE"), bench::kDefaultNode))
      ->envname("SION_NODE")
      ->option_text("<NODE>");
  bench->add_flag("--quick", options.quick, "Smaller sizes");
  bench->add_flag("--no-devnet", options.no_devnet, "Skip the end-to-end devnet measurement");
  bench->add_option("--only", options.only,
                    fmt::format("Run only these groups: {} (comma-separated)", bench::group_names()))
      ->option_text("<ONLY>");
  bench->add_option("--json", options.json, "Write the measurements as JSON to this file")
      ->option_text("<JSON>");
  // Re-added so that it is listed last, as in the seed (it is inherited first).
  bench->set_help_flag();
  bench->set_help_flag("-h,--help", "Print help");

  std::string footer = "Groups:\n";
  for (const bench::Group& group : bench::all_groups()) {
    footer += fmt::format("  {:<14} {}\n", group.name, group.description);
  }
  bench->footer(footer);
}

void add_conformance(CLI::App& app, ConformanceOptions& options) {
  CLI::App* conformance = app.add_subcommand(
      "conformance",
      "Run signature test-vector files (NIST ACVP merged, Wycheproof) against this build");
  conformance->add_option("FILE", options.files, "Vector files (shared/vectors/README.md)")
      ->required()
      ->option_text("<FILE>...");
  conformance
      ->add_option("--max-failures", options.max_failures,
                   fmt::format("Failed cases to print per file [default: {}]",
                               options.max_failures))
      ->option_text("<N>");
  conformance->set_help_flag();
  conformance->set_help_flag("-h,--help", "Print help");
  conformance->footer(
      "Prints `FILE: N passed, M failed[, K skipped]` per file with its failed cases, then the\n"
      "totals, `N passed, M failed`. Exit status: 0 if every case passed, 1 if any failed,\n"
      "2 if a file could not be run (unreadable, not JSON, unknown format).");
}

int run_app(int argc, const char* const* argv) {
  CLI::App app("Sion: a post-quantum ledger for agent payments", "sion");
  app.set_help_flag("-h,--help", "Print help");
  app.require_subcommand(1);
  // Subcommands copy this when they are added, so it comes first.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("sion: error: {}\nRun with --help for more information.\n", e.what());
  });
  app.get_formatter()->column_width(20);

  CLI::App* version = app.add_subcommand("version", "Print the version, build and CPU features");
  BenchOptions bench_options;
  add_bench(app, bench_options);
  ConformanceOptions conformance_options;
  add_conformance(app, conformance_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help requests are ParseErrors too, with exit code 0.
    return app.exit(e) == 0 ? code(ExitCode::ok) : code(ExitCode::usage);
  }

  if (version->parsed()) {
    print_version(stdout);
    return code(ExitCode::ok);
  }
  if (app.got_subcommand("conformance")) {
    const ConformanceTotals totals = run_conformance(conformance_options, stdout, stderr);
    if (totals.unusable_files > 0) return code(ExitCode::usage);
    return code(totals.failed > 0 ? ExitCode::failure : ExitCode::ok);
  }
  // Exactly one subcommand was required and it is neither of the above: bench.
  const base::Status status = run_bench(bench_options, stdout);
  if (!status) {
    print_error(status.error().reason.c_str());
    // An option value that makes no sense (an unknown group) is a usage
    // error; anything else failed while running.
    const bool usage = status.error().code == base::Errc::invalid_argument;
    return code(usage ? ExitCode::usage : ExitCode::failure);
  }
  return code(ExitCode::ok);
}

}  // namespace

int run(int argc, const char* const* argv) noexcept {
  try {
    return run_app(argc, argv);
  } catch (const std::exception& e) {
    print_error(e.what());
  } catch (...) {
    print_error("unexpected exception");
  }
  return code(ExitCode::failure);
}

}  // namespace sion::cli
