#pragma once
// Key files (docs/genesis.md, "Key files"): the secret of one account on disk,
// {"profile": "dual", "seed": "<64 hex>", "account": "<64 hex>"}: the 32-byte
// master seed of crypto::SigningBundle::from_seed(profile, seed) and, as a
// check, the account id it gives.
//
// Key files live in a key directory that only their owner can change: it is
// opened without following a symbolic link (O_DIRECTORY | O_NOFOLLOW), its
// owner and mode are checked on the opened descriptor, and files are created
// relative to that descriptor (openat), so the directory cannot be swapped
// between the check and the write.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"

namespace sion::wallet {

// Key files larger than this are refused unread.
inline constexpr std::size_t kMaxKeyFileBytes = 4096;

// A seed wiped from memory when it goes out of scope.
struct KeySeedGuard {
  crypto::KeySeed seed{};
  KeySeedGuard() = default;
  KeySeedGuard(const KeySeedGuard&) = delete;
  KeySeedGuard& operator=(const KeySeedGuard&) = delete;
  ~KeySeedGuard() { base::secure_wipe(seed.data(), seed.size()); }
};

// An open key directory.
struct KeyDirectory {
  std::string path;
  base::FileDescriptor fd;
};

// Opens the key directory `path`, first creating it with mode 0700 (and its
// missing parents with the default mode) if `create` and it does not exist.
// Refused (invalid_argument): a symbolic link (name the directory itself),
// not a directory, owned by another user, or writable by group or others
// (fix with chmod 700). io_error for the system.
base::Result<KeyDirectory> open_key_directory(const std::string& path, bool create);

// Writes a key file `name` in the directory (mode 0600 whatever the umask,
// never over an existing file) and returns the bundle it holds.
base::Result<crypto::SigningBundle> write_key_file(const KeyDirectory& directory, const std::string& name,
                                                   crypto::Profile profile, const crypto::KeySeed& seed);
// The same for a path; its directory must exist and pass open_key_directory.
base::Result<crypto::SigningBundle> write_key_file(const std::string& path, crypto::Profile profile,
                                                   const crypto::KeySeed& seed);

// Reads one back. Refused: not a regular file (a FIFO is refused, not waited
// on), a symbolic link, a file group or others may access or another user
// owns (a secret others could have read; fix with chmod 600), over
// kMaxKeyFileBytes, a field missing, unknown, repeated or malformed, or an
// account id that does not match the seed.
base::Result<crypto::SigningBundle> read_key_file(const std::string& path);
// The same checks on a key file's text (all but the file's own: kind, mode,
// size); `origin` starts each error. The text is wiped before returning.
base::Result<crypto::SigningBundle> parse_key_file(std::string text, std::string_view origin);

// A key file's whole secret: for a holder that derives keys of its own from
// the master seed (a validator's consensus signer signs only some legs).
struct KeySecret {
  crypto::Profile profile{};
  std::unique_ptr<KeySeedGuard> seed;  // never null
  crypto::SigningBundle bundle;
};
// read_key_file() and parse_key_file() keeping the seed.
base::Result<KeySecret> read_key_secret(const std::string& path);
base::Result<KeySecret> parse_key_secret(std::string text, std::string_view origin);

}  // namespace sion::wallet
