#pragma once
// A devnet folder (docs/node-config.md, "Devnet folder"): everything one
// validator needs to run a chain of its own, in one folder D:
//
//   D/node.toml              the node's config, paths relative to D
//   D/genesis.json           the genesis file, funding the accounts
//   D/keys/validator.json    the validator's key file
//   D/keys/account-NNNN.json one key file per funded account
//   D/data/                  the node's state (mode 0700)
//   D/.sion-devnet           written last: marks a folder this made
//
// Made once; given the folder again, it is reused as it is (the same chain
// resumes), and a folder this did not make is never written into.

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

struct DevnetDirSpec {
  std::string dir;
  std::size_t accounts = 4;  // funded accounts, each with one coin of `amount`
  std::uint64_t chain_id = 1;
  exec::Amount amount = 1'000'000'000;
  crypto::Profile profile = crypto::Profile::dual;
  HostPort api_address{"127.0.0.1", 8730};
  std::uint32_t interval_ms = 1000;
};

struct DevnetDir {
  std::string dir;
  std::string config_path;                     // D/node.toml
  NodeConfig config;                           // as read back from it
  bool resumed = false;                        // true: the folder existed and was reused as it was
  std::vector<std::string> account_key_files;  // D/keys/account-*.json, in order
};

// Creates the folder's contents (D may exist if it is empty), or reuses a
// folder this made earlier: the spec is then not applied, the folder's own
// node.toml is read. Errors: invalid_argument for a spec that makes no sense
// or an existing folder that is not a devnet folder (no marker: a foreign
// folder, or one whose making was interrupted; remove it), io_error for the
// system, and node.toml's own errors when reusing.
base::Result<DevnetDir> create_devnet_dir(const DevnetDirSpec& spec);

}  // namespace sion::node
