// Group `devnet` (docs/performance.md, "devnet"): a devnet measured end to
// end through its HTTP API on loopback, as a client sees it. The group starts
// its own one-validator devnet (a temporary folder, 100 ms Pulses), or, with
// `--node`, measures one already running there (its key files from
// `--devnet-dir`). Every transfer is a pre-signed dual-signed (ML-DSA-44 +
// SLH-DSA-SHA2-128f) transfer; signing happens before each run's clock.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <vector>

#include "groups.hpp"
#include "sion/base/executor.hpp"
#include "sion/bench/cores.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/node/devnet_dir.hpp"
#include "sion/node/log.hpp"
#include "sion/node/service.hpp"
#include "sion/wallet/http_transport.hpp"
#include "sion/wallet/load_plan.hpp"
#include "sion/wallet/node_api.hpp"
#include "sion/wallet/node_load.hpp"

namespace sion::bench::groups {
namespace {

constexpr std::uint32_t kIntervalMs = 100;
constexpr std::size_t kAccounts = 256;  // enough that no sender reaches the mempool's per-sender limit
// The batched admission run: transfers per POST /v1/transactions/batch, and
// its connections. 64 dual-signed transfers (about 20 KB each) fit the
// default 4 MiB body limit many times over; with 256 senders a batch of 64
// consecutive plan transfers holds 64 distinct senders, which the node
// spreads over its admission workers.
constexpr std::uint64_t kBatch = 64;
constexpr std::size_t kBatchConnections = 2;

// The devnet measured: started here (service and folder owned) or external.
struct Devnet {
  std::string url;
  exec::Genesis genesis;
  std::string key_dir;
  std::unique_ptr<node::Service> service;
  std::filesystem::path owned_dir;

