#include "sion/state/kv_store.hpp"
#include "sion/base/testing/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace sion::state {
namespace {

base::Bytes bytes(std::string_view text) { return base::Bytes(text.begin(), text.end()); }

std::vector<std::string> keys_with_prefix(const KvStore& store, Column column, std::string_view prefix) {
  std::vector<std::string> keys;
  const auto status = store.scan_prefix(column, base::as_bytes(prefix), [&](base::ByteView key, base::ByteView) {
    keys.emplace_back(key.begin(), key.end());
    return true;
  });
  EXPECT_TRUE(status.ok());
  return keys;
}

TEST(KvStore, WritesReadBackAndSurviveReopen) {
  base::testing::TempDir dir;
  {
    auto store = KvStore::open(dir.str());
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    KvBatch batch;
    batch.put(Column::objects, bytes("a"), bytes("1"));
    batch.put(Column::nodes, bytes("a"), bytes("node"));
    EXPECT_EQ(batch.count(), 2u);
    ASSERT_TRUE((*store)->write(std::move(batch)).ok());
    auto value = (*store)->get(Column::objects, bytes("a"));
    ASSERT_TRUE(value.ok());
    ASSERT_TRUE(value->has_value());
    EXPECT_EQ(**value, bytes("1"));
    // Columns are separate key spaces.
    auto other = (*store)->get(Column::nodes, bytes("a"));
    ASSERT_TRUE(other.ok() && other->has_value());
    EXPECT_EQ(**other, bytes("node"));
    auto missing = (*store)->get(Column::roots, bytes("a"));
    ASSERT_TRUE(missing.ok());
    EXPECT_FALSE(missing->has_value());
  }
  auto reopened = KvStore::open(dir.str());
  ASSERT_TRUE(reopened.ok()) << reopened.error().to_string();
  auto value = (*reopened)->get(Column::objects, bytes("a"));
  ASSERT_TRUE(value.ok() && value->has_value());
  EXPECT_EQ(**value, bytes("1"));
}

// A column written once keeps the write-ahead log alive until it is
// flushed; the store caps the log so that recovery replays little. Without
// the cap, 256 MB written to another column would all stay in the log.
TEST(KvStore, TheWriteAheadLogStaysBoundedWhenAColumnIsRarelyWritten) {
  base::testing::TempDir dir;
  KvOptions options;
  options.sync_writes = false;
  auto store = KvStore::open(dir.str(), options);
  ASSERT_TRUE(store.ok()) << store.error().to_string();
  KvBatch first;
  first.put(Column::roots, bytes("r"), bytes("written once"));
  ASSERT_TRUE((*store)->write(std::move(first)).ok());
  const base::Bytes value(1u << 20, 0x5a);
  for (std::uint32_t i = 0; i < 256; ++i) {
    KvBatch batch;
    const std::string key = std::to_string(i);
    batch.put(Column::objects, bytes(key), value);
    ASSERT_TRUE((*store)->write(std::move(batch)).ok());
  }
  std::uintmax_t wal_bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().extension() == ".log") wal_bytes += entry.file_size();
  }
  EXPECT_LT(wal_bytes, std::uintmax_t{100} << 20);
  auto kept = (*store)->get(Column::roots, bytes("r"));
  ASSERT_TRUE(kept.ok() && kept->has_value());
}

TEST(KvStore, EraseAndPrefixScanInByteOrder) {
  base::testing::TempDir dir;
  auto store = KvStore::open(dir.str());
  ASSERT_TRUE(store.ok());
  KvBatch batch;
  const std::vector<std::string> keys = {"p\x01", "p\xff", std::string("p\x00", 2), "q", "o", "p\xff\xff", "p"};
  for (const std::string& key : keys) batch.put(Column::stale, base::as_bytes(key), bytes("v"));
  ASSERT_TRUE((*store)->write(std::move(batch)).ok());
  EXPECT_EQ(keys_with_prefix(**store, Column::stale, "p"),
            (std::vector<std::string>{"p", std::string("p\x00", 2), "p\x01", "p\xff", "p\xff\xff"}));
  EXPECT_EQ(keys_with_prefix(**store, Column::stale, "p\xff"), (std::vector<std::string>{"p\xff", "p\xff\xff"}));

  KvBatch erase;
  erase.erase(Column::stale, bytes("p\x01"));
  ASSERT_TRUE((*store)->write(std::move(erase)).ok());
  EXPECT_EQ(keys_with_prefix(**store, Column::stale, "p").size(), 4u);
}

TEST(KvStore, ASecondOpenOfTheSameFolderIsAnIoError) {
  base::testing::TempDir dir;
  auto first = KvStore::open(dir.str());
  ASSERT_TRUE(first.ok());
  auto second = KvStore::open(dir.str());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, base::Errc::io_error);
  EXPECT_NE(second.error().reason.find(dir.str()), std::string::npos) << second.error().reason;
}

TEST(KvStore, MissingFolderWithoutCreateIsAnError) {
  base::testing::TempDir dir;
  KvOptions options;
  options.create_if_missing = false;
  auto store = KvStore::open((dir.path() / "absent").string(), options);
  ASSERT_FALSE(store.ok());
  EXPECT_FALSE(store.error().is_invalid_input());
}

// Every file of a folder with its size and modification time.
std::vector<std::string> listing(const std::filesystem::path& directory) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    const auto size = entry.is_regular_file() ? entry.file_size() : 0;
    files.push_back(entry.path().string() + " " + std::to_string(size) + " " +
                    std::to_string(entry.last_write_time().time_since_epoch().count()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(KvStore, ReadOnlyReadsAndChangesNothing) {
  base::testing::TempDir dir;
  {
    auto store = KvStore::open(dir.str());
    ASSERT_TRUE(store.ok());
    KvBatch batch;
    batch.put(Column::objects, bytes("a"), bytes("1"));
    ASSERT_TRUE((*store)->write(std::move(batch)).ok());
  }
  const auto before = listing(dir.path());
  {
    KvOptions options;
    options.read_only = true;
    auto store = KvStore::open(dir.str(), options);
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    EXPECT_TRUE((*store)->read_only());
    auto value = (*store)->get(Column::objects, bytes("a"));
    ASSERT_TRUE(value.ok() && value->has_value());
    EXPECT_EQ(**value, bytes("1"));
    KvBatch batch;
    batch.put(Column::objects, bytes("b"), bytes("2"));
    auto written = (*store)->write(std::move(batch));
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().code, base::Errc::invalid_argument);
    EXPECT_EQ(listing(dir.path()), before);
    // It holds the lock, as a writer would: no writer opens it meanwhile
    // (though the writer's failed open rotates RocksDB's info LOG first).
    auto writer = KvStore::open(dir.str());
    EXPECT_FALSE(writer.ok());
  }
  EXPECT_TRUE(KvStore::open(dir.str()).ok());
}

TEST(KvStore, ReadOnlyIsRefusedWhileAWriterHasTheStore) {
  base::testing::TempDir dir;
  auto writer = KvStore::open(dir.str());
  ASSERT_TRUE(writer.ok());
  KvOptions options;
  options.read_only = true;
  auto reader = KvStore::open(dir.str(), options);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().code, base::Errc::io_error);
  EXPECT_NE(reader.error().reason.find("in use by another process"), std::string::npos) << reader.error().reason;
}

TEST(KvStore, ReadOnlyOfNoStoreIsNotFoundAndCreatesNothing) {
  base::testing::TempDir dir;
  KvOptions options;
  options.read_only = true;
  auto store = KvStore::open(dir.str(), options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, base::Errc::not_found);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace sion::state
