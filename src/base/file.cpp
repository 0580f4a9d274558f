#include "sion/base/file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sion/base/bytes.hpp"

namespace sion::base {
namespace {

std::string named(std::string_view what, std::string_view path) {
  std::string out(what);
  if (!out.empty()) out.push_back(' ');
  out += quoted_path(path);
  return out;
}

// io_error, "cannot <verb> <what> '<path>': <errno text>".
Failure os_error(std::string_view verb, std::string_view what, std::string_view path, int error) {
  return fail(Errc::io_error, "cannot " + std::string(verb) + " " + named(what, path) + ": " + std::strerror(error));
}

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

// The directory part of `path` ("." if none) and the last component.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

Result<FileDescriptor> open_parent(const std::string& path, std::string_view what, std::string& name) {
  auto [directory, last] = split_path(path);
  if (last.empty() || last == "." || last == "..") {
    return fail(Errc::io_error, "cannot write " + named(what, path) + ": not a file name");
  }
  name = std::move(last);
  FileDescriptor fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return os_error("write", what, path, errno);
  return fd;
}

// 0, or the errno of the write that failed.
int write_all(int fd, std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t put = ::write(fd, text.data() + done, text.size() - done);
    if (put < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(put);
  }
  return 0;
}

// Creates `name` in the directory (O_EXCL), writes and syncs it; removes it on failure.
Status create_at(int directory_fd, const std::string& name, const std::string& shown, std::string_view text,
                 const WriteFileOptions& options) {
  FileDescriptor fd(
      ::openat(directory_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, options.mode));
  if (!fd.valid()) {
    const int error = errno;
    if (error == EEXIST) return fail(Errc::invalid_argument, named(options.what, shown) + " already exists");
    return os_error("create", options.what, shown, error);
  }
  const auto fail_and_remove = [&](int error) -> Status {
    ::unlinkat(directory_fd, name.c_str(), 0);
    return os_error("write", options.what, shown, error);
  };
  if (options.exact_mode && ::fchmod(fd.get(), options.mode) != 0) return fail_and_remove(errno);
  if (const int error = write_all(fd.get(), text); error != 0) return fail_and_remove(error);
  if (::fsync(fd.get()) != 0) return fail_and_remove(errno);
  if (!fd.close()) return fail_and_remove(errno);
  return {};
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

bool FileDescriptor::close() noexcept {
  const int fd = std::exchange(fd_, -1);
  return fd < 0 || ::close(fd) == 0;
}

std::string quoted_path(std::string_view path) {
  std::string out;
  out.reserve(path.size() + 2);
  out.push_back('\'');
  out.append(path);
  out.push_back('\'');
  return out;
}

Result<std::string> read_file(const std::string& path, const ReadFileOptions& options) {
  const std::string name = named(options.what, path);
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  // (forever); the kind is checked on the opened descriptor below.
  const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (options.follow_symlinks ? 0 : O_NOFOLLOW);
  FileDescriptor fd(::open(path.c_str(), flags));
  if (!fd.valid()) {
    const int error = errno;
    if (error == ENOENT) return fail(Errc::not_found, name + ": no such file");
    if (error == ELOOP && !options.follow_symlinks) {
      return fail(Errc::invalid_argument, name + ": a symbolic link; name the file itself");
    }
    return os_error("read", options.what, path, error);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return os_error("read", options.what, path, errno);
  if (!S_ISREG(st.st_mode)) {
    return fail(Errc::invalid_argument, name + ": not a regular file (" + file_kind(st.st_mode) + ")");
  }
  if (options.owner_only) {
    const auto mode = static_cast<unsigned>(st.st_mode & 07777);
    if ((mode & 077u) != 0) {
      char octal[8];
      std::snprintf(octal, sizeof octal, "%04o", mode);
      return fail(Errc::invalid_argument, name + ": group or others may access it (mode " + octal +
                                              "); it must be readable by its owner only (chmod 600)");
    }
    if (st.st_uid != ::geteuid()) {
      return fail(Errc::invalid_argument, name + ": owned by user " + std::to_string(st.st_uid) + ", not by user " +
                                              std::to_string(::geteuid()) + " who runs this");
    }
  }
  const auto too_large = [&] {
    return fail(Errc::length_over_max, name + ": larger than " + std::to_string(options.max_bytes) + " bytes");
  };
  if (st.st_size < 0 || static_cast<std::uintmax_t>(st.st_size) > options.max_bytes) return too_large();

  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      secure_wipe(buffer, sizeof buffer);
      secure_wipe(text.data(), text.size());
      return os_error("read", options.what, path, error);
    }
    if (got == 0) break;
    if (text.size() + static_cast<std::size_t>(got) > options.max_bytes) {  // it grew while read
      secure_wipe(buffer, sizeof buffer);
      secure_wipe(text.data(), text.size());
      return too_large();
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  secure_wipe(buffer, sizeof buffer);
  return text;
}

Status write_new_file_at(int directory_fd, const std::string& name, const std::string& shown, std::string_view text,
                         const WriteFileOptions& options) {
  SION_TRY_STATUS(create_at(directory_fd, name, shown, text, options));
  // The new entry is durable only once its directory is synced.
  if (::fsync(directory_fd) != 0) return os_error("write", options.what, shown, errno);
  return {};
}

Status write_new_file(const std::string& path, std::string_view text, const WriteFileOptions& options) {
  std::string name;
  SION_TRY(const FileDescriptor directory, open_parent(path, options.what, name));
  return write_new_file_at(directory.get(), name, path, text, options);
}

namespace {

// The directory of `path`, checked to accept a replacement: `path` is not a
// directory. Sets `name` to the last component and `temporary` to the
// temporary file's name beside it.
Result<FileDescriptor> open_for_replace(const std::string& path, std::string_view what, std::string& name,
                                        std::string& temporary) {
  SION_TRY(FileDescriptor directory, open_parent(path, what, name));
  struct stat st {};
  if (::fstatat(directory.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
    return os_error("write", what, path, EISDIR);
  }
  // Beside the destination; the process id keeps concurrent writers apart.
  temporary = name + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  ::unlinkat(directory.get(), temporary.c_str(), 0);  // left by an earlier process with this id
  return directory;
}

}  // namespace

Status check_replaceable(const std::string& path, const WriteFileOptions& options) {
  std::string name;
  std::string temporary;
  SION_TRY(const FileDescriptor directory, open_for_replace(path, options.what, name, temporary));
  SION_TRY_STATUS(create_at(directory.get(), temporary, path, {}, options));
  ::unlinkat(directory.get(), temporary.c_str(), 0);
  return {};
}

Status make_directory(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    return fail(Errc::io_error, "cannot create " + quoted_path(path) + ": " + std::strerror(errno));
  }
  return {};
}

Status replace_file(const std::string& path, std::string_view text, const WriteFileOptions& options) {
  std::string name;
  std::string temporary;
  SION_TRY(const FileDescriptor directory, open_for_replace(path, options.what, name, temporary));
  SION_TRY_STATUS(create_at(directory.get(), temporary, path, text, options));
  if (::renameat(directory.get(), temporary.c_str(), directory.get(), name.c_str()) != 0) {
    const int error = errno;
    ::unlinkat(directory.get(), temporary.c_str(), 0);
    return os_error("write", options.what, path, error);
  }
  if (::fsync(directory.get()) != 0) return os_error("write", options.what, path, errno);
  return {};
}

int write_all_at(int fd, std::span<const std::uint8_t> bytes, std::uint64_t offset) noexcept {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return put < 0 ? errno : ENOSPC;
    done += static_cast<std::size_t>(put);
  }
  return 0;
}

std::string numbered_file_name(std::uint32_t number, std::string_view suffix) {
  std::string name = std::to_string(number);
  if (name.size() < 8) name.insert(0, 8 - name.size(), '0');
  return name + std::string(suffix);
}

std::optional<std::uint32_t> parse_numbered_file_name(std::string_view name, std::string_view suffix) {
  constexpr std::size_t kDigits = 8;
  if (name.size() != kDigits + suffix.size() || !name.ends_with(suffix)) return std::nullopt;
  std::uint32_t number = 0;
  for (std::size_t i = 0; i < kDigits; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    number = number * 10 + static_cast<std::uint32_t>(name[i] - '0');
  }
  return number;
}

Result<std::vector<std::uint32_t>> list_numbered_files(const std::string& directory, std::string_view suffix,
                                                       std::string_view what) {
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) {
    return fail(Errc::io_error,
                "cannot list " + std::string(what) + " " + quoted_path(directory) + ": " + std::strerror(errno));
  }
  std::vector<std::uint32_t> numbers;
  while (const dirent* entry = ::readdir(dir)) {
    if (const auto number = parse_numbered_file_name(entry->d_name, suffix)) numbers.push_back(*number);
  }
  ::closedir(dir);
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

}  // namespace sion::base
