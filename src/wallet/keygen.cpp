#include "sion/wallet/keygen.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "sion/base/random.hpp"
#include "sion/wallet/address.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::wallet {

namespace fs = std::filesystem;

base::Result<std::string> default_key_directory() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    return base::fail(base::Errc::invalid_argument, "HOME is not set, so there is no default key directory");
  }
  return (fs::path(home) / ".sion" / "keys").string();
}

std::string default_key_file_name(const ledger::Id& account) {
  return address_to_text(account).substr(0, 16) + ".json";
}

base::Result<NewKey> generate_key_file(crypto::Profile profile, const std::optional<std::string>& out,
                                       const std::string& key_dir) {
  KeySeedGuard guard;
  SION_TRY_STATUS(base::random_bytes(guard.seed));
  SION_TRY(const crypto::SigningBundle bundle, crypto::SigningBundle::from_seed(profile, guard.seed));
  NewKey key;
  key.account = ledger::account_id(bundle.public_bundle());
  key.profile = profile;

  std::string folder = key_dir;
  std::string name = default_key_file_name(key.account);
  if (out) {
    const fs::path file(*out);
    if (!file.has_filename()) {
      return base::fail(base::Errc::invalid_argument, "key file '" + *out + "' names a folder, not a file");
    }
    folder = file.has_parent_path() ? file.parent_path().string() : ".";
    name = file.filename().string();
  }
  SION_TRY(const KeyDirectory directory, open_key_directory(folder, true));
  SION_TRY_STATUS(write_key_file(directory, name, profile, guard.seed));
  key.path = out ? *out : (fs::path(folder) / name).string();
  return key;
}

base::Result<std::string> only_key_file(const std::string& key_dir) {
  std::error_code error;
  if (!fs::is_directory(key_dir, error)) {
    return base::fail(base::Errc::not_found, "key directory '" + key_dir + "' does not exist");
  }
  std::vector<std::string> files;
  for (fs::directory_iterator it(key_dir, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".json") files.push_back(it->path().string());
  }
  if (error) return base::fail(base::Errc::io_error, "cannot list key directory '" + key_dir + "': " + error.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    return base::fail(base::Errc::invalid_argument, "no key file in '" + key_dir + "'; make one with sion keygen");
  }
  if (files.size() > 1) {
    std::string names;
    for (const std::string& file : files) names += (names.empty() ? "" : ", ") + fs::path(file).filename().string();
    return base::fail(base::Errc::invalid_argument,
                      "several key files in '" + key_dir + "' (" + names + "); choose one with --key FILE");
  }
  return files.front();
}

}  // namespace sion::wallet
