#pragma once
// A devnet folder (docs/node-config.md, "Devnet folder"): everything a chain
// of its own needs, in one folder D. With one validator:
//
//   D/node.toml              the node's config, paths relative to D
//   D/genesis.json           the genesis file, funding the accounts
//   D/keys/validator.json    the validator's key file
//   D/keys/account-NNNN.json one key file per funded account
//   D/data/                  the node's state (mode 0700)
//   D/.sion-devnet           written last: marks a folder this made
//
// With N > 1 validators, on loopback ports P, P + 1, ... (P the API port):
//
//   D/genesis.json               the accounts and the N validators
//   D/keys/validator-K.json      validator K's key file (K = 0 .. N-1)
//   D/keys/account-NNNN.json     as above
//   D/validator-K/node.toml      API on P + 2K, consensus on P + 1 + 2K, every
//                                other validator as a peer, log in node.log
//   D/validator-K/data/          its state (mode 0700)
//   D/.sion-devnet               written last
//
// Made once; given the folder again, it is reused as it is (the same chain
// resumes, with as many validators as it was made with), and a folder this
// did not make is never written into.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/node/config.hpp"

namespace sion::node {

inline constexpr std::string_view kDevnetMarkerName = ".sion-devnet";
inline constexpr std::string_view kDevnetMarkerText = "sion devnet folder v1\n";
inline constexpr std::size_t kMaxDevnetValidators = 64;

struct DevnetDirSpec {
  std::string dir;
  std::size_t validators = 1;  // 1 to kMaxDevnetValidators, each of stake 1
  std::size_t accounts = 4;    // funded accounts, each with one coin of `amount`
  std::uint64_t chain_id = 1;
  exec::Amount amount = 1'000'000'000;
  crypto::Profile profile = crypto::Profile::dual;
  // Validator K's API is on port + 2K and its consensus on port + 1 + 2K;
  // with several validators the port may not be 0 (each lists the others'
  // addresses).
  HostPort api_address{"127.0.0.1", 8730};
  std::uint32_t interval_ms = 50;
};

struct DevnetDir {
  std::string dir;
  std::vector<std::string> config_paths;       // one per validator, in order: D/node.toml or D/validator-K/node.toml
  std::vector<NodeConfig> configs;             // as read back from them
  std::string config_path;                     // validator 0's
  NodeConfig config;                           // validator 0's
  bool resumed = false;                        // true: the folder existed and was reused as it was
  std::vector<std::string> account_key_files;  // D/keys/account-*.json, in order

  // What the folder holds, which for a reused one may differ from the spec.
  std::size_t validators() const noexcept { return configs.size(); }
};

// Creates the folder's contents (D may exist if it is empty), or reuses a
// folder this made earlier: the spec is then not applied, the folder's own
// node.toml files are read (D/node.toml, else D/validator-0/node.toml,
// D/validator-1/node.toml, ... while they exist). Errors: invalid_argument
// for a spec that makes no sense or an existing folder that is not a devnet
// folder (no marker: a foreign folder, or one whose making was interrupted;
// remove it), io_error for the system, and node.toml's own errors when
// reusing.
base::Result<DevnetDir> create_devnet_dir(const DevnetDirSpec& spec);

}  // namespace sion::node
