#include "sion/wallet/key_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "sion/base/bytes.hpp"
#include "sion/base/json.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::wallet {
namespace {

using base::Errc;
using base::quoted_path;

base::Failure directory_error(const std::string& path, const std::string& why) {
  return base::fail(Errc::invalid_argument, "key directory " + quoted_path(path) + ": " + why);
}

base::Failure os_error(const std::string& what, const std::string& path, int error) {
  return base::fail(Errc::io_error, "cannot " + what + " " + quoted_path(path) + ": " + std::strerror(error));
}

// Creates `path` with mode 0700 and its missing parents with the default
// mode; an existing entry is left for open_key_directory to judge.
base::Status create_directory(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) {
      return base::fail(Errc::io_error,
                        "cannot create directory " + quoted_path(parent.string()) + ": " + error.message());
    }
  }
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return os_error("create key directory", path, errno);
  return {};
}

std::string key_file_text(crypto::Profile profile, const crypto::KeySeed& seed, const exec::Id& account) {
  nlohmann::ordered_json document = nlohmann::ordered_json::object();
  document["profile"] = std::string(crypto::profile_name(profile));
  document["seed"] = base::to_hex(seed);
  document["account"] = base::to_hex(account);
  std::string text = document.dump(2) + "\n";
  std::string& seed_hex = document["seed"].get_ref<std::string&>();
  base::secure_wipe(seed_hex.data(), seed_hex.size());
  return text;
}

base::Result<KeySecret> key_from_json(const base::JsonValue& document) {
  SION_TRY(auto object, base::JsonView(document).as_object());
  SION_TRY(const base::JsonView profile_field, object.field("profile"));
  SION_TRY(const std::string profile_name, profile_field.as_string());
  const auto profile = crypto::profile_from_name(profile_name);
  if (!profile) return profile_field.invalid("unknown profile " + base::json_quoted(profile_name));

  auto guard = std::make_unique<KeySeedGuard>();
  {
    SION_TRY(base::Bytes seed, object.hex("seed", {.size = crypto::kKeySeedBytes}));
    std::copy(seed.begin(), seed.end(), guard->seed.begin());
    base::secure_wipe(seed.data(), seed.size());
  }
  SION_TRY(const base::JsonView account_field, object.field("account"));
  SION_TRY(const base::Bytes account, account_field.as_hex({.size = std::tuple_size_v<exec::Id>}));
  SION_TRY_STATUS(object.finish());

  SION_TRY(crypto::SigningBundle bundle, crypto::SigningBundle::from_seed(*profile, guard->seed));
  const exec::Id derived = exec::account_id(bundle.public_bundle());
  if (!std::equal(derived.begin(), derived.end(), account.begin(), account.end())) {
    return account_field.invalid("does not match the seed, which gives account " + base::to_hex(derived));
  }
  return KeySecret{*profile, std::move(guard), std::move(bundle)};
}

}  // namespace

base::Result<KeyDirectory> open_key_directory(const std::string& path, bool create) {
  if (create) {
    SION_TRY_STATUS(create_directory(path));
  }
  base::FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    const int error = errno;
    struct stat st {};
    if ((error == ELOOP || error == ENOTDIR) && ::lstat(path.c_str(), &st) == 0) {
      if (S_ISLNK(st.st_mode)) return directory_error(path, "a symbolic link; name the directory itself");
      return directory_error(path, "not a directory");
    }
    if (error == ENOENT)
      return base::fail(Errc::not_found, "key directory " + quoted_path(path) + ": no such directory");
    return os_error("open key directory", path, error);
  }
  // Judged on the opened descriptor: what is checked is what is written into.
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return os_error("open key directory", path, errno);
  if (st.st_uid != ::geteuid()) {
    return directory_error(path, "owned by user " + std::to_string(st.st_uid) + ", not by user " +
                                     std::to_string(::geteuid()) + " who runs this");
  }
  const auto mode = static_cast<unsigned>(st.st_mode & 07777);
  if ((mode & 022u) != 0) {
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", mode);
    return directory_error(path, std::string("group or others may write to it (mode ") + octal +
                                     "); a key directory must be writable by its owner only (chmod 700)");
  }
  return KeyDirectory{path, std::move(fd)};
}

base::Result<crypto::SigningBundle> write_key_file(const KeyDirectory& directory, const std::string& name,
                                                   crypto::Profile profile, const crypto::KeySeed& seed) {
  SION_TRY(crypto::SigningBundle bundle, crypto::SigningBundle::from_seed(profile, seed));
  std::string text = key_file_text(profile, seed, exec::account_id(bundle.public_bundle()));
  const std::string shown = (std::filesystem::path(directory.path) / name).string();
  auto status = base::write_new_file_at(directory.fd.get(), name, shown, text,
                                        {.what = "key file", .mode = 0600, .exact_mode = true});
  base::secure_wipe(text.data(), text.size());
  SION_TRY_STATUS(std::move(status));
  return bundle;
}

base::Result<crypto::SigningBundle> write_key_file(const std::string& path, crypto::Profile profile,
                                                   const crypto::KeySeed& seed) {
  const std::filesystem::path file(path);
  const std::string parent = file.has_parent_path() ? file.parent_path().string() : ".";
  SION_TRY(const KeyDirectory directory, open_key_directory(parent, false));
  return write_key_file(directory, file.filename().string(), profile, seed);
}

base::Result<crypto::SigningBundle> read_key_file(const std::string& path) {
  SION_TRY(KeySecret secret, read_key_secret(path));
  return std::move(secret.bundle);
}

base::Result<KeySecret> read_key_secret(const std::string& path) {
  SION_TRY(
      std::string text,
      base::read_file(
          path, {.what = "key file", .max_bytes = kMaxKeyFileBytes, .owner_only = true, .follow_symlinks = false}));
  return parse_key_secret(std::move(text), "key file " + quoted_path(path));
}

base::Result<crypto::SigningBundle> parse_key_file(std::string text, std::string_view origin) {
  SION_TRY(KeySecret secret, parse_key_secret(std::move(text), origin));
  return std::move(secret.bundle);
}

base::Result<KeySecret> parse_key_secret(std::string text, std::string_view origin) {
  auto document = base::parse_json(text);
  base::secure_wipe(text.data(), text.size());
  if (!document) return base::fail(std::move(document).error().with_context(origin));
  auto secret = key_from_json(*document);
  if (document->is_object() && document->contains("seed") && document->at("seed").is_string()) {
    std::string& seed_hex = document->at("seed").get_ref<std::string&>();
    base::secure_wipe(seed_hex.data(), seed_hex.size());
  }
  if (!secret) return base::fail(std::move(secret).error().with_context(origin));
  return secret;
}

}  // namespace sion::wallet
