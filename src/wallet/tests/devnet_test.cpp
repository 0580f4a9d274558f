#include "sion/wallet/devnet.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "sion/base/testing/file_mode.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::wallet {
namespace {

namespace fs = std::filesystem;
using base::testing::file_mode;
using base::testing::TempDir;
using exec::Amount;
using exec::read_genesis_file;

TEST(Devnet, DevnetWritesKeysAndGenesis) {
  TempDir dir;
  DevnetSpec spec;
  spec.accounts = 3;
  spec.chain_id = 42;
  spec.amount = 500;
  spec.coins_per_account = 2;
  spec.genesis_path = dir / "net/genesis.json";
  const auto devnet = write_devnet(spec);
  ASSERT_TRUE(devnet) << devnet.error().reason;
  EXPECT_EQ(devnet->key_dir, dir / "net/keys");
  EXPECT_EQ(file_mode(devnet->key_dir), 0700u);
  EXPECT_EQ(devnet->total_supply, 3000u);
  EXPECT_EQ(devnet->state_root, exec::genesis_state_root(devnet->genesis).value());

  const auto genesis = read_genesis_file(spec.genesis_path);
  ASSERT_TRUE(genesis) << genesis.error().reason;
  EXPECT_EQ(*genesis, devnet->genesis);
  EXPECT_EQ(genesis->params.chain_id, 42u);
  EXPECT_EQ(genesis->params.fees, exec::FeeSchedule{});
  EXPECT_EQ(genesis->params.limits, exec::PulseLimits{});
  ASSERT_EQ(devnet->key_files.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(devnet->key_files[i], dir / ("net/keys/account-000" + std::to_string(i) + ".json"));
    EXPECT_EQ(file_mode(devnet->key_files[i]), 0600u);
    const auto key = read_key_file(devnet->key_files[i]);
    ASSERT_TRUE(key) << key.error().reason;
    EXPECT_EQ(key->public_bundle(), genesis->accounts[i].keys);
    EXPECT_EQ(genesis->accounts[i].coins, (std::vector<Amount>{500, 500}));
  }

  // A second run may not replace the genesis file, nor (even when it may)
  // a key file; either way it writes nothing.
  const auto again = write_devnet(spec);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, base::Errc::invalid_argument);
  EXPECT_NE(again.error().reason.find("already exists"), std::string::npos);
  spec.overwrite = true;
  const auto keys_taken = write_devnet(spec);
  ASSERT_FALSE(keys_taken);
  EXPECT_NE(keys_taken.error().reason.find("account-0000.json' already exists"), std::string::npos)
      << keys_taken.error().reason;
  EXPECT_EQ(read_genesis_file(spec.genesis_path).value(), devnet->genesis);

  spec.key_dir = dir / "other-keys";
  const auto replaced = write_devnet(spec);
  ASSERT_TRUE(replaced) << replaced.error().reason;
  EXPECT_EQ(read_genesis_file(spec.genesis_path).value(), replaced->genesis);
  EXPECT_NE(replaced->genesis, devnet->genesis);  // fresh seeds
  EXPECT_EQ(replaced->key_files[0], dir / "other-keys/account-0000.json");
}

TEST(Devnet, DevnetOptionsAreChecked) {
  TempDir dir;
  DevnetSpec spec;
  spec.genesis_path = dir / "genesis.json";
  spec.accounts = 0;
  EXPECT_FALSE(write_devnet(spec));
  spec.accounts = 2;
  spec.amount = 0;
  EXPECT_FALSE(write_devnet(spec));
  spec.amount = 18'446'744'073'709'551'615u;
  const auto overflow = write_devnet(spec);
  ASSERT_FALSE(overflow);
  EXPECT_NE(overflow.error().reason.find("2^64 - 1"), std::string::npos);
  EXPECT_FALSE(fs::exists(spec.genesis_path));
  EXPECT_FALSE(fs::exists(dir / "keys"));
  EXPECT_EQ(key_file_name(7), "account-0007.json");
  EXPECT_EQ(key_file_name(12345), "account-12345.json");
}

