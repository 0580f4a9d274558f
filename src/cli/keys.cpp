#include "sion/cli/keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>
#include <vector>

#include "sion/crypto/bundle.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/wallet/address.hpp"
#include "sion/wallet/key_file.hpp"
#include "sion/wallet/keygen.hpp"

namespace sion::cli {

base::Result<crypto::Profile> profile_option(const std::string& name) {
  const auto profile = crypto::profile_from_name(name);
  if (!profile) {
    std::vector<std::string_view> names;
    for (const crypto::Profile known : crypto::kAllProfiles) names.push_back(crypto::profile_name(known));
    return base::fail(base::Errc::invalid_argument, fmt::format("unknown profile '{}' in --profile; valid profiles: {}",
                                                                name, fmt::join(names, ", ")));
  }
  return *profile;
}

base::Status run_keygen(const KeygenOptions& options, std::FILE* out) {
  SION_TRY(const crypto::Profile profile, profile_option(options.profile));
  std::string key_dir;
  if (!options.out) {
    SION_TRY(key_dir, wallet::default_key_directory());
  }
  SION_TRY(const wallet::NewKey key, wallet::generate_key_file(profile, options.out, key_dir));
  fmt::print(out, "address: {}\n", wallet::address_to_text(key.account));
  fmt::print(out, "key file: {}\n", key.path);
  fmt::print(out, "profile: {}\n", crypto::profile_name(key.profile));
  return {};
}

base::Status run_address(const AddressOptions& options, std::FILE* out) {
  std::string path;
  if (options.key) {
    path = *options.key;
  } else {
    SION_TRY(const std::string key_dir, wallet::default_key_directory());
    SION_TRY(path, wallet::only_key_file(key_dir));
  }
  SION_TRY(const crypto::SigningBundle bundle, wallet::read_key_file(path));
  fmt::print(out, "{}\n", wallet::address_to_text(ledger::account_id(bundle.public_bundle())));
  return {};
}

}  // namespace sion::cli
