#pragma once
// Append-only files of large values kept beside a store (docs/state.md,
// "Body files"). A value is written once, synced, and named afterwards by a
// 20-byte BlobRef that the caller stores in its own atomic batch: a crash
// between the two leaves an unnamed tail, which discard_after() cuts on the
// next open. Reads check each value's CRC-32C, so bytes that changed on disk
// are corrupt_store, never a wrong value.
//
// Why not RocksDB: a value of megabytes there is copied into the write-ahead
// log (with a software CRC in Debian's build), the memtable, a level-0 table
// and every compaction after; here it is written once.
//
// Thread-safe: append and read may run concurrently from any threads (a
// read never waits for an append's sync); discard_after is for opening,
// before readers start.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/base/result.hpp"

namespace sion::state {

// CRC-32C (Castagnoli, RFC 3720 Appendix B.4): reflected polynomial
// 0x82F63B78, initial value and final XOR 0xFFFFFFFF. crc32c("123456789") is
// 0xE3069283. With `prefix_crc`, the CRC-32C of some bytes P, it is the
// CRC-32C of P followed by `data`.
std::uint32_t crc32c(base::ByteView data, std::uint32_t prefix_crc = 0) noexcept;

// Where a value is: file number, byte offset and length in it, and the value's
// CRC-32C. Encoded as 20 bytes, all big-endian: file (u32) ‖ offset (u64) ‖
// length (u32) ‖ crc32c (u32).
struct BlobRef {
  static constexpr std::size_t kEncodedSize = 20;
  std::uint32_t file = 0;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  std::uint32_t crc32c = 0;

  base::Bytes encode() const;
  // invalid_value unless exactly 20 bytes.
  static base::Result<BlobRef> decode(base::ByteView bytes);
  bool operator==(const BlobRef&) const = default;
};

struct BlobFilesOptions {
  std::uint64_t max_file_bytes = std::uint64_t{256} << 20;  // a new file starts past this
  bool sync = true;                                         // fdatasync each append
  bool read_only = false;                                   // append and discard_after fail
};

class BlobFiles {
 public:
  // Opens the files NNNNNNNN.blob (eight decimal digits) in `directory`,
  // creating the folder unless read-only. Other names there are ignored.
  static base::Result<std::unique_ptr<BlobFiles>> open(const std::string& directory,
                                                       const BlobFilesOptions& options = {});
  ~BlobFiles();
  BlobFiles(const BlobFiles&) = delete;
  BlobFiles& operator=(const BlobFiles&) = delete;

  // Writes `value` at the end of the current file (a new one when it would
  // pass max_file_bytes) and syncs it (and the folder, for a new file): the
  // value is durable when this returns. io_error on any failed call; what a
  // failed append wrote is overwritten by the next one.
  base::Result<BlobRef> append(base::ByteView value);

  // The value `ref` names. not_found for a file that does not exist;
  // corrupt_store when the bytes end early or their CRC-32C differs.
  base::Result<base::Bytes> read(const BlobRef& ref) const;

  // Cuts everything after `last` (the last value the caller named): its file
  // is truncated to the value's end and every later file removed. nullopt
  // removes every file. Appends continue after `last`.
  base::Status discard_after(const std::optional<BlobRef>& last);

 private:
  BlobFiles(std::string directory, BlobFilesOptions options);
  std::string path_of(std::uint32_t file) const;
  // The open descriptor of `file`, opening (or creating) it if needed.
  base::Result<int> descriptor(std::uint32_t file, bool create) const;
  base::Status sync_directory() const;

  std::string directory_;
  BlobFilesOptions options_;
  std::mutex append_mutex_;         // one append at a time; guards the two below
  std::uint32_t current_ = 0;       // the file appends go to
  std::uint64_t current_size_ = 0;  // its length: where the next value starts
  mutable std::mutex files_mutex_;  // guards files_ (held only to look up or open)
  mutable std::map<std::uint32_t, base::FileDescriptor> files_;
};

}  // namespace sion::state
