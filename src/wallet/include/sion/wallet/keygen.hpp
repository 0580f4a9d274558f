#pragma once
// New keys for one account (`sion keygen`, docs/wallet.md): a fresh seed
// from the operating system written as a key file (docs/genesis.md, "Key
// files"), and where key files live by default.

#include <optional>
#include <string>

#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/ledger/objects.hpp"

namespace sion::wallet {

struct NewKey {
  std::string path;  // the key file written
  ledger::Id account{};
  crypto::Profile profile = crypto::Profile::dual;
};

// The default key directory, $HOME/.sion/keys. invalid_argument if HOME is
// unset or empty (name a file instead).
base::Result<std::string> default_key_directory();

// The file name `sion keygen` gives a key in the key directory: the first 16
// hex digits of its address, "35587abb4798ab89.json".
std::string default_key_file_name(const ledger::Id& account);

// Makes a key of `profile` from a fresh seed and writes it (mode 0600, never
// over an existing file) to `out`, or if none to
// key_dir/default_key_file_name(account). The file's folder is created with
// mode 0700 if missing, and must pass open_key_directory (owner only, no
// symbolic link). Errors: invalid_argument for a taken file or an unsafe
// folder, io_error for the system.
base::Result<NewKey> generate_key_file(crypto::Profile profile, const std::optional<std::string>& out,
                                       const std::string& key_dir);

// The key file `sion address` reads without --key: the only *.json file in
// key_dir. invalid_argument if there is none or more than one (naming them),
// not_found if key_dir does not exist.
base::Result<std::string> only_key_file(const std::string& key_dir);

}  // namespace sion::wallet
