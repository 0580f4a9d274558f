#pragma once
// Facts fixed when this binary was built, for `sion version` and bench JSON.

#include <string_view>

namespace sion::base {

struct BuildInfo {
  std::string_view version;     // project version, e.g. "0.1.0"
  std::string_view commit;      // git commit the tree was at, "+dirty" if modified, or "unknown"
  std::string_view build_type;  // CMAKE_BUILD_TYPE
  std::string_view compiler;    // compiler id and version
  std::string_view sanitizers;  // empty unless a sanitizer build
};

const BuildInfo& build_info();

}  // namespace sion::base
