#pragma once
// Devnet set-up, what `sion genesis` makes (docs/genesis.md, "sion genesis"):
// fresh accounts, their key files in a key directory, and a genesis file
// naming them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/genesis.hpp"

namespace sion::wallet {

// `accounts` accounts with fresh random seeds, each given `coins_per_account`
// coins of `amount`, and default fees and limits under `chain_id`.
struct DevnetSpec {
  std::size_t accounts = 1;
  std::uint64_t chain_id = 1;
  exec::Amount amount = 1'000'000'000;
  std::size_t coins_per_account = 1;
  crypto::Profile profile = crypto::Profile::dual;
  std::vector<exec::GenesisValidator> validators;  // the genesis file's validators
  std::string genesis_path;                        // the genesis file to write
  std::string key_dir;                             // empty: "keys" beside the genesis file
  bool overwrite = false;                          // may replace an existing genesis file (never a key file)
  // The largest genesis file to write: what a node reads (smaller in tests).
  std::uint64_t max_genesis_bytes = exec::kMaxGenesisFileBytes;
};

struct DevnetGenesis {
  exec::Genesis genesis;
  commit::Hash state_root{};
  exec::Amount total_supply = 0;
  std::string genesis_path;
  std::string key_dir;
  std::vector<std::string> key_files;  // key_files[i] holds account i
};

inline constexpr std::size_t kMaxDevnetAccounts = 1'000'000;

// The name of account i's key file in the key directory: account-0007.json.
std::string key_file_name(std::size_t index);

// The exact size in bytes of the genesis file write_devnet(spec) writes (its
// text depends only on the spec's numbers and profile, not on the seeds),
// computed without writing it. Requires spec's counts within the limits
// write_devnet checks.
base::Result<std::uint64_t> devnet_genesis_bytes(const DevnetSpec& spec);

// Checks the options, the size of the genesis file (at most
// spec.max_genesis_bytes, so a node can read what this writes) and every
// destination before generating or writing anything; an existing key
// directory must pass open_key_directory (no symbolic link, owner only).
// Then generates the accounts, writes the key files (the directory created
// with mode 0700 if missing) and then the genesis file; if a write fails,
// removes the key files it wrote. Errors: invalid_argument for options that
// make no sense or a destination that is taken or unsafe, io_error for the
// system.
base::Result<DevnetGenesis> write_devnet(const DevnetSpec& spec);

}  // namespace sion::wallet