// The attack: `sion genesis --key-dir` on a symbolic link to a directory
// everyone may write to wrote the key files there. Now refused, nothing written.
TEST(Devnet, AnUnsafeKeyDirectoryIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string open_dir = dir / "shared";
  fs::create_directory(open_dir);
  fs::permissions(open_dir, fs::perms::all);
  fs::create_directory_symlink(open_dir, dir / "keys");
  DevnetSpec spec;
  spec.profile = crypto::Profile::classic;
  spec.genesis_path = dir / "genesis.json";
  const auto devnet = write_devnet(spec);  // keys default to dir/keys, the link
  ASSERT_FALSE(devnet);
  EXPECT_EQ(devnet.error().code, base::Errc::invalid_argument);
  EXPECT_NE(devnet.error().reason.find("a symbolic link"), std::string::npos) << devnet.error().reason;
  spec.key_dir = open_dir;
  const auto open = write_devnet(spec);
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().reason.find("(mode 0777)"), std::string::npos) << open.error().reason;
  EXPECT_TRUE(fs::is_empty(open_dir));
  EXPECT_FALSE(fs::exists(spec.genesis_path));
}

// devnet_genesis_bytes is the size of the file written, exactly.
TEST(Devnet, PredictsTheGenesisFileSizeExactly) {
  TempDir dir;
  int n = 0;
  for (const auto& [accounts, coins, amount, profile] :
       std::vector<std::tuple<std::size_t, std::size_t, Amount, crypto::Profile>>{
           {1, 0, 1, crypto::Profile::classic},
           {3, 0, 1, crypto::Profile::classic},
           {1, 1, 7, crypto::Profile::classic},
           {4, 3, 123456789, crypto::Profile::hybrid},
           {2, 5, 18'446'744'073'709'551'615u / 10, crypto::Profile::classic}}) {
    DevnetSpec spec;
    spec.accounts = accounts;
    spec.coins_per_account = coins;
    spec.amount = amount;
    spec.profile = profile;
    spec.chain_id = 1000 + static_cast<std::uint64_t>(n);
    std::string name = std::to_string(n++);  // appended: "g" + ... trips g++ 12's -Wrestrict (GCC bug 105329)
    name += "/genesis.json";
    spec.genesis_path = dir / name;
    const auto predicted = devnet_genesis_bytes(spec);
    ASSERT_TRUE(predicted) << predicted.error().reason;
    ASSERT_TRUE(write_devnet(spec));
    EXPECT_EQ(fs::file_size(spec.genesis_path), *predicted) << accounts << " x " << coins;
  }
}

// The attack: `sion genesis` wrote genesis files larger than a node reads.
// The size is checked before keys are made, at the reader's limit exactly.
TEST(Devnet, RefusesAGenesisFileLargerThanANodeReads) {
  TempDir dir;
  DevnetSpec spec;
  spec.accounts = 2;
  spec.coins_per_account = 10;
  spec.profile = crypto::Profile::classic;
  spec.genesis_path = dir / "genesis.json";
  const std::uint64_t bytes = devnet_genesis_bytes(spec).value();

  spec.max_genesis_bytes = bytes - 1;
  const auto over = write_devnet(spec);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code, base::Errc::invalid_argument);
  EXPECT_EQ(over.error().reason, "the genesis file would be " + std::to_string(bytes) + " bytes, over the " +
                                     std::to_string(bytes - 1) + " a node reads; give fewer accounts or coins");
  EXPECT_FALSE(fs::exists(dir / "keys"));
  EXPECT_FALSE(fs::exists(spec.genesis_path));

  spec.max_genesis_bytes = bytes;
  ASSERT_TRUE(write_devnet(spec));
  EXPECT_EQ(fs::file_size(spec.genesis_path), bytes);

  // At the real limit: 100 million coins make a file of about 2 GB, refused
  // at once (before it made keys and wrote a file no node would read).
  DevnetSpec huge;
  huge.coins_per_account = 100'000'000;
  huge.genesis_path = dir / "huge/genesis.json";
  const auto refused = write_devnet(huge);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().reason.find("over the 1073741824 a node reads"), std::string::npos)
      << refused.error().reason;
  EXPECT_FALSE(fs::exists(dir / "huge"));
}

}  // namespace
}  // namespace sion::wallet
