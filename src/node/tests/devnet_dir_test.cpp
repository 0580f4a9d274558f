#include "sion/node/devnet_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sion/base/testing/file_mode.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/transaction.hpp"
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

// Four validators on fixed ports (nothing listens in these tests).
DevnetDirSpec four_spec(const std::string& dir) {
  DevnetDirSpec spec = small_spec(dir);
  spec.validators = 4;
  spec.api_address = {"127.0.0.1", 18730};
  return spec;
}

std::string validator_home(const std::string& dir, std::size_t k) { return dir + "/validator-" + std::to_string(k); }

TEST(DevnetDir, CreatesAFolderForSeveralValidators) {
  TempDir tmp;
  const std::string dir = tmp / "devnet";
  const auto made = create_devnet_dir(four_spec(dir));
  ASSERT_TRUE(made) << made.error().reason;
  EXPECT_FALSE(made->resumed);
  ASSERT_EQ(made->validators(), 4u);
  ASSERT_EQ(made->config_paths.size(), 4u);
  EXPECT_EQ(made->config_path, made->config_paths[0]);
  EXPECT_EQ(made->config, made->configs[0]);
  EXPECT_TRUE(fs::exists(dir + "/.sion-devnet"));
  EXPECT_FALSE(fs::exists(dir + "/node.toml"));
  EXPECT_FALSE(fs::exists(dir + "/keys/validator.json"));
  ASSERT_EQ(made->account_key_files.size(), 2u);

  const auto genesis = exec::read_genesis_file(dir + "/genesis.json");
  ASSERT_TRUE(genesis) << genesis.error().reason;
  ASSERT_EQ(genesis->accounts.size(), 2u);
  ASSERT_EQ(genesis->validators.size(), 4u);
  EXPECT_EQ(genesis->consensus, exec::consensus_rules_for(genesis->validators));
  std::vector<ledger::Id> ids;
  for (std::size_t k = 0; k < 4; ++k) {
    const std::string key_file = dir + "/keys/validator-" + std::to_string(k) + ".json";
    EXPECT_EQ(file_mode(key_file), 0600u);
    const auto key = wallet::read_key_file(key_file);
    ASSERT_TRUE(key) << key.error().reason;
    EXPECT_EQ(key->public_bundle(), genesis->validators[k].keys);
    EXPECT_EQ(genesis->validators[k].stake, 1u);
    ids.push_back(exec::account_id(key->public_bundle()));
  }

  for (std::size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE("validator " + std::to_string(k));
    const std::string home = validator_home(dir, k);
    EXPECT_EQ(made->config_paths[k], home + "/node.toml");
    // What the node reads, not only what was returned.
    const auto config = load_node_config(made->config_paths[k]);
    ASSERT_TRUE(config) << config.error().reason;
    EXPECT_EQ(*config, made->configs[k]);
    EXPECT_EQ(config->data_dir, home + "/data");
    EXPECT_EQ(file_mode(config->data_dir), 0700u);
    EXPECT_EQ(config->genesis_file, dir + "/genesis.json");
    EXPECT_EQ(config->validator_key_file, dir + "/keys/validator-" + std::to_string(k) + ".json");
    EXPECT_EQ(config->api.address, (HostPort{"127.0.0.1", static_cast<std::uint16_t>(18730 + 2 * k)}));
    EXPECT_EQ(config->consensus.listen, (HostPort{"127.0.0.1", static_cast<std::uint16_t>(18731 + 2 * k)}));
    EXPECT_EQ(config->log.file, home + "/node.log");
    EXPECT_EQ(config->pulse.interval_ms, 250u);
    EXPECT_EQ(config->peers.size(), 3u);
    EXPECT_FALSE(config->peers.contains(ids[k]));
    for (std::size_t other = 0; other < 4; ++other) {
      if (other == k) continue;
      ASSERT_TRUE(config->peers.contains(ids[other])) << "no peer " << other;
      EXPECT_EQ(config->peers.at(ids[other]), (HostPort{"127.0.0.1", static_cast<std::uint16_t>(18731 + 2 * other)}));
    }
  }
}

TEST(DevnetDir, ReusesAFolderOfSeveralValidatorsAsItIs) {
  TempDir tmp;
  const std::string dir = tmp / "devnet";
  const auto first = create_devnet_dir(four_spec(dir));
  ASSERT_TRUE(first) << first.error().reason;

  // Another count, port and interval: the folder's own files decide.
  DevnetDirSpec other = small_spec(dir);
  other.validators = 2;
  other.api_address = {"127.0.0.1", 9000};
  const auto second = create_devnet_dir(other);
  ASSERT_TRUE(second) << second.error().reason;
  EXPECT_TRUE(second->resumed);
  EXPECT_EQ(second->validators(), 4u);
  EXPECT_EQ(second->config_paths, first->config_paths);
  EXPECT_EQ(second->configs, first->configs);
  EXPECT_EQ(second->config, first->config);
  EXPECT_EQ(second->account_key_files, first->account_key_files);

  // A one-validator folder stays one.
  const std::string single = tmp / "single";
  ASSERT_TRUE(create_devnet_dir(small_spec(single)));
  const auto again = create_devnet_dir(four_spec(single));
  ASSERT_TRUE(again) << again.error().reason;
  EXPECT_TRUE(again->resumed);
  EXPECT_EQ(again->validators(), 1u);
  EXPECT_EQ(again->config_paths, std::vector<std::string>{single + "/node.toml"});
}

TEST(DevnetDir, ChecksTheValidatorsAndTheirPorts) {
  TempDir tmp;
  const std::string dir = tmp / "d";
  const auto refused = [&](const DevnetDirSpec& spec, std::string_view why) {
    const auto made = create_devnet_dir(spec);
    ASSERT_FALSE(made) << why;
    EXPECT_EQ(made.error().code, base::Errc::invalid_argument) << why;
    EXPECT_FALSE(fs::exists(dir)) << why;
  };
  DevnetDirSpec spec = four_spec(dir);
  spec.validators = 0;
  refused(spec, "no validator");
  spec.validators = kMaxDevnetValidators + 1;
  refused(spec, "65 validators");
  spec.validators = 4;
  spec.api_address.port = 0;  // the peers' ports must be known in advance
  refused(spec, "port 0");
  spec.api_address.port = 65'528;  // 65528 + 8 passes 16 bits
  refused(spec, "ports past 65535");

  // The last ports that fit: 65531 + 2 * 2 = 65535.
  spec.validators = 2;
  spec.api_address.port = 65'531;
  const auto made = create_devnet_dir(spec);
  ASSERT_TRUE(made) << made.error().reason;
  EXPECT_EQ(made->configs[1].consensus.listen.port, 65'534);

  // One validator may still take any free port.
  DevnetDirSpec one = small_spec(tmp / "one");
  one.validators = 1;
  EXPECT_TRUE(create_devnet_dir(one));
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
  spec.interval_ms = kMinPulseIntervalMs - 1;
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