  Devnet() = default;
  Devnet(const Devnet&) = delete;
  Devnet& operator=(const Devnet&) = delete;
  ~Devnet() {
    service.reset();
    std::error_code ignored;
    if (!owned_dir.empty()) std::filesystem::remove_all(owned_dir, ignored);
  }
};

base::Result<std::unique_ptr<Devnet>> start_own_devnet() {
  auto devnet = std::make_unique<Devnet>();
  std::random_device entropy;
  devnet->owned_dir =
      std::filesystem::temp_directory_path() / fmt::format("sion-bench-devnet-{}-{}", entropy(), entropy());
  node::DevnetDirSpec spec;
  spec.dir = devnet->owned_dir.string();
  spec.accounts = kAccounts;
  spec.api_address = {"127.0.0.1", 0};
  spec.interval_ms = kIntervalMs;
  SION_TRY(node::DevnetDir made, node::create_devnet_dir(spec));
  made.config.log.level = node::LogLevel::warn;  // the table, not a log line per Pulse
  SION_TRY_STATUS(node::setup_logging(made.config.log));
  SION_TRY(node::ServiceOptions options, node::service_options(made.config));
  SION_TRY(devnet->genesis, exec::read_genesis_file(made.config.genesis_file));
  devnet->key_dir = (devnet->owned_dir / "keys").string();
  SION_TRY(devnet->service, node::Service::start(std::move(options)));
  devnet->url = fmt::format("http://127.0.0.1:{}", devnet->service->api_port());
  return devnet;
}

base::Result<std::unique_ptr<Devnet>> open_external_devnet(const std::string& url, const std::string& dir) {
  auto devnet = std::make_unique<Devnet>();
  devnet->url = url;
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
                     : fmt::format("own devnet: 1 validator, {} ms interval, {} accounts", kIntervalMs, kAccounts);
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
  const std::uint64_t steady_total = quick ? 1'000 : 3'000;
  SION_TRY(wallet::NodeApi api, api_of(devnet->url));
  SION_TRY(const wallet::NodeStatus before_steady, api.status());
  SION_TRY(const wallet::LoadReport steady, run_load(*devnet, accounts, steady_total, 1'000, 4, executor));
  SION_TRY(const std::vector<std::uint64_t> times, pulse_times_after(api, before_steady.height));
  std::vector<double> intervals;
  for (std::size_t i = 1; i < times.size(); ++i) intervals.push_back(static_cast<double>(times[i] - times[i - 1]));
  if (!intervals.empty()) {
    const Stats interval = summarize(intervals);
    context.report("Pulse interval", interval.median, "ms",
                   fmt::format("between consecutive Pulse header times at 1,000 tx/s, {} Pulses (p95 {:.0f} ms); "
                               "1 validator, no consensus yet",
                               times.size(), interval.p95),
                   interval.p95);
  }
  const std::string steady_note =
      fmt::format("{} transfers at 1,000 tx/s ({} executed at {} tx/s), submission sent to its execution event; {}",
                  steady_total, steady.executed, steady.executed_per_s, refusals_note(steady));
  context.report("submit → executed, median", ms(steady.latency.p50_us), "ms", steady_note, ms(steady.latency.p95_us));
  context.report("submit → executed, 95th percentile", ms(steady.latency.p95_us), "ms", steady_note);

  // Saturation: as fast as 8 connections go.
  const std::uint64_t saturating_total = quick ? 2'000 : 12'000;
  wallet::LoadPlan saturating_plan;
  SION_TRY(const wallet::LoadReport saturating,
           run_load(*devnet, accounts, saturating_total, 1'000'000, 8, executor, &saturating_plan));
  context.report("saturating load: throughput", static_cast<double>(saturating.executed_per_s), "tx/s",
                 fmt::format("{} transfers over 8 connections, first submission to last execution; p50 {:.0f} ms, "
                             "p95 {:.0f} ms; {}",
                             saturating_total, ms(saturating.latency.p50_us), ms(saturating.latency.p95_us),
                             refusals_note(saturating)));
  context.report("API admission: throughput", static_cast<double>(saturating.admitted_per_s), "tx/s",
                 fmt::format("the same run: admitted per second of the sending window (decode, policy, signature "
                             "bundle, mempool), while the node also produces Pulses"));

  // The same size in batches of kBatch over kBatchConnections: the
  // per-request cost (receiving, parsing, answering) spread over a batch.
  SION_TRY(const wallet::LoadReport batched,
           run_load(*devnet, accounts, saturating_total, 1'000'000, kBatchConnections, executor, nullptr, kBatch));
  const std::string batch_name = fmt::format("API admission, batches of {}", kBatch);
  context.report(batch_name + ": throughput", static_cast<double>(batched.admitted_per_s), "tx/s",
                 fmt::format("{} transfers in batches of {} over {} connections (POST /v1/transactions/batch): "
                             "admitted per second of the sending window, while the node also produces Pulses "
                             "and the load generator shares the cores; {} executed, p50 {:.0f} ms; {}",
                             saturating_total, kBatch, kBatchConnections, batched.executed, ms(batched.latency.p50_us),
                             refusals_note(batched)));

  // The ceiling the admission rates are held to: cores / one dual verification.
  SION_TRY(const Stats verify, dual_verify_time(saturating_plan, context.measure_options()));
  const unsigned cores = usable_cores();
  const double ceiling = static_cast<double>(cores) / verify.median;
  context.report("signature ceiling", ceiling, "tx/s",
                 fmt::format("{} cores / dual verify of one planned transfer ({:.1f} µs, one core, no cache)", cores,
                             seconds_in(TimeUnit::us, verify.median)));
  context.report("API admission: share of the signature ceiling",
                 100.0 * static_cast<double>(saturating.admitted_per_s) / ceiling, "%",
                 "admission throughput / signature ceiling, both from this run; the load generator shares the cores");
  context.report(batch_name + ": share of the signature ceiling",
                 100.0 * static_cast<double>(batched.admitted_per_s) / ceiling, "%",
                 fmt::format("batched admission throughput / signature ceiling; the node also produces Pulses "
                             "and the load generator shares the cores"));
  return {};
}

}  // namespace

Group devnet() {
  return {"devnet", "A devnet end to end over its HTTP API: throughput, latency, admission (--no-devnet skips)",
          run_devnet_group};
}

}  // namespace sion::bench::groups
