#pragma once
// The permission bits of a file, for tests that check what a writer created
// (header only).

#include <sys/stat.h>

#include <string>

namespace sion::base::testing {

// st_mode & 07777 of `path` (following a symbolic link), or 0xFFFFFFFF if it
// cannot be stat'ed, which no expected mode equals.
inline unsigned file_mode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0xFFFFFFFFu;
  return static_cast<unsigned>(st.st_mode & 07777);
}

}  // namespace sion::base::testing
