#include "sion/wallet/devnet.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <optional>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/base/random.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::wallet {
namespace {

using base::Errc;
using base::quoted_path;

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

// True if anything (even a dangling link) is at `path`: O_EXCL would fail.
bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

base::Failure invalid(const std::string& why) { return base::fail(Errc::invalid_argument, why); }

// Creates the parents of `path` that are missing (with the default mode).
base::Status create_parents(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return {};
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) {
    return base::fail(Errc::io_error,
                      "cannot create directory " + quoted_path(parent.string()) + ": " + error.message());
  }
  return {};
}

// Wipes the seeds when it goes out of scope.
struct Seeds {
  std::vector<crypto::KeySeed> seeds;
  explicit Seeds(std::size_t count) : seeds(count) {}
  Seeds(const Seeds&) = delete;
  Seeds& operator=(const Seeds&) = delete;
  ~Seeds() {
    for (crypto::KeySeed& seed : seeds) base::secure_wipe(seed.data(), seed.size());
  }
};

// Removes the key files written so far unless release()d.
struct WrittenKeys {
  const KeyDirectory& directory;
  const std::vector<std::string>& names;
  std::size_t count = 0;
  bool kept = false;
  ~WrittenKeys() {
    if (kept) return;
    for (std::size_t i = 0; i < count; ++i) ::unlinkat(directory.fd.get(), names[i].c_str(), 0);
  }
};

base::Status check_options(const DevnetSpec& spec) {
  if (spec.accounts == 0) return invalid("the number of accounts must be at least 1");
  if (spec.accounts > kMaxDevnetAccounts) return invalid("at most " + std::to_string(kMaxDevnetAccounts) + " accounts");
  if (spec.coins_per_account > exec::kMaxGenesisCoins / spec.accounts) return invalid("more than 2^32 coins");
  const std::uint64_t coin_count = std::uint64_t{spec.coins_per_account} * spec.accounts;
  if (coin_count > 0 && spec.amount == 0) return invalid("a coin's amount must be at least 1");
  if (coin_count > 0 && spec.amount > kMaxU64 / coin_count) return invalid("the total supply passes 2^64 - 1");
  if (spec.genesis_path.empty()) return invalid("no genesis file named");
  return {};
}

}  // namespace

std::string key_file_name(std::size_t index) {
  std::string digits = std::to_string(index);
  if (digits.size() < 4) digits.insert(0, 4 - digits.size(), '0');
  return "account-" + digits + ".json";
}

base::Result<std::uint64_t> devnet_genesis_bytes(const DevnetSpec& spec) {
  SION_TRY_STATUS(check_options(spec));
  // The text is fixed but for the counts: its size is a + b·A + c·C + d·A·C
  // for A accounts of C >= 1 coins each (every account the same size, every
  // coin the same size), and a + b·A for C = 0. Four small texts give the
  // coefficients.
  crypto::KeySeed seed{};
  SION_TRY(const crypto::SigningBundle bundle, crypto::SigningBundle::from_seed(spec.profile, seed));
  const auto size = [&](std::size_t accounts, std::size_t coins) -> std::uint64_t {
    exec::Genesis genesis;
    genesis.params.chain_id = spec.chain_id;
    genesis.accounts.assign(accounts, {bundle.public_bundle(), std::vector<exec::Amount>(coins, spec.amount)});
    genesis.validators = spec.validators;  // a fixed part of the text
    genesis.consensus = exec::consensus_rules_for(spec.validators);
    return exec::genesis_to_json(genesis).size();
  };
  const std::uint64_t accounts = spec.accounts;
  const std::uint64_t coins = spec.coins_per_account;
  if (coins == 0) {
    const std::uint64_t one = size(1, 0);
    return one + (accounts - 1) * (size(2, 0) - one);
  }
  const std::uint64_t s11 = size(1, 1);
  const std::uint64_t per_account = size(2, 1) - s11;
  const std::uint64_t per_coin = size(1, 2) - s11;
  const std::uint64_t per_both = size(2, 2) - size(2, 1) - per_coin;  // d: each further coin of each account
  // Within 64 bits: at most 2^32 coins of at most a few dozen bytes each.
  return s11 + (accounts - 1) * per_account + (coins - 1) * per_coin + (accounts - 1) * (coins - 1) * (per_both);
}

