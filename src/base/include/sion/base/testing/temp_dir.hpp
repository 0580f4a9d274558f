#pragma once
// A fresh folder under the system's temporary directory, removed with its
// contents when the object goes away. For tests of every layer (header only).

#include <filesystem>
#include <random>
#include <string>
#include <string_view>

namespace sion::base::testing {

class TempDir {
 public:
  TempDir() {
    std::random_device entropy;
    path_ =
        std::filesystem::temp_directory_path() / ("sion-test-" + std::to_string(entropy()) + std::to_string(entropy()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }
  std::string str() const { return path_.string(); }
  // The path of `name` inside the folder.
  std::string operator/(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace sion::base::testing
