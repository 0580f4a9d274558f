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
std::string_view column_name(Column column) noexcept;

struct KvOptions {
  bool create_if_missing = true;
  // fsync the write-ahead log on every write batch: a batch reported written
  // survives power loss, not only a killed process.
  bool sync_writes = true;
  std::size_t block_cache_bytes = 64u << 20;
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
  std::size_t count() const noexcept;

 private:
  friend class KvStore;
  struct Ops;
  std::unique_ptr<Ops> ops_;
};

class KvStore {
 public:
  // Opens (or creates) the store in `directory`. Errors are io_error (the
  // folder, a lock held by another process) or corrupt_store.
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

 private:
  struct Impl;
  KvStore(std::unique_ptr<Impl> impl, std::string directory);
  std::unique_ptr<Impl> impl_;
  std::string directory_;
};

}  // namespace sion::state