base::Result<DevnetGenesis> write_devnet(const DevnetSpec& spec) {
  SION_TRY_STATUS(check_options(spec));
  // Before any keys are made: a node must be able to read the file.
  SION_TRY(const std::uint64_t genesis_bytes, devnet_genesis_bytes(spec));
  if (genesis_bytes > spec.max_genesis_bytes) {
    return invalid("the genesis file would be " + std::to_string(genesis_bytes) + " bytes, over the " +
                   std::to_string(spec.max_genesis_bytes) + " a node reads; give fewer accounts or coins");
  }

  DevnetGenesis out;
  out.genesis_path = spec.genesis_path;
  if (spec.key_dir.empty()) {
    const std::filesystem::path parent = std::filesystem::path(spec.genesis_path).parent_path();
    out.key_dir = (parent / "keys").string();
  } else {
    out.key_dir = spec.key_dir;
  }

  // Every destination before any work: nothing is written if one is taken
  // or unsafe.
  if (is_directory(out.genesis_path)) {
    return invalid("genesis file " + quoted_path(out.genesis_path) + " is a directory");
  }
  if (!spec.overwrite && path_exists(out.genesis_path)) {
    return invalid("genesis file " + quoted_path(out.genesis_path) + " already exists");
  }
  std::optional<KeyDirectory> directory;
  if (path_exists(out.key_dir)) {
    SION_TRY(directory, open_key_directory(out.key_dir, false));
  }
  std::vector<std::string> names;
  names.reserve(spec.accounts);
  out.key_files.reserve(spec.accounts);
  for (std::size_t i = 0; i < spec.accounts; ++i) {
    names.push_back(key_file_name(i));
    out.key_files.push_back((std::filesystem::path(out.key_dir) / names.back()).string());
    struct stat st {};
    if (directory && ::fstatat(directory->fd.get(), names.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      return invalid("key file " + quoted_path(out.key_files.back()) +
                     " already exists (key files are never overwritten)");
    }
  }

  // Fresh keys from the operating system's generator (base/random.hpp).
  Seeds seeds(spec.accounts);
  out.genesis.params.chain_id = spec.chain_id;
  out.genesis.validators = spec.validators;
  // Rules the validators' keys can sign, whatever profile the devnet uses.
  out.genesis.consensus = exec::consensus_rules_for(spec.validators);
  out.genesis.accounts.reserve(spec.accounts);
  for (crypto::KeySeed& seed : seeds.seeds) {
    SION_TRY_STATUS(base::random_bytes(seed));
    SION_TRY(const crypto::SigningBundle bundle, crypto::SigningBundle::from_seed(spec.profile, seed));
    out.genesis.accounts.push_back(
        {bundle.public_bundle(), std::vector<exec::Amount>(spec.coins_per_account, spec.amount)});
  }
  SION_TRY_STATUS(exec::check_genesis(out.genesis));
  SION_TRY(out.total_supply, exec::total_supply(out.genesis));
  SION_TRY(out.state_root, exec::genesis_state_root(out.genesis));

  // Keys first, so that a genesis file never names accounts whose keys were
  // not saved; a failure removes what this call wrote.
  if (!directory) {
    SION_TRY(directory, open_key_directory(out.key_dir, true));
  }
  WrittenKeys written{*directory, names};
  for (std::size_t i = 0; i < spec.accounts; ++i) {
    SION_TRY_STATUS(write_key_file(*directory, names[i], spec.profile, seeds.seeds[i]));
    ++written.count;
  }
  SION_TRY_STATUS(create_parents(out.genesis_path));
  SION_TRY_STATUS(exec::write_genesis_file(out.genesis_path, out.genesis, spec.overwrite));
  written.kept = true;
  return out;
}

}  // namespace sion::wallet
