#pragma once
// The append-only log under the consensus store (docs/consensus.md, "Safety
// state"): segment files NNNNNNNN.log of framed records, written without a
// sync and made durable together by sync(), so that a consensus step costs
// one fdatasync however many records it wrote.
//
// A record is a 53-byte header and a body. The header, big-endian:
//   crc32c (u32) ‖ kind (u8) ‖ author (u32) ‖ number (u64) ‖ key (32 bytes) ‖ length (u32)
// where crc32c (CRC-32C, as state::crc32c) covers the 49 header bytes after
// it and the body. The log gives kind, author, number and key no meaning; the
// store does.
//
// Only the last segment can end in a torn record: a segment is synced before
// the next one starts. Opening cuts such a tail; anything else that does not
// frame is corrupt_store. Thread-safe: appends, reads and sync() may come
// from any thread; sync() holds no lock while it waits for the disk.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/base/result.hpp"
#include "sion/consensus/messages.hpp"

namespace sion::node {

struct LogRecordHeader {
  static constexpr std::size_t kEncodedSize = 53;
  std::uint8_t kind = 0;
  std::uint32_t author = 0;
  std::uint64_t number = 0;
  consensus::Hash key{};
  std::uint32_t length = 0;  // of the body; set by append
  std::uint32_t crc32c = 0;  // set by append
};

// Where a record is: its segment and the offset of its header.
struct LogPlace {
  std::uint32_t segment = 0;
  std::uint64_t offset = 0;
  bool operator==(const LogPlace&) const = default;
};

struct LogEntry {
  LogRecordHeader header;
  LogPlace place;
};

class ConsensusLog {
 public:
  // Opens (creating as needed) the segments in `directory` and calls
  // `visit` for every record, oldest first. A torn record at the end of the
  // last segment is cut.
  static base::Result<std::unique_ptr<ConsensusLog>> open(const std::string& directory, std::uint64_t segment_bytes,
                                                          const std::function<void(const LogEntry&)>& visit);
  ~ConsensusLog();
  ConsensusLog(const ConsensusLog&) = delete;
  ConsensusLog& operator=(const ConsensusLog&) = delete;

  // Writes the record at the end of the log, in a new segment when it would
  // take the current one past segment_bytes (the current one is synced
  // first). Durable only after the next sync(). The body may come in parts,
  // written one after the other without joining them in memory.
  base::Result<LogEntry> append(LogRecordHeader header, std::span<const base::ByteView> body_parts);
  base::Result<LogEntry> append(LogRecordHeader header, base::ByteView body) {
    return append(header, std::span<const base::ByteView>(&body, 1));
  }
  // Makes everything appended so far durable.
  base::Status sync();
  // The body of the record at `place`, checked against its header's length
  // and CRC-32C: corrupt_store when it is not there or does not match.
  base::Result<base::Bytes> read(const LogPlace& place) const;
  // Removes a segment older than the current one.
  base::Status remove_segment(std::uint32_t segment);
  std::uint32_t current_segment() const;
  // How many bytes open() cut from the end of the last segment.
  std::uint64_t cut_bytes() const { return cut_bytes_; }
  // Every segment's number, ascending.
  std::vector<std::uint32_t> segments() const;

 private:
  struct Segment {
    base::FileDescriptor fd;
    std::uint64_t size = 0;
  };
  ConsensusLog(std::string directory, std::uint64_t segment_bytes)
      : directory_(std::move(directory)), segment_bytes_(segment_bytes) {}
  std::string path_of(std::uint32_t segment) const;
  base::Result<std::shared_ptr<Segment>> create_segment(std::uint32_t number);
  base::Status scan(std::uint32_t number, bool last, const std::function<void(const LogEntry&)>& visit);

  std::string directory_;
  std::uint64_t segment_bytes_;
  std::uint64_t cut_bytes_ = 0;
  mutable std::mutex mutex_;  // guards the members below
  std::map<std::uint32_t, std::shared_ptr<Segment>> segments_;
  std::uint32_t current_ = 0;
  bool unsynced_ = false;            // the current segment has writes not yet synced
  bool directory_unsynced_ = false;  // a segment was created since the last sync
};

}  // namespace sion::node
