#include "sion/state/blob_files.hpp"

#include <fcntl.h>
#include <isa-l/crc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

#include "sion/base/endian.hpp"

namespace sion::state {
namespace {

using base::Errc;

constexpr std::string_view kSuffix = ".blob";

// io_error, "cannot <verb> <what> '<path>': <errno text>".
base::Failure os_error(std::string_view verb, const std::string& path, int error, std::string_view what = "body file") {
  return base::fail(Errc::io_error, "cannot " + std::string(verb) + " " + std::string(what) + " " +
                                        base::quoted_path(path) + ": " + std::strerror(error));
}

}  // namespace

std::uint32_t crc32c(base::ByteView data, std::uint32_t prefix_crc) noexcept {
  // ISA-L's crc32_iscsi leaves the initial and final inversion to the
  // caller; it takes an int length, so long inputs go in pieces.
  std::uint32_t crc = prefix_crc ^ 0xFFFFFFFFu;
  const std::uint8_t* p = data.data();
  std::size_t left = data.size();
  while (left != 0) {
    const std::size_t piece = std::min<std::size_t>(left, std::size_t{1} << 30);
    crc = crc32_iscsi(const_cast<unsigned char*>(p), static_cast<int>(piece), crc);
    p += piece;
    left -= piece;
  }
  return crc ^ 0xFFFFFFFFu;
}

base::Bytes BlobRef::encode() const {
  base::Bytes out(kEncodedSize);
  base::store_be(out.data(), file);
  base::store_be(out.data() + 4, offset);
  base::store_be(out.data() + 12, length);
  base::store_be(out.data() + 16, crc32c);
  return out;
}

base::Result<BlobRef> BlobRef::decode(base::ByteView bytes) {
  if (bytes.size() != kEncodedSize) {
    return base::fail(Errc::invalid_value, "a body reference is " + std::to_string(bytes.size()) + " bytes, not " +
                                               std::to_string(kEncodedSize));
  }
  BlobRef ref;
  ref.file = base::load_be<std::uint32_t>(bytes.data());
  ref.offset = base::load_be<std::uint64_t>(bytes.data() + 4);
  ref.length = base::load_be<std::uint32_t>(bytes.data() + 12);
  ref.crc32c = base::load_be<std::uint32_t>(bytes.data() + 16);
  return ref;
}

BlobFiles::BlobFiles(std::string directory, BlobFilesOptions options)
    : directory_(std::move(directory)), options_(options) {}

BlobFiles::~BlobFiles() = default;

std::string BlobFiles::path_of(std::uint32_t file) const {
  return directory_ + "/" + base::numbered_file_name(file, kSuffix);
}

base::Result<std::unique_ptr<BlobFiles>> BlobFiles::open(const std::string& directory,
                                                         const BlobFilesOptions& options) {
  if (!options.read_only && ::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST) {
    return os_error("create", directory, errno, "the body folder");
  }
  std::unique_ptr<BlobFiles> files(new BlobFiles(directory, options));
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0) {
    if (errno == ENOENT && options.read_only) return files;  // nothing to read yet
    return os_error("open", directory, errno, "the body folder");
  }
  SION_TRY(const std::vector<std::uint32_t> numbers, base::list_numbered_files(directory, kSuffix, "the body folder"));
  if (!numbers.empty()) {
    files->current_ = numbers.back();
    SION_TRY(const int fd, files->descriptor(files->current_, false));
    struct stat file_info {};
    if (::fstat(fd, &file_info) != 0) return os_error("stat", files->path_of(files->current_), errno);
    files->current_size_ = static_cast<std::uint64_t>(file_info.st_size);
  }
  return files;
}

base::Result<int> BlobFiles::descriptor(std::uint32_t file, bool create) const {
  std::lock_guard lock(files_mutex_);
  if (const auto it = files_.find(file); it != files_.end()) return it->second.get();
  const std::string path = path_of(file);
  const int flags = options_.read_only ? O_RDONLY : O_RDWR;
  base::FileDescriptor fd(::open(path.c_str(), flags | O_CLOEXEC | (create ? O_CREAT : 0), 0644));
  if (!fd.valid()) {
    if (errno == ENOENT) return base::fail(Errc::not_found, "body file " + base::quoted_path(path) + " does not exist");
    return os_error("open", path, errno);
  }
  const int raw = fd.get();
  files_.emplace(file, std::move(fd));
  return raw;
}

