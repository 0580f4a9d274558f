#pragma once
// `sion keygen` and `sion address` (docs/wallet.md): an account's key file
// made and its address shown.

#include <cstdio>
#include <optional>
#include <string>

#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"

namespace sion::cli {

// The profile --profile names (crypto::profile_from_name: dual, cold, strong,
// hybrid, classic); invalid_argument listing the valid names otherwise.
base::Result<crypto::Profile> profile_option(const std::string& name);

struct KeygenOptions {
  std::string profile = "dual";
  std::optional<std::string> out;  // default: $HOME/.sion/keys/<first 16 hex digits of the address>.json
};

// Writes a fresh key file (mode 0600, never over an existing file) and
// prints `address: <64 hex>`, `key file: <path>` and `profile: <name>`.
// invalid_argument for an unknown profile or a taken or unsafe destination.
base::Status run_keygen(const KeygenOptions& options, std::FILE* out);

struct AddressOptions {
  std::optional<std::string> key;  // default: the only key file in $HOME/.sion/keys
};

// Prints the address of the key file, 64 lower-case hex digits and a newline.
base::Status run_address(const AddressOptions& options, std::FILE* out);

}  // namespace sion::cli
