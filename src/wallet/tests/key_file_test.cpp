#include "sion/wallet/key_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/testing/fifo.hpp"
#include "sion/base/testing/file_mode.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::wallet {
namespace {

namespace fs = std::filesystem;
using base::testing::file_mode;
using base::testing::TempDir;
using exec::account_id;

crypto::SigningBundle test_bundle(std::uint8_t seed_byte, crypto::Profile profile = crypto::Profile::dual) {
  crypto::KeySeed seed{};
  seed.fill(seed_byte);
  return crypto::SigningBundle::from_seed(profile, seed).value();
}

void write_text(const std::string& path, const std::string& text, fs::perms perms) {
  std::ofstream(path, std::ios::binary) << text;
  fs::permissions(path, perms);
}

TEST(KeyFile, KeyFilesAreOwnerOnlyAndReadBack) {
  TempDir dir;
  crypto::KeySeed seed{};
  seed.fill(9);
  const std::string path = dir / "account-0000.json";
  const auto written = write_key_file(path, crypto::Profile::dual, seed);
  ASSERT_TRUE(written) << written.error().reason;
  EXPECT_EQ(file_mode(path), 0600u);
  const auto read = read_key_file(path);
  ASSERT_TRUE(read) << read.error().reason;
  EXPECT_EQ(account_id(read->public_bundle()), account_id(written->public_bundle()));
  EXPECT_EQ(read->public_bundle(), test_bundle(9).public_bundle());

  // Never over an existing file.
  crypto::KeySeed other{};
  other.fill(10);
  const auto again = write_key_file(path, crypto::Profile::dual, other);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().reason.find("already exists"), std::string::npos);
  EXPECT_EQ(account_id(read_key_file(path).value().public_bundle()), account_id(written->public_bundle()));

  // Readable by others: refused, with the reason.
  fs::permissions(path,
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  const auto open = read_key_file(path);
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().reason.find("mode 0644"), std::string::npos) << open.error().reason;
  EXPECT_NE(open.error().reason.find("chmod 600"), std::string::npos) << open.error().reason;
}

TEST(KeyFile, MalformedKeyFilesAreRefused) {
  TempDir dir;
  const auto owner_only = fs::perms::owner_read | fs::perms::owner_write;
  const std::string seed(64, '1');
  const std::string account = base::to_hex(account_id(test_bundle(0x11).public_bundle()));
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"not json", "not JSON: "},
      {R"({"profile": "dual", "seed": ")" + seed + R"("})", "$: missing field \"account\""},
      {R"({"profile": "dual", "seed": ")" + seed + R"(", "account": ")" + account + R"(", "x": 1})",
       "$: unknown field \"x\""},
      {R"({"profile": "nope", "seed": ")" + seed + R"(", "account": ")" + account + R"("})",
       "$.profile: unknown profile \"nope\""},
      {R"({"profile": "dual", "seed": "1111", "account": ")" + account + R"("})",
       "$.seed: expected 64 hex digits, got 4"},
      {R"({"profile": "dual", "seed": ")" + seed + R"(", "account": ")" + std::string(64, '0') + R"("})",
       "$.account: does not match the seed, which gives account " + account},
      {R"({"profile": "hybrid", "seed": ")" + seed + R"(", "account": ")" + account + R"("})",
       "$.account: does not match the seed"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string path = dir / ("key" + std::to_string(n++) + ".json");
    write_text(path, c.text, owner_only);
    const auto read = read_key_file(path);
    ASSERT_FALSE(read) << c.text;
    const std::string prefix = "key file '" + path + "': ";
    EXPECT_EQ(read.error().reason.rfind(prefix + c.message, 0), 0u)
        << "got: " << read.error().reason << "\nexpected: " << prefix << c.message;
  }
  // And the well-formed one these were made from is accepted.
  const std::string good = dir / "good.json";
  write_text(good, R"({"profile": "dual", "seed": ")" + seed + R"(", "account": ")" + account + R"("})", owner_only);
  ASSERT_TRUE(read_key_file(good));

  const auto missing = read_key_file(dir / "missing.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, base::Errc::not_found);
  write_text(dir / "big.json", std::string(5000, ' '), owner_only);
  EXPECT_FALSE(read_key_file(dir / "big.json"));
}

