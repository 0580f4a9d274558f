#pragma once
// The one place Sion touches RocksDB: a key-value store with a fixed set of
// columns and atomic, durable write batches. Higher code (the versioned tree
// nodes, the object store) sees bytes and Results, never rocksdb types, so a
// RocksDB error becomes a base::Error that names the column, the operation
// and RocksDB's own message.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::state {

// RocksDB column families. Values are indices into the store's handle table;
// names (column_name) are what RocksDB records on disk.
enum class Column : std::uint8_t {
  meta = 0,     // singletons: format version, latest and oldest versions
  nodes = 1,    // state-tree nodes by node key
  stale = 2,    // (version made stale, node key): what pruning deletes
  objects = 3,  // (object id, version) -> object record
  roots = 4,    // version -> state root
};
inline constexpr std::size_t kColumnCount = 5;
// The name of one of the columns above ("extra" for a caller's column:
// KvStore::column_name knows its name).
std::string_view column_name(Column column) noexcept;

// A caller's own column: the index-th of KvOptions::extra_columns. Higher
// layers keep their records there (the node's chain) so that they can be
// written in the same batch as the state (ObjectStore::apply).
constexpr Column extra_column(std::size_t index) noexcept { return static_cast<Column>(kColumnCount + index); }
constexpr bool is_extra_column(Column column) noexcept { return static_cast<std::size_t>(column) >= kColumnCount; }
inline constexpr std::size_t kMaxExtraColumns = 32;

struct KvOptions {
  bool create_if_missing = true;
  // Opens an existing store for reading only (rocksdb::DB::OpenForReadOnly,
  // which replays the write-ahead log in memory): nothing on disk changes,
  // write() fails (invalid_argument), create_if_missing is ignored and a
  // folder holding no store is not_found. The store's lock file is taken
  // first and held while open, as a writer's open takes it: a store a running
  // process has open is refused (io_error, "... in use by another process"),
  // and no writer can open it meanwhile (a read-only instance beside a writer
  // reads undefined data, RocksDB's db.h says).
  bool read_only = false;
  // fsync the write-ahead log on every write batch: a batch reported written
  // survives power loss, not only a killed process.
  bool sync_writes = true;
  std::size_t block_cache_bytes = 64u << 20;
  // Names of the caller's columns (extra_column(i) is the i-th), distinct,
  // not those of the store's own columns, at most kMaxExtraColumns. Created
  // when missing; a store opened without a column it has on disk fails.
  std::vector<std::string> extra_columns = {};
  // Test hook (fault injection): called before every batch is written; an
  // error it returns is returned by write() as if RocksDB had failed, and
  // nothing is written. Empty in production.
  std::function<base::Status()> write_fault = {};
};

// Puts and deletes applied together or not at all (rocksdb::WriteBatch).
class KvBatch {
 public:
  KvBatch();
  ~KvBatch();
  KvBatch(KvBatch&&) noexcept;
  KvBatch& operator=(KvBatch&&) noexcept;

  void put(Column column, base::ByteView key, base::ByteView value);
  void erase(Column column, base::ByteView key);
  // Moves every operation of `other` to the end of this batch.
  void append(KvBatch&& other);
  std::size_t count() const noexcept;
  // Whether every operation is on a caller's column (is_extra_column).
  bool only_extra_columns() const noexcept;

 private:
  friend class KvStore;
  struct Ops;
  std::unique_ptr<Ops> ops_;
};

class KvStore {
 public:
  // Opens (or creates) the store in `directory`. Errors are io_error (the
  // folder, a lock held by another process) or corrupt_store; with
  // read_only, not_found for a folder without a store.
  static base::Result<std::unique_ptr<KvStore>> open(const std::string& directory, const KvOptions& options = {});
  ~KvStore();
  KvStore(const KvStore&) = delete;
  KvStore& operator=(const KvStore&) = delete;

  base::Result<std::optional<base::Bytes>> get(Column column, base::ByteView key) const;
  base::Status write(KvBatch&& batch);

  // Visits keys with the given prefix in ascending byte order until `visit`
  // returns false.
  using Visitor = std::function<bool(base::ByteView key, base::ByteView value)>;
  base::Status scan_prefix(Column column, base::ByteView prefix, const Visitor& visit) const;
  // Visits keys in [first, last) in ascending byte order until `visit`
  // returns false.
  base::Status scan_range(Column column, base::ByteView first, base::ByteView last, const Visitor& visit) const;

  const std::string& directory() const noexcept { return directory_; }
  bool read_only() const noexcept;
  // The name RocksDB records for a column (a caller's own name for extras).
  std::string_view column_name(Column column) const noexcept;
  // Whether the store opened this column.
  bool has_column(Column column) const noexcept;

 private:
  struct Impl;
  KvStore(std::unique_ptr<Impl> impl, std::string directory);
  std::unique_ptr<Impl> impl_;
  std::string directory_;
};

}  // namespace sion::state
