#include "sion/base/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "sion/base/testing/fifo.hpp"
#include "sion/base/testing/temp_dir.hpp"

namespace sion::base {
namespace {

using testing::TempDir;

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string get(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return static_cast<unsigned>(st.st_mode & 07777);
}

TEST(ReadFile, ReadsARegularFileUpToTheCap) {
  TempDir dir;
  put(dir / "f", "hello");
  EXPECT_EQ(*read_file(dir / "f", {.what = "test file", .max_bytes = 5}), "hello");
  auto over = read_file(dir / "f", {.what = "test file", .max_bytes = 4});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, Errc::length_over_max);
  EXPECT_EQ(over.error().reason, "test file '" + (dir / "f") + "': larger than 4 bytes");
  auto missing = read_file(dir / "none", {.what = "test file", .max_bytes = 4});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::not_found);
}

// The attack: a FIFO named where a genesis or key file is expected made the
// reader block forever in open(2) (no writer ever comes). Now it is refused at
// once. The read runs on another thread so that a regression fails the test
// after a timeout instead of hanging the suite.
TEST(ReadFile, RefusesAFifoWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir / "genesis.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read =
      testing::read_unless_blocked(fifo, [&] { return read_file(fifo, {.what = "genesis file", .max_bytes = 100}); });
  ASSERT_TRUE(read.has_value()) << "read_file blocked on a FIFO";
  auto& result = *read;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, Errc::invalid_argument);
  EXPECT_EQ(result.error().reason, "genesis file '" + fifo + "': not a regular file (a FIFO)");
}

TEST(ReadFile, RefusesDirectoriesAndOptionallySymlinks) {
  TempDir dir;
  auto directory = read_file(dir.str(), {.max_bytes = 100});
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().reason, "file '" + dir.str() + "': not a regular file (a directory)");

  put(dir / "target", "x");
  std::filesystem::create_symlink(dir / "target", dir / "link");
  EXPECT_EQ(*read_file(dir / "link", {.max_bytes = 100}), "x");
  auto refused = read_file(dir / "link", {.what = "key file", .max_bytes = 100, .follow_symlinks = false});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::invalid_argument);
  EXPECT_EQ(refused.error().reason, "key file '" + (dir / "link") + "': a symbolic link; name the file itself");
}

TEST(ReadFile, OwnerOnlyRefusesOpenPermissions) {
  TempDir dir;
  put(dir / "k", "secret");
  ASSERT_EQ(::chmod((dir / "k").c_str(), 0640), 0);
  auto open = read_file(dir / "k", {.what = "key file", .max_bytes = 100, .owner_only = true});
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.error().reason.find("(mode 0640)"), std::string::npos) << open.error().reason;
  ASSERT_EQ(::chmod((dir / "k").c_str(), 0600), 0);
  EXPECT_EQ(*read_file(dir / "k", {.what = "key file", .max_bytes = 100, .owner_only = true}), "secret");
}

TEST(WriteNewFile, CreatesWithModeAndNeverOverwrites) {
  TempDir dir;
  const std::string path = dir / "key.json";
  ASSERT_TRUE(write_new_file(path, "one", {.what = "key file", .mode = 0600, .exact_mode = true}).ok());
  EXPECT_EQ(get(path), "one");
  EXPECT_EQ(mode_of(path), 0600u);
  auto again = write_new_file(path, "two", {.what = "key file"});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, Errc::invalid_argument);
  EXPECT_EQ(again.error().reason, "key file '" + path + "' already exists");
  EXPECT_EQ(get(path), "one");
  // A dangling symbolic link is not followed to create its target.
  std::filesystem::create_symlink(dir / "elsewhere", dir / "dangling");
  EXPECT_FALSE(write_new_file(dir / "dangling", "x", {}).ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "elsewhere"));
  auto no_dir = write_new_file(dir / "no/such/f", "x", {});
  ASSERT_FALSE(no_dir.ok());
  EXPECT_EQ(no_dir.error().code, Errc::io_error);
  EXPECT_EQ(no_dir.error().reason.rfind("cannot write file '" + (dir / "no/such/f") + "': ", 0), 0u)
      << no_dir.error().reason;
}

TEST(ReplaceFile, ReplacesAtomicallyAndLeavesNoTemporary) {
  TempDir dir;
  const std::string path = dir / "genesis.json";
  ASSERT_TRUE(replace_file(path, "first", {.mode = 0644}).ok());
  EXPECT_EQ(get(path), "first");
  ASSERT_TRUE(check_replaceable(path, {}).ok());
  ASSERT_TRUE(replace_file(path, "second", {.mode = 0644}).ok());
  EXPECT_EQ(get(path), "second");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary left

  std::filesystem::create_directory(dir / "d");
  for (const Status& status : {replace_file(dir / "d", "x", {.what = "genesis file"}),
                               check_replaceable(dir / "d", {.what = "genesis file"})}) {
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, Errc::io_error);
    EXPECT_EQ(status.error().reason, "cannot write genesis file '" + (dir / "d") + "': Is a directory");
  }
  EXPECT_EQ(check_replaceable(dir / "no/such/bench.json", {}).error().code, Errc::io_error);
  EXPECT_EQ(replace_file(dir / "", "x", {}).error().reason, "cannot write file '" + (dir / "") + "': not a file name");
}

}  // namespace
}  // namespace sion::base

namespace sion::base {
namespace {

TEST(NumberedFiles, NameParseAndList) {
  EXPECT_EQ(numbered_file_name(42, ".log"), "00000042.log");
  EXPECT_EQ(parse_numbered_file_name("00000042.log", ".log"), 42u);
  EXPECT_EQ(parse_numbered_file_name("99999999.log", ".log"), 99999999u);
  EXPECT_FALSE(parse_numbered_file_name("0000042.log", ".log"));
  EXPECT_FALSE(parse_numbered_file_name("00000042.blob", ".log"));
  EXPECT_FALSE(parse_numbered_file_name("0000004x.log", ".log"));
  EXPECT_FALSE(parse_numbered_file_name("00000042.log.tmp", ".log"));
  EXPECT_EQ(numbered_file_name(123456789, ".log"), "123456789.log");  // past 10^8: longer, never cut

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sion-numbered-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* name : {"00000003.log", "00000001.log", "00000002.blob", "notes.txt"}) std::ofstream(dir / name);
  EXPECT_EQ(list_numbered_files(dir.string(), ".log", "test log").value(), (std::vector<std::uint32_t>{1, 3}));
  std::filesystem::remove_all(dir);
  const auto missing = list_numbered_files(dir.string(), ".log", "test log");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::io_error);
  EXPECT_NE(missing.error().reason.find("cannot list test log"), std::string::npos) << missing.error().reason;
}

}  // namespace
}  // namespace sion::base