base::Status BlobFiles::sync_directory() const {
  base::FileDescriptor dir(::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid() || ::fsync(dir.get()) != 0) {
    return os_error("sync", directory_, errno, "the body folder");
  }
  return {};
}

base::Result<BlobRef> BlobFiles::append(base::ByteView value) {
  if (options_.read_only) return base::fail(Errc::invalid_argument, "the body files are open read-only");
  if (value.size() > UINT32_MAX) return base::fail(Errc::invalid_argument, "a value over 4 GiB cannot be appended");
  std::lock_guard lock(append_mutex_);
  bool created = false;
  if (current_size_ != 0 && current_size_ + value.size() > options_.max_file_bytes) {
    ++current_;
    current_size_ = 0;
    created = true;
  }
  SION_TRY(const int fd, descriptor(current_, true));
  const std::string path = path_of(current_);
  if (const int error = base::write_all_at(fd, value, current_size_); error != 0) return os_error("write", path, error);
  if (options_.sync && ::fdatasync(fd) != 0) return os_error("sync", path, errno);
  if (created && options_.sync) SION_TRY_STATUS(sync_directory());
  BlobRef ref{current_, current_size_, static_cast<std::uint32_t>(value.size()), crc32c(value)};
  current_size_ += value.size();
  return ref;
}

base::Result<base::Bytes> BlobFiles::read(const BlobRef& ref) const {
  SION_TRY(const int fd, descriptor(ref.file, false));
  base::Bytes value(ref.length);
  std::size_t done = 0;
  while (done < value.size()) {
    const ssize_t got = ::pread(fd, value.data() + done, value.size() - done, static_cast<off_t>(ref.offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return os_error("read", path_of(ref.file), errno);
    if (got == 0) {
      return base::fail(Errc::corrupt_store, "body file " + base::quoted_path(path_of(ref.file)) +
                                                 " ends before byte " + std::to_string(ref.offset + ref.length));
    }
    done += static_cast<std::size_t>(got);
  }
  if (crc32c(value) != ref.crc32c) {
    return base::fail(Errc::corrupt_store, "body file " + base::quoted_path(path_of(ref.file)) + ": the " +
                                               std::to_string(ref.length) + " bytes at offset " +
                                               std::to_string(ref.offset) + " fail their CRC-32C");
  }
  return value;
}

base::Status BlobFiles::discard_after(const std::optional<BlobRef>& last) {
  if (options_.read_only) return base::fail(Errc::invalid_argument, "the body files are open read-only");
  std::lock_guard lock(append_mutex_);
  SION_TRY(const std::vector<std::uint32_t> numbers, base::list_numbered_files(directory_, kSuffix, "the body folder"));
  bool removed = false;
  for (const std::uint32_t number : numbers) {
    if (last && number <= last->file) continue;
    {
      std::lock_guard files_lock(files_mutex_);
      files_.erase(number);
    }
    if (::unlink(path_of(number).c_str()) != 0) return os_error("remove", path_of(number), errno);
    removed = true;
  }
  current_ = last ? last->file : 0;
  current_size_ = last ? last->offset + last->length : 0;
  if (last) {
    SION_TRY(const int fd, descriptor(last->file, false));
    struct stat info {};
    if (::fstat(fd, &info) != 0) return os_error("stat", path_of(last->file), errno);
    if (static_cast<std::uint64_t>(info.st_size) < current_size_) {
      return base::fail(Errc::corrupt_store, "body file " + base::quoted_path(path_of(last->file)) + " is " +
                                                 std::to_string(info.st_size) + " bytes; the last body ends at byte " +
                                                 std::to_string(current_size_));
    }
    if (static_cast<std::uint64_t>(info.st_size) > current_size_) {
      if (::ftruncate(fd, static_cast<off_t>(current_size_)) != 0)
        return os_error("truncate", path_of(last->file), errno);
      if (options_.sync && ::fsync(fd) != 0) return os_error("sync", path_of(last->file), errno);
    }
  }
  if (removed && options_.sync) SION_TRY_STATUS(sync_directory());
  return {};
}

}  // namespace sion::state
