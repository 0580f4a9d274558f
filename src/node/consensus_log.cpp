#include "sion/node/consensus_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "sion/base/endian.hpp"
#include "sion/state/blob_files.hpp"

namespace sion::node {
namespace {

using base::Errc;

constexpr std::string_view kSuffix = ".log";

base::Failure os_error(std::string_view verb, const std::string& path, int error) {
  return base::fail(Errc::io_error, "cannot " + std::string(verb) + " consensus log " + base::quoted_path(path) + ": " +
                                        std::strerror(error));
}

void encode_header(const LogRecordHeader& header, std::uint8_t* out) {
  base::store_be(out, header.crc32c);
  out[4] = header.kind;
  base::store_be(out + 5, header.author);
  base::store_be(out + 9, header.number);
  std::copy(header.key.begin(), header.key.end(), out + 17);
  base::store_be(out + 49, header.length);
}

LogRecordHeader decode_header(const std::uint8_t* in) {
  LogRecordHeader header;
  header.crc32c = base::load_be<std::uint32_t>(in);
  header.kind = in[4];
  header.author = base::load_be<std::uint32_t>(in + 5);
  header.number = base::load_be<std::uint64_t>(in + 9);
  std::copy(in + 17, in + 49, header.key.begin());
  header.length = base::load_be<std::uint32_t>(in + 49);
  return header;
}

// CRC-32C over the header after its CRC field, then the body.
std::uint32_t record_crc(const std::uint8_t* header_bytes, std::span<const base::ByteView> body_parts) {
  std::uint32_t crc = state::crc32c(base::ByteView(header_bytes + 4, LogRecordHeader::kEncodedSize - 4));
  for (const base::ByteView part : body_parts) crc = state::crc32c(part, crc);
  return crc;
}

std::uint32_t record_crc(const std::uint8_t* header_bytes, base::ByteView body) {
  return record_crc(header_bytes, std::span<const base::ByteView>(&body, 1));
}

// Reads exactly `size` bytes at `offset`; false at the end of the file.
base::Result<bool> read_at(int fd, const std::string& path, std::uint8_t* out, std::size_t size, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return os_error("read", path, errno);
    if (got == 0) return false;
    done += static_cast<std::size_t>(got);
  }
  return true;
}

base::Status sync_directory(const std::string& directory) {
  base::FileDescriptor dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid() || ::fsync(dir.get()) != 0) return os_error("sync the folder of", directory, errno);
  return {};
}

}  // namespace

ConsensusLog::~ConsensusLog() = default;

std::string ConsensusLog::path_of(std::uint32_t segment) const {
  return directory_ + "/" + base::numbered_file_name(segment, kSuffix);
}

base::Result<std::shared_ptr<ConsensusLog::Segment>> ConsensusLog::create_segment(std::uint32_t number) {
  const std::string path = path_of(number);
  auto segment = std::make_shared<Segment>();
  segment->fd = base::FileDescriptor(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!segment->fd.valid()) return os_error("create", path, errno);
  directory_unsynced_ = true;
  return segment;
}

base::Result<std::unique_ptr<ConsensusLog>> ConsensusLog::open(const std::string& directory,
                                                               std::uint64_t segment_bytes,
                                                               const std::function<void(const LogEntry&)>& visit) {
  SION_TRY_STATUS(base::make_directory(directory));
  std::unique_ptr<ConsensusLog> log(new ConsensusLog(directory, segment_bytes));
  SION_TRY(const std::vector<std::uint32_t> numbers, base::list_numbered_files(directory, kSuffix, "consensus log"));
  for (const std::uint32_t number : numbers) {
    const std::string path = log->path_of(number);
    auto segment = std::make_shared<Segment>();
    segment->fd = base::FileDescriptor(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!segment->fd.valid()) return os_error("open", path, errno);
    log->segments_.emplace(number, std::move(segment));
  }
  for (const std::uint32_t number : numbers) SION_TRY_STATUS(log->scan(number, number == numbers.back(), visit));
  if (numbers.empty()) {
    SION_TRY(auto first, log->create_segment(0));
    log->segments_.emplace(0, std::move(first));
  }
  log->current_ = log->segments_.rbegin()->first;
  return log;
}

// Frames every record of one segment. A record the last segment holds only in
// part (a crash during its write) is cut with everything after it.
base::Status ConsensusLog::scan(std::uint32_t number, bool last, const std::function<void(const LogEntry&)>& visit) {
  Segment& segment = *segments_.at(number);
  const std::string path = path_of(number);
  struct stat info {};
  if (::fstat(segment.fd.get(), &info) != 0) return os_error("stat", path, errno);
  const auto file_size = static_cast<std::uint64_t>(info.st_size);
  std::uint64_t offset = 0;
  std::uint8_t header_bytes[LogRecordHeader::kEncodedSize];
  base::Bytes body;
  while (offset < file_size) {
    std::string flaw;
    SION_TRY(const bool whole, read_at(segment.fd.get(), path, header_bytes, sizeof header_bytes, offset));
    LogRecordHeader header = decode_header(header_bytes);
    const std::uint64_t end = offset + sizeof header_bytes + header.length;
    if (!whole || end > file_size) {
      flaw = "a record runs past the end of the file";
    } else if (last) {
      // Sealed segments were synced whole; the last one is checked in full.
      body.resize(header.length);
      SION_TRY(const bool read,
               read_at(segment.fd.get(), path, body.data(), body.size(), offset + sizeof header_bytes));
      if (!read || record_crc(header_bytes, body) != header.crc32c) flaw = "a record fails its CRC-32C";
    }
    if (!flaw.empty()) {
      if (!last) {
        return base::fail(Errc::corrupt_store, "consensus log " + base::quoted_path(path) + " at byte " +
                                                   std::to_string(offset) + ": " + flaw);
      }
      cut_bytes_ = file_size - offset;
      if (::ftruncate(segment.fd.get(), static_cast<off_t>(offset)) != 0) return os_error("truncate", path, errno);
      if (::fsync(segment.fd.get()) != 0) return os_error("sync", path, errno);
      break;
    }
    visit(LogEntry{header, LogPlace{number, offset}});
    offset = end;
  }
  segment.size = offset;
  return {};
}

