// Group `devnet` (docs/performance.md, "devnet"): a devnet measured end to
// end through its HTTP API on loopback, as a client sees it. The group starts
// its own devnet of four validator processes (`sion node`, one per
// validator, in a temporary folder on free loopback ports; 50 ms Pulses), or,
// with `--node`, measures one already running there (its key files from
// `--devnet-dir`). Every transfer is a pre-signed dual-signed (ML-DSA-44 +
// SLH-DSA-SHA2-128f) transfer sent to validator 0; signing happens before
// each run's clock.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "groups.hpp"
#include "sion/base/executor.hpp"
#include "sion/base/json.hpp"
#include "sion/base/process_group.hpp"
#include "sion/bench/cores.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/http/client.hpp"
#include "sion/net/free_ports.hpp"
#include "sion/node/config.hpp"
#include "sion/node/devnet_dir.hpp"
#include "sion/wallet/http_transport.hpp"
#include "sion/wallet/load_plan.hpp"
#include "sion/wallet/node_api.hpp"
#include "sion/wallet/node_load.hpp"

namespace sion::bench::groups {
namespace {

constexpr std::size_t kValidators = 4;
constexpr std::uint32_t kIntervalMs = 50;
constexpr std::size_t kAccounts = 256;  // enough that no sender reaches the mempool's per-sender limit
// The batched admission run: transfers per POST /v1/transactions/batch, and
// its connections. 64 dual-signed transfers (about 20 KB each) fit the
// default 4 MiB body limit many times over; with 256 senders a batch of 64
// consecutive plan transfers holds 64 distinct senders, which the node
// spreads over its admission workers.
constexpr std::uint64_t kBatch = 64;
constexpr std::size_t kBatchConnections = 2;

// The devnet measured: started here (processes and folder owned) or external.
struct Devnet {
  std::string url;  // validator 0's API
  std::vector<std::string> urls;
  exec::Genesis genesis;
  std::string key_dir;
  base::ProcessGroup validators;
  std::filesystem::path owned_dir;

