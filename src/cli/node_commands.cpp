#include "sion/cli/node_commands.hpp"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/base/process_group.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/node/chain_store.hpp"
#include "sion/node/config.hpp"
#include "sion/node/devnet_dir.hpp"
#include "sion/node/log.hpp"
#include "sion/node/node.hpp"
#include "sion/node/replay.hpp"
#include "sion/node/service.hpp"

namespace sion::cli {
namespace {

std::atomic<int> g_stop_signal{0};

extern "C" void on_stop_signal(int signal) { g_stop_signal.store(signal); }

// Runs the node of `config` until SIGINT or SIGTERM.
// `banner` (given the bound API port) is printed once the API serves.
void catch_stop_signals() {
  g_stop_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool stop_requested() { return g_stop_signal.load() != 0; }

base::Status serve(const node::NodeConfig& config, std::FILE* out,
                   const std::function<std::string(std::uint16_t)>& banner) {
  // A validator allocates and frees megabyte buffers all the time (batch
  // payloads, Pulse bodies). Left to glibc's defaults each one is a fresh
  // mmap whose pages fault in zeroed and go back at free; kept in the heap,
  // they are reused.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  SION_TRY_STATUS(node::setup_logging(config.log));
  SION_TRY(node::ServiceOptions options, node::service_options(config));
  catch_stop_signals();
  SION_TRY(const auto service, node::Service::start(std::move(options)));
  if (banner) {
    std::fputs(banner(service->api_port()).c_str(), out);
    std::fflush(out);
  }
  service->wait(stop_requested);
  node::component_logger("node")->info("stopping (signal {})", g_stop_signal.load());
  service->stop();
  return {};
}

std::string api_url(const node::HostPort& address) { return "http://" + node::to_string(address); }

// A balance and a transfer between the devnet's first accounts, against `url`.
std::string try_lines(const node::DevnetDir& devnet, const std::string& url) {
  const std::string first_key = devnet.account_key_files.empty() ? std::string("KEY") : devnet.account_key_files[0];
  const std::string payee = devnet.account_key_files.size() > 1 ? devnet.account_key_files[1] : first_key;
  return fmt::format(
      "try:  sion balance --key {} --node {}\n"
      "      sion transfer --key {} --to $(sion address --key {}) --amount 1000 --node {}\n",
      first_key, url, first_key, payee, url);
}

// Where validator k's output goes: its log file, else node.log beside its node.toml.
std::string validator_log(const node::DevnetDir& devnet, std::size_t k) {
  const auto& file = devnet.configs[k].log.file;
  if (file) return *file;
  return (std::filesystem::path(devnet.config_paths[k]).parent_path() / "node.log").string();
}

// This very binary, for the children: /proc/self/exe runs it even if the
// file was replaced since; the name it shows is the path it was run from.
std::string own_name() {
  std::error_code error;
  const std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("sion") : path.string();
}

// One `sion node` process per validator until SIGINT or SIGTERM, or until
// one of them stops on its own.
base::Status run_validators(const node::DevnetDir& devnet, std::FILE* out) {
  catch_stop_signals();
  base::ProcessGroup group;
  const std::string name = own_name();
  for (std::size_t k = 0; k < devnet.validators(); ++k) {
    SION_TRY_STATUS_CONTEXT(
        fmt::format("starting validator {}", k),
        group.spawn("/proc/self/exe", {name, "node", "--config", devnet.config_paths[k]}, validator_log(devnet, k)));
  }
  const std::string url = api_url(devnet.configs[0].api.address);
  std::string banner = fmt::format("devnet {} in {}: {} validators, one `sion node` process each\nAPI:  {}\n",
                                   devnet.resumed ? "resumed" : "created", devnet.dir, devnet.validators(), url);
  for (std::size_t k = 0; k < devnet.validators(); ++k) {
    banner += fmt::format("  validator {}: API {}, consensus {}, log {}\n", k, api_url(devnet.configs[k].api.address),
                          node::to_string(devnet.configs[k].consensus.listen), validator_log(devnet, k));
  }
  banner += try_lines(devnet, url);
  banner += fmt::format("stop: Ctrl-C stops every validator (the chain resumes on the next `sion devnet --dir {}`)\n",
                        devnet.dir);
  std::fputs(banner.c_str(), out);
  std::fflush(out);

  const std::optional<base::ChildExit> ended = group.wait_any(stop_requested);
  if (!ended) {
    std::fputs(fmt::format("stopping {} validators (signal {})\n", group.running_count(), g_stop_signal.load()).c_str(),
               out);
    std::fflush(out);
    for (const base::ChildExit& exit : group.stop()) {
      if (!exit.clean()) std::fputs(fmt::format("validator {} {}\n", exit.index, exit.describe()).c_str(), out);
    }
    return {};
  }
  const std::string log = validator_log(devnet, ended->index);
  std::fputs(fmt::format("validator {} {}; stopping the others\n", ended->index, ended->describe()).c_str(), out);
  std::fflush(out);
  group.stop();
  return base::fail(base::Errc::internal,
                    fmt::format("validator {} {} (its log: {})", ended->index, ended->describe(), log));
}
}  // namespace

base::Status run_node(const std::string& config_path, std::FILE* out) {
  SION_TRY(const node::NodeConfig config, node::load_node_config(config_path));
  return serve(config, out, {});
}

base::Status run_devnet(const DevnetOptions& options, std::FILE* out) {
  node::DevnetDirSpec spec;
  spec.dir = options.dir;
  spec.validators = options.validators;
  spec.accounts = options.accounts;
  spec.interval_ms = options.interval_ms;
  SION_TRY(spec.api_address, node::parse_host_port(options.api, true));
  SION_TRY(const node::DevnetDir devnet, node::create_devnet_dir(spec));
  if (devnet.resumed && devnet.validators() != options.validators) {
    std::fputs(fmt::format("note: {} holds {} validator{}, as it was made; a folder made earlier is run as it is\n",
                           devnet.dir, devnet.validators(), devnet.validators() == 1 ? "" : "s")
                   .c_str(),
               out);
  }
  if (devnet.validators() > 1) return run_validators(devnet, out);
  const auto banner = [&](std::uint16_t port) {
    const std::string url = api_url({devnet.config.api.address.host, port});
    return fmt::format(
        "devnet {} in {}\n"
        "API:  {}\n"
        "{}"
        "stop: Ctrl-C (the chain resumes on the next `sion devnet --dir {}`)\n",
        devnet.resumed ? "resumed" : "created", devnet.dir, url, try_lines(devnet, url), devnet.dir);
  };
  return serve(devnet.config, out, banner);
}

base::Status run_replay(const ReplayCommandOptions& options, std::FILE* out, std::FILE* err) {
  if (options.config.has_value() == options.dir.has_value()) {
    return base::fail(base::Errc::invalid_argument, "give the node's --config FILE or a devnet's --dir DIR");
  }
  const std::string config_path = options.config ? *options.config : *options.dir + "/node.toml";
  SION_TRY(const node::NodeConfig config, node::load_node_config(config_path));
  SION_TRY(const exec::Genesis genesis, exec::read_genesis_file(config.genesis_file));
  base::Executor executor;
  node::ChainStoreOptions store_options;
  store_options.read_only = true;
  store_options.executor = &executor;
  const std::string directory = node::chain_directory(config.data_dir);
  SION_TRY_CONTEXT(const auto store, "opening the chain in " + directory,
                   node::ChainStore::open(directory, store_options));
  std::fputs(
      fmt::format("replaying the chain in {} (height {}) from {}\n", directory, store->height(), config.genesis_file)
          .c_str(),
      out);
  std::fflush(out);
  node::ReplayOptions replay_options;
  replay_options.executor = &executor;
  // About a hundred progress lines at most, each over the one before.
  const std::uint64_t step = std::max<std::uint64_t>(1, store->height() / 100);
  replay_options.progress = [err, step](std::uint64_t height, std::uint64_t latest) {
    if (height % step != 0 && height != latest) return;
    std::fputs(fmt::format("\rreplayed {}/{} Pulses", height, latest).c_str(), err);
    if (height == latest) std::fputs("\n", err);
    std::fflush(err);
  };
  SION_TRY(const node::ReplayReport report, node::replay_chain(*store, genesis, replay_options));
  std::fputs(fmt::format("replayed {} Pulses, {} transactions; state root {} matches ({} objects)\n", report.pulses,
                         report.transactions, base::to_hex(report.state_root), report.objects)
                 .c_str(),
             out);
  return {};
}

}  // namespace sion::cli
