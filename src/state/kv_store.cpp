#include "sion/state/kv_store.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <string>
#include <utility>

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

namespace sion::state {
namespace {

constexpr std::array<std::string_view, kColumnCount> kColumnNames = {"meta", "nodes", "stale", "objects", "roots"};

// At most this much write-ahead log is kept; at most this much is replayed
// on recovery (see open()).
constexpr std::uint64_t kMaxWalBytes = 32ull << 20;
// Each column family's memtable (RocksDB's default).
constexpr std::size_t kMemtableBytes = 64u << 20;

rocksdb::Slice slice(base::ByteView bytes) noexcept {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

base::ByteView view(const rocksdb::Slice& slice) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(slice.data()), slice.size()};
}

// RocksDB's corruption statuses blame the bytes on disk; everything else
// (I/O, locks, space) is this machine failing.
base::Failure rocks_failure(const rocksdb::Status& status, std::string_view what) {
  const base::Errc code = status.IsCorruption() ? base::Errc::corrupt_store : base::Errc::io_error;
  return base::fail(code, std::string(what) + ": " + status.ToString());
}

// Takes the store's lock file as a writer's open does (RocksDB's LOCK, an
// fcntl lock): while a process has the store open for writing, this fails.
base::Result<rocksdb::FileLock*> lock_store(const std::string& directory) {
  rocksdb::Env* env = rocksdb::Env::Default();
  if (!env->FileExists(directory + "/CURRENT").ok()) {
    return base::fail(base::Errc::not_found, "no store in " + directory);
  }
  rocksdb::FileLock* lock = nullptr;
  const rocksdb::Status status = env->LockFile(directory + "/LOCK", &lock);
  if (!status.ok()) {
    return base::fail(base::Errc::io_error,
                      "the store in " + directory +
                          " is in use by another process (a running node?); stop it first: " + status.ToString());
  }
  return lock;
}

}  // namespace

std::string_view column_name(Column column) noexcept {
  const auto index = static_cast<std::size_t>(column);
  return index < kColumnCount ? kColumnNames[index] : std::string_view("extra");
}

// ---- KvBatch -----------------------------------------------------------------

struct KvBatch::Ops {
  struct Op {
    Column column;
    bool erase;
    base::Bytes key;
    base::Bytes value;
  };
  std::vector<Op> ops;
};

KvBatch::KvBatch() : ops_(std::make_unique<Ops>()) {}
KvBatch::~KvBatch() = default;
KvBatch::KvBatch(KvBatch&&) noexcept = default;
KvBatch& KvBatch::operator=(KvBatch&&) noexcept = default;

void KvBatch::put(Column column, base::ByteView key, base::ByteView value) {
  ops_->ops.push_back({column, false, base::Bytes(key.begin(), key.end()), base::Bytes(value.begin(), value.end())});
}

void KvBatch::erase(Column column, base::ByteView key) {
  ops_->ops.push_back({column, true, base::Bytes(key.begin(), key.end()), {}});
}

void KvBatch::append(KvBatch&& other) {
  auto& ops = ops_->ops;
  ops.insert(ops.end(), std::make_move_iterator(other.ops_->ops.begin()),
             std::make_move_iterator(other.ops_->ops.end()));
  other.ops_->ops.clear();
}

std::size_t KvBatch::count() const noexcept { return ops_->ops.size(); }

bool KvBatch::only_extra_columns() const noexcept {
  return std::all_of(ops_->ops.begin(), ops_->ops.end(), [](const Ops::Op& op) { return is_extra_column(op.column); });
}

// ---- KvStore -----------------------------------------------------------------

struct KvStore::Impl {
  rocksdb::FileLock* lock = nullptr;  // read-only: the lock file, held while open
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;  // the store's columns, then the caller's
  std::vector<std::string> names;
  rocksdb::WriteOptions write_options;
  std::function<base::Status()> write_fault;
  bool read_only = false;

  rocksdb::ColumnFamilyHandle* handle(Column column) const noexcept {
    return handles[static_cast<std::size_t>(column)];
  }
  std::string column_name(Column column) const { return names[static_cast<std::size_t>(column)]; }

  ~Impl() {
    for (auto* handle : handles) {
      if (handle != nullptr) db->DestroyColumnFamilyHandle(handle);
    }
    db.reset();
    if (lock != nullptr) rocksdb::Env::Default()->UnlockFile(lock).PermitUncheckedError();
  }
};

KvStore::KvStore(std::unique_ptr<Impl> impl, std::string directory)
    : impl_(std::move(impl)), directory_(std::move(directory)) {}

KvStore::~KvStore() = default;

