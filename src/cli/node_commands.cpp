#include "sion/cli/node_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <functional>

#include "sion/base/executor.hpp"
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
base::Status serve(const node::NodeConfig& config, std::FILE* out,
                   const std::function<std::string(std::uint16_t)>& banner) {
  SION_TRY_STATUS(node::setup_logging(config.log));
  SION_TRY(node::ServiceOptions options, node::service_options(config));
  g_stop_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  SION_TRY(const auto service, node::Service::start(std::move(options)));
  if (banner) {
    std::fputs(banner(service->api_port()).c_str(), out);
    std::fflush(out);
  }
  service->wait([] { return g_stop_signal.load() != 0; });
  node::component_logger("node")->info("stopping (signal {})", g_stop_signal.load());
  service->stop();
  return {};
}

}  // namespace

base::Status run_node(const std::string& config_path, std::FILE* out) {
  SION_TRY(const node::NodeConfig config, node::load_node_config(config_path));
  return serve(config, out, {});
}

base::Status run_devnet(const DevnetOptions& options, std::FILE* out) {
  if (options.validators != 1) {
    return base::fail(base::Errc::unsupported,
                      "--validators: this build runs a devnet of one validator; consensus among several is "
                      "not built yet");
  }
  node::DevnetDirSpec spec;
  spec.dir = options.dir;
  spec.accounts = options.accounts;
  spec.interval_ms = options.interval_ms;
  SION_TRY(spec.api_address, node::parse_host_port(options.api, true));
  SION_TRY(const node::DevnetDir devnet, node::create_devnet_dir(spec));
  const std::string first_key = devnet.account_key_files.empty() ? std::string("KEY") : devnet.account_key_files[0];
  const std::string payee = devnet.account_key_files.size() > 1 ? devnet.account_key_files[1] : first_key;
  const auto banner = [&](std::uint16_t port) {
    return fmt::format(
        "devnet {} in {}\n"
        "API:  http://{}:{}\n"
        "try:  sion balance --key {} --node http://{}:{}\n"
        "      sion transfer --key {} --to $(sion address --key {}) --amount 1000 --node http://{}:{}\n"
        "stop: Ctrl-C (the chain resumes on the next `sion devnet --dir {}`)\n",
        devnet.resumed ? "resumed" : "created", devnet.dir, devnet.config.api.address.host, port, first_key,
        devnet.config.api.address.host, port, first_key, payee, devnet.config.api.address.host, port, devnet.dir);
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