TEST(KeyFile, TextIsCheckedAsTheFileIs) {
  const auto bad = parse_key_file("{\"profile\": \"dual\"}", "key file 'x'");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().reason.rfind("key file 'x': ", 0), 0u) << bad.error().reason;
  EXPECT_FALSE(parse_key_file("not json", "t").ok());
}

TEST(KeyFile, RepeatedFieldsAreRefused) {
  const auto bad = parse_key_file(R"({"profile": "dual", "profile": "hybrid"})", "key file 'x'");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().reason, "key file 'x': $: duplicate field \"profile\"");
}

// The attack: a FIFO named as a key file made the reader wait forever.
TEST(KeyFile, AFifoIsRefusedNotWaitedOn) {
  TempDir dir;
  const std::string fifo = dir / "account-0000.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto blocked_or_read = base::testing::read_unless_blocked(fifo, [&] { return read_key_file(fifo); });
  ASSERT_TRUE(blocked_or_read.has_value()) << "read_key_file blocked on a FIFO";
  const auto& read = *blocked_or_read;
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().reason, "key file '" + fifo + "': not a regular file (a FIFO)");
}

TEST(KeyFile, ASymbolicLinkIsRefused) {
  TempDir dir;
  crypto::KeySeed seed{};
  seed.fill(9);
  ASSERT_TRUE(write_key_file(dir / "real.json", crypto::Profile::classic, seed));
  fs::create_symlink(dir / "real.json", dir / "link.json");
  const auto read = read_key_file(dir / "link.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().reason, "key file '" + (dir / "link.json") + "': a symbolic link; name the file itself");
}

// The attack: an existing key directory was used as it was, even a symbolic
// link to a directory everyone may write to (where another user can read,
// replace or pre-create key files). Both are refused before anything is
// written.
TEST(KeyDirectory, ASymlinkOrAnOpenDirectoryIsRefused) {
  TempDir dir;
  const std::string open_dir = dir / "shared";
  fs::create_directory(open_dir);
  fs::permissions(open_dir, fs::perms::all);  // 0777, like /tmp without the sticky bit
  fs::create_directory_symlink(open_dir, dir / "keys");

  const auto through_link = open_key_directory(dir / "keys", false);
  ASSERT_FALSE(through_link);
  EXPECT_EQ(through_link.error().code, base::Errc::invalid_argument);
  EXPECT_EQ(through_link.error().reason,
            "key directory '" + (dir / "keys") + "': a symbolic link; name the directory itself");
  EXPECT_FALSE(open_key_directory(dir / "keys", true));  // creating changes nothing

  const auto open = open_key_directory(open_dir, false);
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().reason, "key directory '" + open_dir +
                                     "': group or others may write to it (mode 0777); a key directory must be "
                                     "writable by its owner only (chmod 700)");
  crypto::KeySeed seed{};
  seed.fill(1);
  EXPECT_FALSE(write_key_file(dir / "keys/account-0000.json", crypto::Profile::classic, seed));
  EXPECT_FALSE(write_key_file(open_dir + "/account-0000.json", crypto::Profile::classic, seed));
  EXPECT_TRUE(fs::is_empty(open_dir));

  fs::permissions(open_dir, fs::perms::owner_all);
  EXPECT_TRUE(open_key_directory(open_dir, false));
  const auto made = open_key_directory(dir / "new/keys", true);
  ASSERT_TRUE(made) << made.error().reason;
  EXPECT_EQ(file_mode(dir / "new/keys"), 0700u);
  EXPECT_EQ(open_key_directory(dir / "none", false).error().code, base::Errc::not_found);
  std::ofstream(dir / "file") << "x";
  EXPECT_EQ(open_key_directory(dir / "file", false).error().reason,
            "key directory '" + (dir / "file") + "': not a directory");
}

}  // namespace
}  // namespace sion::wallet
