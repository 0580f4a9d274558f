#pragma once
// Genesis (docs/genesis.md): the JSON file that fixes a chain's parameters
// and its first accounts and coins, and the object writes it stands for. Key
// files and devnet folders are the wallet's (sion/wallet/).
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

// Genesis files larger than this are refused unread, and never written.
inline constexpr std::size_t kMaxGenesisFileBytes = std::size_t{1} << 30;
// Genesis coins are numbered by a u32 (genesis_coin_id).
inline constexpr std::uint64_t kMaxGenesisCoins = std::uint64_t{1} << 32;

// What one unit of the native coin is shown as in US dollars on a devnet,
// in nano-USD: used by `sion bench` and the CLI to print fees, never by
// consensus (docs/genesis.md, "Display price").
inline constexpr std::uint64_t kDevnetNanoUsdPerUnit = 50;

// An account that exists from the start, with its coins (possibly none).
struct GenesisAccount {
  crypto::KeyBundle keys;
  std::vector<Amount> coins;
  bool operator==(const GenesisAccount&) const = default;
};

// A validator: its public key bundle and its weight in every quorum
// (docs/consensus.md, "Validators").
struct GenesisValidator {
  crypto::KeyBundle keys;
  std::uint64_t stake = 1;
  bool operator==(const GenesisValidator&) const = default;
};

// The sum of the validators' stakes stays below this.
inline constexpr std::uint64_t kMaxTotalStake = std::uint64_t{1} << 62;
inline constexpr std::uint64_t kMaxLaneGap = 1024;

// What every validator of a chain must agree on besides the validators
// (docs/genesis.md, "Consensus"): the schemes of a validator's key bundle
// that sign each kind of consensus message (docs/consensus.md, "Legs and the
// leg policy"), and how far a block may extend a lane.
struct ConsensusRules {
  std::vector<crypto::Scheme> proposal_legs = {crypto::Scheme::ml_dsa_44};
  std::vector<crypto::Scheme> vote_legs = {crypto::Scheme::ml_dsa_44};
  std::vector<crypto::Scheme> timeout_legs = {crypto::Scheme::ml_dsa_44};
  std::vector<crypto::Scheme> approvals_legs = {crypto::Scheme::ml_dsa_44};
  std::vector<crypto::Scheme> pulse_vote_legs = {crypto::Scheme::ml_dsa_44, crypto::Scheme::slh_dsa_sha2_128f};
  std::uint64_t max_lane_gap = 64;
  bool operator==(const ConsensusRules&) const = default;
};

struct Genesis {
  ChainParams params;
  std::vector<GenesisAccount> accounts;  // at least one, distinct account ids
  // The validators, distinct keys: who orders Pulses and signs log heads
  // (docs/genesis.md, "Validators"). Not part of the state:
  // genesis_writes() does not depend on them. May be empty in files made
  // only for execution.
  std::vector<GenesisValidator> validators;
  ConsensusRules consensus;
  bool operator==(const Genesis&) const = default;
};

// The default rules narrowed to what every one of `validators` can sign:
// each kind keeps the default legs all of them hold, or else takes the
// first scheme of the first validator's bundle (a devnet of Ed25519 +
// ML-DSA-44 keys, say, signs Pulse votes with ML-DSA-44 alone).
ConsensusRules consensus_rules_for(std::span<const GenesisValidator> validators);

// The validators' key bundles, in order.
std::vector<crypto::KeyBundle> validator_keys(const Genesis& genesis);

// The checks the JSON syntax cannot make: at least one account; every key
// bundle passes crypto::check_key_bundle; no account twice; every coin
// amount at least 1; the total supply within 2^64 - 1 and the coin count
// within 2^32; every validator's bundle passes check_key_bundle, no
// validator twice, every stake at least 1 and their sum below
// kMaxTotalStake; every consensus leg list non-empty without repeats, each
// scheme in every validator's bundle; max_lane_gap in [1, kMaxLaneGap].
// Errors are invalid_value, "genesis: <JSON path>: why".
base::Status check_genesis(const Genesis& genesis);

// Reads genesis JSON (docs/genesis.md) with the strict reader of
// sion/base/json.hpp: exactly the documented fields, each once, numbers as
// unsigned integers in their field's range, keys as lower-case hex of the
// codec encoding of a KeyBundle; then check_genesis(). Errors are
// invalid_value and name the JSON path, e.g.
// "genesis: $.accounts[3].coins[0]: expected an unsigned integer, got -5".
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

// Reads and parses a genesis file (base::read_file: a regular file of at most
// kMaxGenesisFileBytes; a FIFO is refused, not waited on); parse errors are
// prefixed with the path.
base::Result<Genesis> read_genesis_file(const std::string& path);

// invalid_argument if a genesis file of `bytes` bytes is over
// kMaxGenesisFileBytes: the writer refuses what the reader would.
base::Status check_genesis_file_size(std::uint64_t bytes);

// Writes genesis_to_json(genesis) to `path` (mode 0644 before the umask),
// after check_genesis_file_size. Without `overwrite` an existing file is never
// replaced (invalid_argument, "... already exists"); with it the file is
// replaced atomically (base::replace_file).
base::Status write_genesis_file(const std::string& path, const Genesis& genesis, bool overwrite);

}  // namespace sion::exec