base::Result<LogEntry> ConsensusLog::append(LogRecordHeader header, std::span<const base::ByteView> body_parts) {
  std::uint64_t body_bytes = 0;
  for (const base::ByteView part : body_parts) body_bytes += part.size();
  if (body_bytes > UINT32_MAX) return base::fail(Errc::invalid_argument, "a consensus record over 4 GiB");
  header.length = static_cast<std::uint32_t>(body_bytes);
  std::uint8_t header_bytes[LogRecordHeader::kEncodedSize];
  encode_header(header, header_bytes);
  header.crc32c = record_crc(header_bytes, body_parts);
  encode_header(header, header_bytes);
  const std::uint64_t record_bytes = sizeof header_bytes + body_bytes;

  std::lock_guard lock(mutex_);
  std::shared_ptr<Segment> segment = segments_.at(current_);
  if (segment->size != 0 && segment->size + record_bytes > segment_bytes_) {
    // Seal this segment: only the last one may end torn.
    if (::fdatasync(segment->fd.get()) != 0) return os_error("sync", path_of(current_), errno);
    SION_TRY(segment, create_segment(current_ + 1));
    ++current_;
    segments_.emplace(current_, segment);
  }
  // Header and body written in place, the body not copied; what a failed
  // append wrote is overwritten by the next one.
  std::uint64_t at = segment->size;
  int error = base::write_all_at(segment->fd.get(), header_bytes, at);
  at += sizeof header_bytes;
  for (const base::ByteView part : body_parts) {
    if (error != 0) break;
    error = base::write_all_at(segment->fd.get(), part, at);
    at += part.size();
  }
  if (error != 0) return os_error("write", path_of(current_), error);
  const LogEntry entry{header, LogPlace{current_, segment->size}};
  segment->size += record_bytes;
  unsynced_ = true;
  return entry;
}

base::Status ConsensusLog::sync() {
  std::shared_ptr<Segment> segment;
  std::uint32_t number = 0;
  bool directory = false;
  {
    std::lock_guard lock(mutex_);
    if (!unsynced_ && !directory_unsynced_) return {};
    segment = segments_.at(current_);
    number = current_;
    directory = std::exchange(directory_unsynced_, false);
    unsynced_ = false;
  }
  // Outside the lock: appends go on while the disk catches up.
  base::Status synced;
  if (::fdatasync(segment->fd.get()) != 0) {
    synced = os_error("sync", path_of(number), errno);
  } else if (directory) {
    synced = sync_directory(directory_);
  }
  if (!synced) {
    // Still owed: the next sync() tries again.
    std::lock_guard lock(mutex_);
    unsynced_ = true;
    directory_unsynced_ = directory_unsynced_ || directory;
  }
  return synced;
}

base::Result<base::Bytes> ConsensusLog::read(const LogPlace& place) const {
  std::shared_ptr<Segment> segment;
  {
    std::lock_guard lock(mutex_);
    const auto found = segments_.find(place.segment);
    if (found == segments_.end()) {
      return base::fail(Errc::corrupt_store, "consensus log " + base::quoted_path(path_of(place.segment)) + " is gone");
    }
    segment = found->second;
  }
  const std::string path = path_of(place.segment);
  std::uint8_t header_bytes[LogRecordHeader::kEncodedSize];
  SION_TRY(const bool whole, read_at(segment->fd.get(), path, header_bytes, sizeof header_bytes, place.offset));
  const LogRecordHeader header = decode_header(header_bytes);
  base::Bytes body(whole ? header.length : 0);
  bool read = whole;
  if (whole) {
    SION_TRY(read, read_at(segment->fd.get(), path, body.data(), body.size(), place.offset + sizeof header_bytes));
  }
  if (!read || record_crc(header_bytes, body) != header.crc32c) {
    return base::fail(Errc::corrupt_store, "consensus log " + base::quoted_path(path) + ": the record at byte " +
                                               std::to_string(place.offset) + " is cut short or fails its CRC-32C");
  }
  return body;
}

base::Status ConsensusLog::remove_segment(std::uint32_t segment) {
  std::lock_guard lock(mutex_);
  if (segment >= current_) return base::fail(Errc::internal, "the current consensus log segment cannot be removed");
  if (segments_.erase(segment) == 0) return {};
  const std::string path = path_of(segment);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return os_error("remove", path, errno);
  return {};
}

std::uint32_t ConsensusLog::current_segment() const {
  std::lock_guard lock(mutex_);
  return current_;
}

std::vector<std::uint32_t> ConsensusLog::segments() const {
  std::lock_guard lock(mutex_);
  std::vector<std::uint32_t> numbers;
  for (const auto& entry : segments_) numbers.push_back(entry.first);
  return numbers;
}

}  // namespace sion::node