base::Result<std::unique_ptr<KvStore>> KvStore::open(const std::string& directory, const KvOptions& options) {
  std::vector<std::string> names(kColumnNames.begin(), kColumnNames.end());
  if (options.extra_columns.size() > kMaxExtraColumns) {
    return base::fail(base::Errc::invalid_argument, "more than " + std::to_string(kMaxExtraColumns) + " extra columns");
  }
  for (const std::string& name : options.extra_columns) {
    if (name.empty() || name == rocksdb::kDefaultColumnFamilyName ||
        std::find(names.begin(), names.end(), name) != names.end()) {
      return base::fail(base::Errc::invalid_argument, "extra column name \"" + name + "\" is empty or taken");
    }
    names.push_back(name);
  }
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = options.create_if_missing;
  // A torn last record in the write-ahead log is a write that never
  // completed: drop it and open at the last complete batch.
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  db_options.paranoid_checks = true;
  // Recovery after a crash replays the write-ahead log since the oldest
  // unflushed memtable, and a column family written rarely keeps every log
  // since its last flush alive (RocksDB's default bound is four times all
  // memtables: gigabytes here). Capping the log forces those flushes and
  // bounds the replay, and so the restart time after SIGKILL under load
  // (docs/state.md, "One write batch per version").
  db_options.max_total_wal_size = kMaxWalBytes;

  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  rocksdb::ColumnFamilyOptions column_options;
  column_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  column_options.write_buffer_size = kMemtableBytes;
  // A version's batch inserts thousands of tree nodes into a memtable of
  // hundreds of thousands; an insert that starts from where the previous
  // one ended (a hint, one per column: an empty prefix) skips most of the
  // skip list's search when the keys come in near order, as the tree
  // update emits them.
  column_options.memtable_insert_with_hint_prefix_extractor.reset(rocksdb::NewCappedPrefixTransform(0));

  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, column_options);
  for (const std::string& name : names) descriptors.emplace_back(name, column_options);

  auto impl = std::make_unique<Impl>();
  if (options.read_only) {
    SION_TRY(impl->lock, lock_store(directory));
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status status = options.read_only
                                     ? rocksdb::DB::OpenForReadOnly(db_options, directory, descriptors, &handles, &raw)
                                     : rocksdb::DB::Open(db_options, directory, descriptors, &handles, &raw);
  if (!status.ok()) return rocks_failure(status, "opening the store in " + directory);
  impl->db.reset(raw);
  // handles[0] is the default column, which Sion does not use.
  impl->db->DestroyColumnFamilyHandle(handles[0]);
  impl->handles.assign(handles.begin() + 1, handles.end());
  impl->names = std::move(names);
  impl->write_options.sync = options.sync_writes;
  impl->write_fault = options.write_fault;
  impl->read_only = options.read_only;
  return std::unique_ptr<KvStore>(new KvStore(std::move(impl), directory));
}

base::Result<std::optional<base::Bytes>> KvStore::get(Column column, base::ByteView key) const {
  if (!has_column(column)) return base::fail(base::Errc::invalid_argument, "reading a column not opened");
  std::string value;
  const rocksdb::Status status = impl_->db->Get(rocksdb::ReadOptions(), impl_->handle(column), slice(key), &value);
  if (status.IsNotFound()) return std::optional<base::Bytes>{};
  if (!status.ok()) {
    return rocks_failure(status, "reading column " + impl_->column_name(column));
  }
  return std::optional<base::Bytes>(base::Bytes(value.begin(), value.end()));
}

std::string_view KvStore::column_name(Column column) const noexcept {
  const auto index = static_cast<std::size_t>(column);
  return index < impl_->names.size() ? std::string_view(impl_->names[index]) : std::string_view("unknown");
}

bool KvStore::has_column(Column column) const noexcept {
  return static_cast<std::size_t>(column) < impl_->handles.size();
}

bool KvStore::read_only() const noexcept { return impl_->read_only; }

base::Status KvStore::write(KvBatch&& batch) {
  if (impl_->read_only) return base::fail(base::Errc::invalid_argument, "the store in " + directory_ + " is read-only");
  // In key order within each column: the memtable's insert hint then finds
  // each key next to the previous one instead of searching the skip list
  // from the top (most of a commit's time with the tree's keys, which are
  // hashes). Stable, so two operations on one key keep their order; others
  // commute.
  auto& ops = batch.ops_->ops;
  std::stable_sort(ops.begin(), ops.end(), [](const KvBatch::Ops::Op& a, const KvBatch::Ops::Op& b) {
    if (a.column != b.column) return a.column < b.column;
    return std::lexicographical_compare(a.key.begin(), a.key.end(), b.key.begin(), b.key.end());
  });
  rocksdb::WriteBatch rocks_batch;
  for (const auto& op : ops) {
    if (!has_column(op.column)) return base::fail(base::Errc::invalid_argument, "a batch names a column not opened");
    const rocksdb::Status status = op.erase ? rocks_batch.Delete(impl_->handle(op.column), slice(op.key))
                                            : rocks_batch.Put(impl_->handle(op.column), slice(op.key), slice(op.value));
    if (!status.ok()) return rocks_failure(status, "building a write batch");
  }
  if (impl_->write_fault) SION_TRY_STATUS(impl_->write_fault());
  const rocksdb::Status status = impl_->db->Write(impl_->write_options, &rocks_batch);
  if (!status.ok()) return rocks_failure(status, "writing a batch");
  return {};
}

base::Status KvStore::scan_range(Column column, base::ByteView first, base::ByteView last, const Visitor& visit) const {
  if (!has_column(column)) return base::fail(base::Errc::invalid_argument, "scanning a column not opened");
  rocksdb::ReadOptions read_options;
  const rocksdb::Slice upper = slice(last);
  if (!last.empty()) read_options.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(read_options, impl_->handle(column)));
  for (it->Seek(slice(first)); it->Valid(); it->Next()) {
    if (!visit(view(it->key()), view(it->value()))) break;
  }
  if (!it->status().ok()) {
    return rocks_failure(it->status(), "scanning column " + impl_->column_name(column));
  }
  return {};
}

base::Status KvStore::scan_prefix(Column column, base::ByteView prefix, const Visitor& visit) const {
  // The smallest key greater than every key with this prefix: increment the
  // last byte that is not 0xff and drop what follows it. An all-0xff (or
  // empty) prefix has no such bound: scan to the end and stop at the first
  // key without the prefix.
  base::Bytes upper(prefix.begin(), prefix.end());
  while (!upper.empty() && upper.back() == 0xff) upper.pop_back();
  if (!upper.empty()) ++upper.back();
  return scan_range(column, prefix, upper, [&](base::ByteView key, base::ByteView value) {
    if (key.size() < prefix.size() || !std::equal(prefix.begin(), prefix.end(), key.begin())) {
      return false;
    }
    return visit(key, value);
  });
}

}  // namespace sion::state
