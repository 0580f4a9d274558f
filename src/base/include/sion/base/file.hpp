#pragma once
// Whole files in and out, safely: the one place Sion reads an input file or
// writes one it must not half-write (genesis, key files, bench reports).
//
// Reading opens without blocking and checks the opened descriptor, not the
// name: a FIFO or device named where a file is expected is refused instead of
// blocking forever, and a size cap is checked before reading. Writing either
// creates a new file (never over an existing one) or replaces one atomically
// (a temporary file in the same directory, fsync, rename(2), fsync of the
// directory), so a crash leaves the old file or the new one, never a part.
//
// Messages name the file: "<what> '<path>': ...", "cannot write <what> '<path>': <errno text>".

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sion/base/result.hpp"

namespace sion::base {

// Closes its descriptor when it goes out of scope.
class FileDescriptor {
 public:
  FileDescriptor() noexcept = default;
  explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  // Closes now, so that a failing close(2) is seen; false if it failed.
  bool close() noexcept;

 private:
  int fd_ = -1;
};

// "'path'", as messages quote paths.
std::string quoted_path(std::string_view path);

struct ReadFileOptions {
  std::string_view what = "file";  // names the file in messages: "genesis file"
  std::size_t max_bytes = 0;       // larger files are refused unread
  bool owner_only = false;         // refuse a file another user owns or group or others may access
  bool follow_symlinks = true;     // false: a symbolic link is refused (O_NOFOLLOW)
};

// Reads a whole regular file of at most options.max_bytes. Errors: not_found
// (no such file), invalid_argument (not a regular file, a symbolic link when
// refused, permissions too open), length_over_max (too large), io_error.
// The read buffer is wiped; callers reading secrets wipe the result.
Result<std::string> read_file(const std::string& path, const ReadFileOptions& options);

struct WriteFileOptions {
  std::string_view what = "file";
  mode_t mode = 0644;       // of a created file, before the umask
  bool exact_mode = false;  // set `mode` whatever the umask (fchmod)
};

// Creates `path`, which must not exist (O_EXCL; invalid_argument "<what>
// '<path>' already exists", also for a dangling symbolic link), writes `text`
// and syncs the file and its directory. A failed write removes the file.
Status write_new_file(const std::string& path, std::string_view text, const WriteFileOptions& options);

// The same, for the entry `name` of an open directory (openat(2)): the
// directory cannot be swapped for another between checks and writes. `shown`
// is the path messages name.
Status write_new_file_at(int directory_fd, const std::string& name, const std::string& shown, std::string_view text,
                         const WriteFileOptions& options);

// Creates the directory `path` with `mode` (before the umask) unless it
// exists; io_error "cannot create '<path>': <why>" otherwise.
Status make_directory(const std::string& path, mode_t mode = 0700);

// Writes `text` to `path` atomically: a temporary file beside it (so rename
// stays on one file system), fsync, rename(2) over `path`, fsync of the
// directory. `path` may exist (it is replaced) but may not be a directory
// (io_error, as rename(2) would say).
Status replace_file(const std::string& path, std::string_view text, const WriteFileOptions& options);

// Fails as replace_file would for reasons other than the text (no such
// directory, no permission, `path` a directory), writing nothing: for a
// long job to check its destination before it starts.
Status check_replaceable(const std::string& path, const WriteFileOptions& options);

// Writes all of `bytes` at `offset` of the open file `fd` (pwrite(2),
// retried on EINTR and short writes): 0, or the errno of the failure
// (ENOSPC when the file takes no more).
int write_all_at(int fd, std::span<const std::uint8_t> bytes, std::uint64_t offset) noexcept;

// Files named by a number, as the segments of an append-only store:
// NNNNNNNN<suffix>, eight decimal digits (numbers below 10^8).
std::string numbered_file_name(std::uint32_t number, std::string_view suffix);
std::optional<std::uint32_t> parse_numbered_file_name(std::string_view name, std::string_view suffix);
// The numbers of the files so named in `directory`, ascending; other names
// are ignored. io_error "cannot list <what> '<directory>': <errno text>".
Result<std::vector<std::uint32_t>> list_numbered_files(const std::string& directory, std::string_view suffix,
                                                       std::string_view what);

}  // namespace sion::base
