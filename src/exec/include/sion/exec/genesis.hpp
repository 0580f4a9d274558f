#pragma once
// Genesis (docs/genesis.md): the JSON file that fixes a chain's parameters
// and its first accounts and coins, the object writes it stands for, and the
// devnet key files `sion genesis` writes beside it.
//
// The file is input, not consensus format: nodes agree on the state it
// implies (genesis_writes(), and its root genesis_state_root()), never on its
// bytes. It holds integers only: no floating point reaches a parameter or an
// amount.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/commit/hash.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/state/object_store.hpp"

namespace sion::exec {

// Genesis files larger than this are refused unread.
inline constexpr std::size_t kMaxGenesisFileBytes = std::size_t{1} << 30;

// An account that exists from the start, with its coins (possibly none).
struct GenesisAccount {
  crypto::KeyBundle keys;
  std::vector<Amount> coins;
  bool operator==(const GenesisAccount&) const = default;
};

struct Genesis {
  ChainParams params;
  std::vector<GenesisAccount> accounts;  // at least one, distinct account ids
  bool operator==(const Genesis&) const = default;
};

// The checks the JSON syntax cannot make: at least one account; every key
// bundle passes crypto::check_key_bundle; no account twice; every coin
// amount at least 1; the total supply within 2^64 - 1 and the coin count
// within 2^32. Errors are invalid_value, "genesis: <JSON path>: why".
base::Status check_genesis(const Genesis& genesis);

// Reads genesis JSON (docs/genesis.md): exactly the documented fields,
// numbers as unsigned integers in their field's range, keys as lower-case
// hex of the codec encoding of a KeyBundle; then check_genesis(). Errors are
// invalid_value and name the JSON path, e.g.
// "genesis: accounts[3].coins[0]: expected an unsigned integer, got -5".
base::Result<Genesis> parse_genesis(std::string_view json);

// The canonical JSON text: fixed key order, two-space indent, integers only,
// a final newline. parse_genesis(genesis_to_json(g)) == g for a valid g.
std::string genesis_to_json(const Genesis& genesis);

// The sum of every coin; invalid_value if it passes 2^64 - 1.
base::Result<Amount> total_supply(const Genesis& genesis);

// The id of the j-th genesis coin (numbered from 0 across all accounts in
// file order): coin_id of the all-zero transaction id, which no
// transaction's id can be (it would take a SHA3-256 preimage).
Id genesis_coin_id(std::uint32_t index) noexcept;

// The state a chain starts from, as object writes sorted by id: per account
// an Account {bundle_id(keys), nonce 0} at account_id(keys), and per coin a Coin
// {owner account id, amount} at genesis_coin_id(j); all of version 1.
// Requires check_genesis(genesis) to pass (parse_genesis ensures it).
std::vector<state::ObjectWrite> genesis_writes(const Genesis& genesis);

// commit::state_root over (id, state::object_hash(object)) of the writes:
// the root every node must reach before the first Pulse.
base::Result<commit::Hash> genesis_state_root(const Genesis& genesis);

// ---- Files ------------------------------------------------------------------

// Reads and parses a genesis file; errors are prefixed with the path.
base::Result<Genesis> read_genesis_file(const std::string& path);

// Writes genesis_to_json(genesis) to `path` (mode 0644 before the umask).
// Without `overwrite` an existing file is never replaced (invalid_argument,
// "... already exists"); with it the file is replaced atomically (rename).
base::Status write_genesis_file(const std::string& path, const Genesis& genesis, bool overwrite);

// A key file, docs/genesis.md: {"profile": "dual", "seed": "<64 hex>",
// "account": "<64 hex>"}: the 32-byte master seed of
// crypto::SigningBundle::from_seed(profile, seed) and, as a check, the
// account id it gives. Owner-only: created with mode 0600, never over an
// existing file.
// Writes one and returns the bundle it holds.
base::Result<crypto::SigningBundle> write_key_file(const std::string& path, crypto::Profile profile,
                                                   const crypto::KeySeed& seed);

// Reads one back. Refused: a file group or others may access (a secret
// others could have read; fix with chmod 600), not a regular file, over 4 KiB,
// a field missing, unknown or malformed, or an account id that does not
// match the seed.
base::Result<crypto::SigningBundle> read_key_file(const std::string& path);
// The same checks on a key file's text (all but the file's own: mode, kind,
// size); `origin` starts each error. The text is wiped before returning.
base::Result<crypto::SigningBundle> parse_key_file(std::string text, std::string_view origin);

// ---- Devnet -------------------------------------------------------------------

// What `sion genesis` makes: `accounts` accounts with fresh random seeds,
// each given `coins_per_account` coins of `amount`, and default fees and
// limits under `chain_id`.
struct DevnetSpec {
  std::size_t accounts = 1;
  std::uint64_t chain_id = 1;
  Amount amount = 1'000'000'000;
  std::size_t coins_per_account = 1;
  crypto::Profile profile = crypto::Profile::dual;
  std::string genesis_path;  // the genesis file to write
  std::string key_dir;       // empty: "keys" beside the genesis file
  bool overwrite = false;    // may replace an existing genesis file (never a key file)
};

struct DevnetGenesis {
  Genesis genesis;
  commit::Hash state_root{};
  Amount total_supply = 0;
  std::string genesis_path;
  std::string key_dir;
  std::vector<std::string> key_files;  // key_files[i] holds account i
};

// The name of account i's key file in the key directory: account-0007.json.
std::string key_file_name(std::size_t index);

// Generates the accounts, writes the key files (the directory created with
// mode 0700 if missing) and then the genesis file. Checks the options and
// every destination before writing anything; if a write fails, removes the
// key files it wrote. Errors: invalid_argument for options that make no
// sense or a destination that already exists, io_error for the system.
base::Result<DevnetGenesis> write_devnet(const DevnetSpec& spec);

}  // namespace sion::exec
