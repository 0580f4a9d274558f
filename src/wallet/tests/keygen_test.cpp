#include "sion/wallet/keygen.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sion/base/bytes.hpp"
#include "sion/base/testing/file_mode.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/wallet/address.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::wallet {
namespace {

namespace fs = std::filesystem;
using base::testing::file_mode;
using base::testing::TempDir;

TEST(Keygen, WritesAnOwnerOnlyKeyFileNamedByItsAddress) {
  TempDir tmp;
  const std::string key_dir = tmp / "home/.sion/keys";
  const auto key = generate_key_file(crypto::Profile::hybrid, std::nullopt, key_dir);
  ASSERT_TRUE(key) << key.error().reason;
  EXPECT_EQ(key->path, key_dir + "/" + address_to_text(key->account).substr(0, 16) + ".json");
  EXPECT_EQ(file_mode(key->path), 0600u);
  EXPECT_EQ(file_mode(key_dir), 0700u);
  const auto read = read_key_file(key->path);
  ASSERT_TRUE(read) << read.error().reason;
  EXPECT_EQ(ledger::account_id(read->public_bundle()), key->account);
  EXPECT_EQ(read->public_bundle().profile(), crypto::Profile::hybrid);
}

TEST(Keygen, EveryProfile) {
  TempDir tmp;
  for (const crypto::Profile profile : crypto::kAllProfiles) {
    const std::string out = tmp / ("keys/" + std::string(crypto::profile_name(profile)) + ".json");
    const auto key = generate_key_file(profile, out, "unused");
    ASSERT_TRUE(key) << key.error().reason;
    EXPECT_EQ(key->path, out);
    EXPECT_EQ(key->profile, profile);
    const auto read = read_key_file(out);
    ASSERT_TRUE(read) << read.error().reason;
    EXPECT_EQ(read->public_bundle().profile(), profile);
  }
}

TEST(Keygen, NeverOverwrites) {
  TempDir tmp;
  const std::string out = tmp / "keys/mine.json";
  ASSERT_TRUE(generate_key_file(crypto::Profile::classic, out, ""));
  std::ifstream first_in(out);
  const std::string first((std::istreambuf_iterator<char>(first_in)), {});
  const auto again = generate_key_file(crypto::Profile::classic, out, "");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, base::Errc::invalid_argument);
  EXPECT_NE(again.error().reason.find("already exists"), std::string::npos) << again.error().reason;
  std::ifstream second_in(out);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(second_in)), {}), first);
}

TEST(Keygen, RefusesAnUnsafeFolder) {
  TempDir tmp;
  const std::string open = tmp / "open";
  fs::create_directories(open);
  fs::permissions(open, fs::perms::owner_all | fs::perms::group_all | fs::perms::others_all);
  const auto key = generate_key_file(crypto::Profile::classic, open + "/k.json", "");
  ASSERT_FALSE(key);
  EXPECT_NE(key.error().reason.find("chmod 700"), std::string::npos) << key.error().reason;
  EXPECT_FALSE(fs::exists(open + "/k.json"));
}

TEST(Keygen, OnlyKeyFile) {
  TempDir tmp;
  EXPECT_EQ(only_key_file(tmp / "none").error().code, base::Errc::not_found);
  fs::create_directory(tmp / "keys");
  fs::permissions(tmp / "keys", fs::perms::owner_all);  // whatever the umask
  EXPECT_EQ(only_key_file(tmp / "keys").error().code, base::Errc::invalid_argument);
  const auto one = generate_key_file(crypto::Profile::classic, std::nullopt, tmp / "keys");
  ASSERT_TRUE(one);
  const auto found = only_key_file(tmp / "keys");
  ASSERT_TRUE(found) << found.error().reason;
  EXPECT_EQ(*found, one->path);
  ASSERT_TRUE(generate_key_file(crypto::Profile::classic, std::nullopt, tmp / "keys"));
  const auto two = only_key_file(tmp / "keys");
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().reason.find("--key"), std::string::npos) << two.error().reason;
}

TEST(Address, TextRoundTripAndStrictParsing) {
  ledger::Id id{};
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::uint8_t>(i * 7 + 1);
  const std::string text = address_to_text(id);
  EXPECT_EQ(text, base::to_hex(id));
  EXPECT_EQ(text.size(), kAddressChars);
  const auto parsed = parse_address(text);
  ASSERT_TRUE(parsed) << parsed.error().reason;
  EXPECT_EQ(*parsed, id);

  std::string upper = text;
  upper[1] = 'A';
  EXPECT_FALSE(parse_address(upper));
  std::string prefixed = text;
  prefixed.replace(0, 2, "0x");  // still 64 characters
  EXPECT_FALSE(parse_address(prefixed));
  EXPECT_FALSE(parse_address(text + " "));
  EXPECT_FALSE(parse_address(text.substr(1)));
  EXPECT_FALSE(parse_address(""));
  std::string not_hex = text;
  not_hex[0] = 'g';
  EXPECT_EQ(parse_address(not_hex).error().code, base::Errc::invalid_value);
}

}  // namespace
}  // namespace sion::wallet