  Devnet() = default;
  Devnet(const Devnet&) = delete;
  Devnet& operator=(const Devnet&) = delete;
  ~Devnet() {
    validators.stop();
    std::error_code ignored;
    if (!owned_dir.empty()) std::filesystem::remove_all(owned_dir, ignored);
  }
};

base::Result<std::string> this_executable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return base::fail(base::Errc::io_error, "devnet bench: cannot find this executable: " + error.message());
  return path.string();
}

// GET `path` as JSON from `url`.
base::Result<base::JsonValue> get_json(const std::string& url, const std::string& path) {
  SION_TRY(http::Client client, http::Client::create(url));
  SION_TRY(const http::ClientResponse response, client.get(path));
  if (response.status != 200) {
    return base::fail(base::Errc::io_error, fmt::format("{}{}: HTTP {}", url, path, response.status));
  }
  return base::parse_json(response.body);
}

// Waits until every validator answers and is linked to every other one.
base::Status wait_until_linked(const Devnet& devnet) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (const std::string& url : devnet.urls) {
    for (;;) {
      auto consensus = get_json(url, "/v1/consensus");
      if (consensus && consensus->contains("connected") && (*consensus)["connected"].size() == kValidators - 1) break;
      if (std::chrono::steady_clock::now() > deadline) {
        return base::fail(base::Errc::io_error,
                          fmt::format("devnet bench: the validator at {} did not link to the others within 60 s "
                                      "(see the node.log files)",
                                      url));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return {};
}

base::Result<std::unique_ptr<Devnet>> start_own_devnet() {
  auto devnet = std::make_unique<Devnet>();
  std::random_device entropy;
  devnet->owned_dir =
      std::filesystem::temp_directory_path() / fmt::format("sion-bench-devnet-{}-{}", entropy(), entropy());
  // The devnet's API and consensus ports: P .. P + 2 * kValidators - 1.
  SION_TRY(const std::uint16_t port, net::free_loopback_ports(static_cast<std::uint16_t>(2 * kValidators)));
  node::DevnetDirSpec spec;
  spec.dir = devnet->owned_dir.string();
  spec.validators = kValidators;
  spec.accounts = kAccounts;
  spec.api_address = {"127.0.0.1", port};
  spec.interval_ms = kIntervalMs;
  SION_TRY(node::DevnetDir made, node::create_devnet_dir(spec));
  SION_TRY(const std::string program, this_executable());
  for (std::size_t i = 0; i < made.configs.size(); ++i) {
    node::NodeConfig config = made.configs[i];
    config.log.level = node::LogLevel::warn;  // a log line per Pulse would cost I/O the bench does not measure
    std::ofstream(made.config_paths[i], std::ios::trunc) << node::config_to_toml(config);
    devnet->urls.push_back(fmt::format("http://{}:{}", config.api.address.host, config.api.address.port));
    const std::string output = (std::filesystem::path(made.config_paths[i]).parent_path() / "stdout.log").string();
    SION_TRY_STATUS(devnet->validators.spawn(program, {"sion", "node", "--config", made.config_paths[i]}, output));
  }
  devnet->url = devnet->urls.front();
  SION_TRY(devnet->genesis, exec::read_genesis_file(made.config.genesis_file));
  devnet->key_dir = (devnet->owned_dir / "keys").string();
  SION_TRY_STATUS(wait_until_linked(*devnet));
  return devnet;
}

base::Result<std::unique_ptr<Devnet>> open_external_devnet(const std::string& url, const std::string& dir) {
  auto devnet = std::make_unique<Devnet>();
  devnet->url = url;
  devnet->urls = {url};
  const std::filesystem::path folder(dir);
  SION_TRY_CONTEXT(devnet->genesis, "--devnet-dir " + dir, exec::read_genesis_file((folder / "genesis.json").string()));
  devnet->key_dir = (folder / "keys").string();
  return devnet;
}

// One load run: `total` transfers signed (outside the clock) from the
// accounts' current state, then sent at `rate` over `submitters`
// connections. Every admitted transfer must execute: a run that lost one
// measured something else.
base::Result<wallet::LoadReport> run_load(Devnet& devnet, std::vector<wallet::LoadAccount>& accounts,
                                          std::uint64_t total, std::uint64_t rate, std::size_t submitters,
                                          base::Executor& executor, wallet::LoadPlan* plan_out = nullptr,
                                          std::uint64_t batch = 1) {
  wallet::PlanOptions plan_options;
  plan_options.executor = &executor;
  SION_TRY(wallet::LoadPlan plan, wallet::plan_node_load(devnet.url, accounts, total, plan_options));
  plan.txs.resize(std::min<std::size_t>(plan.txs.size(), total));  // send order: a prefix of every chain
  wallet::NodeLoadOptions options;
  options.submitters = submitters;
  options.load.rate = rate;
  options.load.duration_ms = (total * 1000 + rate - 1) / rate;
  options.load.drain_ms = 30'000;
  options.load.batch = batch;
  SION_TRY(wallet::LoadReport report, wallet::run_node_load(devnet.url, plan, options));
  if (report.failed != 0) {
    return base::fail(base::Errc::io_error, fmt::format("devnet bench: {} submissions failed, the first: {}",
                                                        report.failed, report.first_failure));
  }
  if (report.executed != report.admitted) {
    return base::fail(base::Errc::internal, fmt::format("devnet bench: {} admitted but {} executed within 30 s",
                                                        report.admitted, report.executed));
  }
  if (plan_out != nullptr) *plan_out = std::move(plan);
  return report;
}

double ms(std::uint64_t us) { return static_cast<double>(us) / 1000.0; }

std::string refusals_note(const wallet::LoadReport& report) {
  if (report.refused == 0) return "none refused";
  std::string text = fmt::format("{} refused:", report.refused);
  for (const auto& [code, count] : report.refused_by_code) text += fmt::format(" {} {}", count, code);
  return text;
}

base::Result<wallet::NodeApi> api_of(const std::string& url) {
  SION_TRY(wallet::HttpCall call, wallet::http_call_for(url));
  return wallet::NodeApi(std::move(call));
}

// Header times of the Pulses above `from`, up to the chain's height.
base::Result<std::vector<std::uint64_t>> pulse_times_after(wallet::NodeApi& api, std::uint64_t from) {
  SION_TRY(const wallet::NodeStatus status, api.status());
  std::vector<std::uint64_t> times;
  for (std::uint64_t height = from + 1; height <= status.height; ++height) {
    SION_TRY(const wallet::PulseReply pulse, api.pulse(height));
    times.push_back(pulse.header.time_ms);
  }
  return times;
}

// Median time of one dual verification of a transfer the plan signed (no
// cache), on one core: the signature ceiling's denominator.
base::Result<Stats> dual_verify_time(const wallet::LoadPlan& plan, const MeasureOptions& options) {
  if (plan.txs.empty()) return base::fail(base::Errc::internal, "devnet bench: no transfer to verify");
  SION_TRY(const exec::Transaction tx, codec::decode<exec::Transaction>(plan.txs.front().encoding));
  const OneCore core;
  bool ok = true;
  const Stats stats = time_per_call(
      [&] {
        ok = exec::verify_signatures(tx) && ok;
        do_not_optimize(ok);
      },
      options);
  if (!ok) return base::fail(base::Errc::internal, "devnet bench: a planned transfer's signatures do not verify");
  return stats;
}

// The consensus round validator 0 is in, for rounds per Pulse.
std::optional<std::uint64_t> consensus_round(const std::string& url) {
  auto consensus = get_json(url, "/v1/consensus");
  if (!consensus || !consensus->contains("round") || !(*consensus)["round"].is_number_unsigned()) return std::nullopt;
  return (*consensus)["round"].get<std::uint64_t>();
}

base::Status run_devnet_group(Context& context) {
  if (!context.devnet()) return {};  // --no-devnet
  std::unique_ptr<Devnet> devnet;
  if (context.node()) {
    SION_TRY(devnet, open_external_devnet(*context.node(), context.devnet_dir()));
  } else {
    SION_TRY(devnet, start_own_devnet());
  }
  const std::string where =
      context.node() ? fmt::format("the devnet at {}", devnet->url)
                     : fmt::format(
                           "own devnet: {} validator processes, {} ms least Pulse interval, {} accounts, sent to "
                           "validator 0",
                           kValidators, kIntervalMs, kAccounts);
  SION_TRY(std::vector<wallet::LoadAccount> accounts, wallet::load_accounts(devnet->genesis, devnet->key_dir));
  if (accounts.size() < 32) {
    return base::fail(base::Errc::invalid_argument,
                      fmt::format("devnet bench: {} funded accounts with key files in {}; at least 32 needed",
                                  accounts.size(), devnet->key_dir));
  }
  base::Executor executor;  // signs the plans on every core, outside the clocks

  // 128 transfers from 32 accounts, sent at once: 4 each, in nonce order.
  SION_TRY(std::vector<wallet::LoadAccount> first32, wallet::load_accounts(devnet->genesis, devnet->key_dir, 32));
  SION_TRY(const wallet::LoadReport burst, run_load(*devnet, first32, 128, 1'000'000, 4, executor));
  context.report(
      "128 transfers from 32 accounts: throughput", static_cast<double>(burst.executed_per_s), "tx/s",
      fmt::format("first submission to last execution over 4 connections; {}; {}", refusals_note(burst), where));

  // A steady 1,000 tx/s: the latency rows and the Pulse interval.
  const bool quick = context.quick();
  const std::uint64_t steady_total = quick ? 1'000 : 5'000;
  SION_TRY(wallet::NodeApi api, api_of(devnet->url));
  SION_TRY(const wallet::NodeStatus before_steady, api.status());
  const std::optional<std::uint64_t> round_before = consensus_round(devnet->url);
  SION_TRY(const wallet::LoadReport steady, run_load(*devnet, accounts, steady_total, 1'000, 4, executor));
  const std::optional<std::uint64_t> round_after = consensus_round(devnet->url);
  SION_TRY(const std::vector<std::uint64_t> times, pulse_times_after(api, before_steady.height));
  std::vector<double> intervals;
  for (std::size_t i = 1; i < times.size(); ++i) intervals.push_back(static_cast<double>(times[i] - times[i - 1]));
  if (!intervals.empty()) {
    const Stats interval = summarize(intervals);
    std::string rounds = "rounds per Pulse not known";
    if (round_before && round_after && !times.empty()) {
      rounds = fmt::format("{:.2f} consensus rounds per Pulse",
                           static_cast<double>(*round_after - *round_before) / static_cast<double>(times.size()));
    }
    context.report("Pulse interval (4 validators, dual PQ signatures)", interval.median, "ms",
                   fmt::format("between consecutive Pulse header times at 1,000 tx/s, {} Pulses (p95 {:.0f} ms); {}; "
                               "every Pulse certified by ML-DSA-44 + SLH-DSA-SHA2-128f votes",
                               times.size(), interval.p95, rounds),
                   interval.p95);
  }
  const std::string steady_note = fmt::format(
      "{} transfers at 1,000 tx/s ({} executed at {} tx/s), submission sent to its execution event at "
      "validator 0; {}",
      steady_total, steady.executed, steady.executed_per_s, refusals_note(steady));
  context.report("submit → executed, median", ms(steady.latency.p50_us), "ms", steady_note, ms(steady.latency.p95_us));
  context.report("submit → executed, 95th percentile", ms(steady.latency.p95_us), "ms", steady_note);
  if (steady.finality.count == 0) {
    return base::fail(base::Errc::internal,
                      "devnet bench: no Pulse certificate event arrived for the 1,000 tx/s run's Pulses within 5 s");
  }
  context.report("time to finality", ms(steady.finality.p50_us), "ms",
                 fmt::format("median, submission sent to the certificate event of its Pulse at validator 0 (p95 "
                             "{:.0f} ms, {} of {} transfers); the same run",
                             ms(steady.finality.p95_us), steady.finality.count, steady.executed),
                 ms(steady.finality.p95_us));

  // Saturation: as fast as 8 connections go.
  const std::uint64_t saturating_total = quick ? 2'000 : 20'000;
  wallet::LoadPlan saturating_plan;
  SION_TRY(const wallet::LoadReport saturating,
           run_load(*devnet, accounts, saturating_total, 1'000'000, 8, executor, &saturating_plan));
  context.report("saturating load: throughput", static_cast<double>(saturating.executed_per_s), "tx/s",
                 fmt::format("{} transfers over 8 connections, first submission to last execution; p50 {:.0f} ms, "
                             "p95 {:.0f} ms; {}",
                             saturating_total, ms(saturating.latency.p50_us), ms(saturating.latency.p95_us),
                             refusals_note(saturating)));
  context.report("API admission: throughput", static_cast<double>(saturating.admitted_per_s), "tx/s",
                 fmt::format("the same run: admitted per second of the sending window at validator 0 (decode, "
                             "policy, signature bundle, mempool), while the validators order and execute"));

  // The same kind of load in batches of kBatch over kBatchConnections: the
  // per-request cost (receiving, parsing, answering) spread over a batch.
  const std::uint64_t batched_total = quick ? 2'000 : 6'000;
  SION_TRY(const wallet::LoadReport batched,
           run_load(*devnet, accounts, batched_total, 1'000'000, kBatchConnections, executor, nullptr, kBatch));
  const std::string batch_name = fmt::format("API admission, batches of {}", kBatch);
  context.report(batch_name + ": throughput", static_cast<double>(batched.admitted_per_s), "tx/s",
                 fmt::format("{} transfers in batches of {} over {} connections (POST /v1/transactions/batch): "
                             "admitted per second of the sending window, while the validators order and execute "
                             "and the load generator shares the cores; {} executed, p50 {:.0f} ms; {}",
                             batched_total, kBatch, kBatchConnections, batched.executed, ms(batched.latency.p50_us),
                             refusals_note(batched)));

  // The ceilings: every validator checks every transfer's dual signature
  // once, so the network's ceiling is cores / (validators x one dual verify).
  SION_TRY(const Stats verify, dual_verify_time(saturating_plan, context.measure_options()));
  const unsigned cores = usable_cores();
  const double admission_ceiling = static_cast<double>(cores) / verify.median;
  const double validators = context.node() ? 1.0 : static_cast<double>(kValidators);
  const double network_ceiling = admission_ceiling / validators;
  context.report("signature ceiling", network_ceiling, "tx/s",
                 fmt::format("{} cores / ({} validators x dual verify of one planned transfer, {:.1f} µs on one core, "
                             "no cache)",
                             cores, validators, seconds_in(TimeUnit::us, verify.median)));
  context.report("saturating load: share of the signature ceiling",
                 100.0 * static_cast<double>(saturating.executed_per_s) / network_ceiling, "%",
                 "saturating throughput / signature ceiling, both from this run; ordering, execution, storage and "
                 "the load generator share the cores");
  context.report("API admission: share of the signature ceiling",
                 100.0 * static_cast<double>(saturating.admitted_per_s) / admission_ceiling, "%",
                 "admission throughput / (cores / one dual verify), both from this run; the other validators and "
                 "the load generator share the cores");
  context.report(batch_name + ": share of the signature ceiling",
                 100.0 * static_cast<double>(batched.admitted_per_s) / admission_ceiling, "%",
                 "batched admission throughput / (cores / one dual verify); the other validators and the load "
                 "generator share the cores");
  return {};
}

}  // namespace

Group devnet() {
  return {"devnet", "A devnet end to end over its HTTP API: throughput, latency, admission (--no-devnet skips)",
          run_devnet_group};
}

}  // namespace sion::bench::groups
