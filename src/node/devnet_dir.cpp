#include "sion/node/devnet_dir.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sion/base/file.hpp"
#include "sion/base/random.hpp"
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

std::string in(const std::string& dir, std::string_view name) { return (fs::path(dir) / name).string(); }

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

// A folder made earlier: its marker says so, and its config must read.
base::Result<DevnetDir> reuse(const std::string& dir) {
  const std::string marker = in(dir, kDevnetMarkerName);
  SION_TRY(const std::string text, base::read_file(marker, {.what = "devnet marker", .max_bytes = 4096}));
  if (text != kDevnetMarkerText) {
    return base::fail(Errc::invalid_argument, "devnet marker " + quoted_path(marker) + " is not one sion wrote");
  }
  DevnetDir out;
  out.dir = dir;
  out.config_path = in(dir, kConfigName);
  out.resumed = true;
  SION_TRY(out.config, load_node_config(out.config_path));
  SION_TRY(out.account_key_files, account_key_files(in(dir, kKeysName)));
  return out;
}

}  // namespace

base::Result<DevnetDir> create_devnet_dir(const DevnetDirSpec& spec) {
  if (spec.dir.empty()) return base::fail(Errc::invalid_argument, "no devnet folder named");
  if (spec.interval_ms < kMinPulseIntervalMs || spec.interval_ms > kMaxPulseIntervalMs) {
    return base::fail(Errc::invalid_argument, "the Pulse interval " + std::to_string(spec.interval_ms) +
                                                  " ms is outside " + std::to_string(kMinPulseIntervalMs) + " to " +
                                                  std::to_string(kMaxPulseIntervalMs));
  }
  const std::string& dir = spec.dir;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return base::fail(Errc::invalid_argument, "devnet folder " + quoted_path(dir) + " exists and is not a folder");
    }
    if (::lstat(in(dir, kDevnetMarkerName).c_str(), &st) == 0) return reuse(dir);
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
  {
    // The validator's key first: the genesis file names it.
    SION_TRY(const wallet::KeyDirectory keys, wallet::open_key_directory(accounts.key_dir, true));
    wallet::KeySeedGuard guard;
    SION_TRY_STATUS(base::random_bytes(guard.seed));
    SION_TRY(const crypto::SigningBundle validator,
             wallet::write_key_file(keys, std::string(kValidatorKeyName), spec.profile, guard.seed));
    accounts.validators.push_back({validator.public_bundle()});
  }
  SION_TRY(const wallet::DevnetGenesis genesis, wallet::write_devnet(accounts));

  const std::string data = in(dir, kDataName);
  SION_TRY_STATUS(base::make_directory(data));

  // Paths relative to the folder, so that it may be moved.
  NodeConfig config;
  config.data_dir = kDataName;
  config.genesis_file = kGenesisName;
  config.validator_key_file = (fs::path(kKeysName) / kValidatorKeyName).string();
  config.api.address = spec.api_address;
  config.pulse.interval_ms = spec.interval_ms;
  DevnetDir out;
  out.dir = dir;
  out.config_path = in(dir, kConfigName);
  SION_TRY_STATUS(base::write_new_file(out.config_path, config_to_toml(config), {.what = "node config"}));
  SION_TRY(out.config, load_node_config(out.config_path));
  out.account_key_files = genesis.key_files;
  // Last: a folder whose making was cut short has no marker and is refused.
  SION_TRY_STATUS(base::write_new_file(in(dir, kDevnetMarkerName), kDevnetMarkerText, {.what = "devnet marker"}));
  return out;
}

}  // namespace sion::node
