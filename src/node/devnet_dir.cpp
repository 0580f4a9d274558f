#include "sion/node/devnet_dir.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sion/base/file.hpp"
#include "sion/base/random.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/wallet/devnet.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::node {
namespace {

namespace fs = std::filesystem;
using base::Errc;
using base::quoted_path;

constexpr std::string_view kConfigName = "node.toml";
constexpr std::string_view kGenesisName = "genesis.json";
constexpr std::string_view kKeysName = "keys";
constexpr std::string_view kValidatorKeyName = "validator.json";
constexpr std::string_view kDataName = "data";
constexpr std::string_view kLogName = "node.log";
constexpr std::uint32_t kMaxPort = 65'535;

std::string in(const std::string& dir, std::string_view name) { return (fs::path(dir) / name).string(); }

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Validator k of several: its folder in D, and its key file's name in D/keys.
std::string validator_folder(std::size_t k) { return "validator-" + std::to_string(k); }
std::string validator_key_name(std::size_t validators, std::size_t k) {
  return validators == 1 ? std::string(kValidatorKeyName) : validator_folder(k) + ".json";
}
// Where validator k's node.toml, data/ and log are: D itself for one validator.
std::string validator_home(const std::string& dir, std::size_t validators, std::size_t k) {
  return validators == 1 ? dir : in(dir, validator_folder(k));
}

base::Status check_spec(const DevnetDirSpec& spec) {
  if (spec.dir.empty()) return base::fail(Errc::invalid_argument, "no devnet folder named");
  if (spec.interval_ms < kMinPulseIntervalMs || spec.interval_ms > kMaxPulseIntervalMs) {
    return base::fail(Errc::invalid_argument, "the Pulse interval " + std::to_string(spec.interval_ms) +
                                                  " ms is outside " + std::to_string(kMinPulseIntervalMs) + " to " +
                                                  std::to_string(kMaxPulseIntervalMs));
  }
  if (spec.validators < 1 || spec.validators > kMaxDevnetValidators) {
    return base::fail(Errc::invalid_argument, "a devnet has 1 to " + std::to_string(kMaxDevnetValidators) +
                                                  " validators, not " + std::to_string(spec.validators));
  }
  if (spec.validators > 1) {
    // Every validator lists the others' addresses, so the ports are fixed now.
    const std::uint32_t port = spec.api_address.port;
    if (port == 0) {
      return base::fail(Errc::invalid_argument,
                        "a devnet of several validators needs a fixed API port, not 0 (validator K uses the port + "
                        "2K for its API and the port + 1 + 2K for consensus)");
    }
    if (port + 2 * spec.validators > kMaxPort) {
      return base::fail(Errc::invalid_argument,
                        std::to_string(spec.validators) + " validators need the ports " + std::to_string(port) +
                            " to " + std::to_string(port + 2 * spec.validators - 1) + "; give a lower API port");
    }
  }
  return {};
}

base::Result<std::vector<std::string>> account_key_files(const std::string& key_dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (fs::directory_iterator it(key_dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("account-") && name.ends_with(".json")) files.push_back(it->path().string());
  }
  if (error) return base::fail(Errc::io_error, "cannot list " + quoted_path(key_dir) + ": " + error.message());
  // account-0000 ... account-9999, then account-10000: by length, then name.
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return files;
}

// The node.toml files of a folder made earlier: D/node.toml for one
// validator, else one per validator folder, from validator-0 while they
// exist. None found: D/node.toml, whose reading then names what is missing.
std::vector<std::string> existing_config_paths(const std::string& dir) {
  if (exists(in(dir, kConfigName))) return {in(dir, kConfigName)};
  std::vector<std::string> paths;
  for (std::size_t k = 0; k < kMaxDevnetValidators; ++k) {
    const std::string path = in(in(dir, validator_folder(k)), kConfigName);
    if (!exists(path)) break;
    paths.push_back(path);
  }
  if (paths.empty()) paths.push_back(in(dir, kConfigName));
  return paths;
}

// Every validator's config: the first is also config_path and config.
base::Status read_configs(DevnetDir& out, std::vector<std::string> paths) {
  out.config_paths = std::move(paths);
  out.configs.clear();
  for (const std::string& path : out.config_paths) {
    SION_TRY(NodeConfig config, load_node_config(path));
    out.configs.push_back(std::move(config));
  }
  out.config_path = out.config_paths.front();
  out.config = out.configs.front();
  return {};
}

// A folder made earlier: its marker says so, and its configs must read.
base::Result<DevnetDir> reuse(const std::string& dir) {
  const std::string marker = in(dir, kDevnetMarkerName);
  SION_TRY(const std::string text, base::read_file(marker, {.what = "devnet marker", .max_bytes = 4096}));
  if (text != kDevnetMarkerText) {
    return base::fail(Errc::invalid_argument, "devnet marker " + quoted_path(marker) + " is not one sion wrote");
  }
  DevnetDir out;
  out.dir = dir;
  out.resumed = true;
  SION_TRY_STATUS(read_configs(out, existing_config_paths(dir)));
  SION_TRY(out.account_key_files, account_key_files(in(dir, kKeysName)));
  return out;
}

// Fresh validator keys in the key directory (created mode 0700), in order.
base::Result<std::vector<crypto::SigningBundle>> write_validator_keys(const DevnetDirSpec& spec,
                                                                      const std::string& key_dir) {
  SION_TRY(const wallet::KeyDirectory keys, wallet::open_key_directory(key_dir, true));
  std::vector<crypto::SigningBundle> bundles;
  for (std::size_t k = 0; k < spec.validators; ++k) {
    wallet::KeySeedGuard guard;
    SION_TRY_STATUS(base::random_bytes(guard.seed));
    SION_TRY(crypto::SigningBundle bundle,
             wallet::write_key_file(keys, validator_key_name(spec.validators, k), spec.profile, guard.seed));
    bundles.push_back(std::move(bundle));
  }
  return bundles;
}

// Validator k's config, its paths relative to its own folder so that D may
// be moved. One validator keeps the defaults for consensus and the log.
NodeConfig validator_config(const DevnetDirSpec& spec, std::size_t k, const std::vector<ledger::Id>& ids) {
  NodeConfig config;
  config.data_dir = kDataName;
  config.pulse.interval_ms = spec.interval_ms;
  const std::string key_name = validator_key_name(spec.validators, k);
  if (spec.validators == 1) {
    config.genesis_file = kGenesisName;
    config.validator_key_file = (fs::path(kKeysName) / key_name).string();
    config.api.address = spec.api_address;
    return config;
  }
  const fs::path up("..");
  config.genesis_file = (up / kGenesisName).string();
  config.validator_key_file = (up / kKeysName / key_name).string();
  const auto port = [&](std::size_t offset) {
    return HostPort{spec.api_address.host, static_cast<std::uint16_t>(spec.api_address.port + offset)};
  };
  config.api.address = port(2 * k);
  config.consensus.listen = port(1 + 2 * k);
  config.log.file = kLogName;
  for (std::size_t other = 0; other < ids.size(); ++other) {
    if (other != k) config.peers.emplace(ids[other], port(1 + 2 * other));
  }
  return config;
}

}  // namespace

