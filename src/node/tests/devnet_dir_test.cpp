#include "sion/node/devnet_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sion/base/testing/file_mode.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::node {
namespace {

namespace fs = std::filesystem;
using base::testing::file_mode;
using base::testing::TempDir;

DevnetDirSpec small_spec(const std::string& dir) {
  DevnetDirSpec spec;
  spec.dir = dir;
  spec.accounts = 2;
  spec.chain_id = 7;
  spec.profile = crypto::Profile::hybrid;  // fast keys
  spec.api_address = {"127.0.0.1", 0};
  spec.interval_ms = 250;
  return spec;
}

TEST(DevnetDir, CreatesEverythingOneValidatorNeeds) {
  TempDir tmp;
  const std::string dir = tmp / "devnet";
  const auto made = create_devnet_dir(small_spec(dir));
  ASSERT_TRUE(made) << made.error().reason;
  EXPECT_FALSE(made->resumed);
  EXPECT_EQ(made->config_path, dir + "/node.toml");
  const NodeConfig& config = made->config;
  EXPECT_EQ(config.data_dir, dir + "/data");
  EXPECT_EQ(config.genesis_file, dir + "/genesis.json");
  EXPECT_EQ(config.validator_key_file, dir + "/keys/validator.json");
  EXPECT_EQ(config.api.address, (HostPort{"127.0.0.1", 0}));
  EXPECT_EQ(config.pulse.interval_ms, 250u);
  EXPECT_EQ(file_mode(config.data_dir), 0700u);
  EXPECT_EQ(file_mode(dir + "/keys"), 0700u);
  EXPECT_EQ(file_mode(config.validator_key_file), 0600u);
  ASSERT_EQ(made->account_key_files.size(), 2u);
  EXPECT_EQ(made->account_key_files[1], dir + "/keys/account-0001.json");

  const auto validator = wallet::read_key_file(config.validator_key_file);
  ASSERT_TRUE(validator) << validator.error().reason;
  const auto genesis = exec::read_genesis_file(config.genesis_file);
  ASSERT_TRUE(genesis) << genesis.error().reason;
  EXPECT_EQ(genesis->params.chain_id, 7u);
  ASSERT_EQ(genesis->accounts.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto key = wallet::read_key_file(made->account_key_files[i]);
    ASSERT_TRUE(key) << key.error().reason;
    EXPECT_EQ(key->public_bundle(), genesis->accounts[i].keys);
  }
  // The node.toml's paths are relative: the folder may be moved.
  std::ifstream in(made->config_path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("data_dir = \"data\""), std::string::npos) << text.str();
}

TEST(DevnetDir, ReusesAFolderItMade) {
  TempDir tmp;
  const std::string dir = tmp / "devnet";
  const auto first = create_devnet_dir(small_spec(dir));
  ASSERT_TRUE(first) << first.error().reason;
  const auto validator = wallet::read_key_file(first->config.validator_key_file);
  ASSERT_TRUE(validator);

  DevnetDirSpec other = small_spec(dir);
  other.accounts = 5;
  other.interval_ms = 2000;
  const auto second = create_devnet_dir(other);
  ASSERT_TRUE(second) << second.error().reason;
  EXPECT_TRUE(second->resumed);
  EXPECT_EQ(second->config, first->config);  // the folder's own, not the new spec
  EXPECT_EQ(second->account_key_files, first->account_key_files);
  const auto again = wallet::read_key_file(second->config.validator_key_file);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id(), validator->id());  // the same validator: the same chain
}

TEST(DevnetDir, RefusesAForeignFolder) {
  TempDir tmp;
  const std::string dir = tmp / "mine";
  fs::create_directories(dir);
  std::ofstream(dir + "/notes.txt") << "my files";
  const auto refused = create_devnet_dir(small_spec(dir));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, base::Errc::invalid_argument);
  EXPECT_NE(refused.error().reason.find("is not a devnet folder"), std::string::npos) << refused.error().reason;
  EXPECT_FALSE(fs::exists(dir + "/node.toml"));

  std::ofstream(tmp / "file") << "x";
  EXPECT_FALSE(create_devnet_dir(small_spec(tmp / "file")));

  // A marker sion did not write.
  const std::string fake = tmp / "fake";
  fs::create_directories(fake);
  std::ofstream(fake + "/.sion-devnet") << "something else\n";
  const auto faked = create_devnet_dir(small_spec(fake));
  ASSERT_FALSE(faked);
  EXPECT_NE(faked.error().reason.find("is not one sion wrote"), std::string::npos) << faked.error().reason;
}

TEST(DevnetDir, UsesAnEmptyFolderAndChecksTheSpec) {
  TempDir tmp;
  const auto made = create_devnet_dir(small_spec(tmp.str()));
  ASSERT_TRUE(made) << made.error().reason;
  EXPECT_FALSE(made->resumed);

  TempDir other;
  DevnetDirSpec spec = small_spec(other / "d");
  spec.interval_ms = 50;
  const auto too_fast = create_devnet_dir(spec);
  ASSERT_FALSE(too_fast);
  EXPECT_EQ(too_fast.error().code, base::Errc::invalid_argument);
  spec.interval_ms = 1000;
  spec.accounts = 0;
  EXPECT_FALSE(create_devnet_dir(spec));
  EXPECT_FALSE(fs::exists(other / "d/.sion-devnet"));
}

}  // namespace
}  // namespace sion::node