base::Result<DevnetDir> create_devnet_dir(const DevnetDirSpec& spec) {
  SION_TRY_STATUS(check_spec(spec));
  const std::string& dir = spec.dir;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return base::fail(Errc::invalid_argument, "devnet folder " + quoted_path(dir) + " exists and is not a folder");
    }
    if (exists(in(dir, kDevnetMarkerName))) return reuse(dir);
    std::error_code error;
    const bool empty = fs::is_empty(dir, error);
    if (error) return base::fail(Errc::io_error, "cannot list " + quoted_path(dir) + ": " + error.message());
    if (!empty) {
      return base::fail(Errc::invalid_argument,
                        "folder " + quoted_path(dir) + " exists and is not a devnet folder sion made (it has no " +
                            std::string(kDevnetMarkerName) + "); choose another folder or remove it");
    }
  } else if (errno != ENOENT) {
    return base::fail(Errc::io_error, "cannot inspect " + quoted_path(dir) + ": " + std::strerror(errno));
  }

  // The accounts and the genesis file; write_devnet checks the numbers and
  // makes the key directory (mode 0700).
  wallet::DevnetSpec accounts;
  accounts.accounts = spec.accounts;
  accounts.chain_id = spec.chain_id;
  accounts.amount = spec.amount;
  accounts.profile = spec.profile;
  accounts.genesis_path = in(dir, kGenesisName);
  accounts.key_dir = in(dir, kKeysName);
  // The validators' keys first: the genesis file names them.
  SION_TRY(const std::vector<crypto::SigningBundle> validators, write_validator_keys(spec, accounts.key_dir));
  std::vector<ledger::Id> ids;
  for (const crypto::SigningBundle& validator : validators) {
    accounts.validators.push_back({validator.public_bundle()});
    ids.push_back(exec::account_id(validator.public_bundle()));
  }
  SION_TRY(const wallet::DevnetGenesis genesis, wallet::write_devnet(accounts));

  std::vector<std::string> config_paths;
  for (std::size_t k = 0; k < spec.validators; ++k) {
    const std::string home = validator_home(dir, spec.validators, k);
    if (spec.validators > 1) {
      SION_TRY_STATUS(base::make_directory(home));
    }
    SION_TRY_STATUS(base::make_directory(in(home, kDataName)));
    config_paths.push_back(in(home, kConfigName));
    SION_TRY_STATUS(base::write_new_file(config_paths.back(), config_to_toml(validator_config(spec, k, ids)),
                                         {.what = "node config"}));
  }
  DevnetDir out;
  out.dir = dir;
  SION_TRY_STATUS(read_configs(out, std::move(config_paths)));
  out.account_key_files = genesis.key_files;
  // Last: a folder whose making was cut short has no marker and is refused.
  SION_TRY_STATUS(base::write_new_file(in(dir, kDevnetMarkerName), kDevnetMarkerText, {.what = "devnet marker"}));
  return out;
}

}  // namespace sion::node
