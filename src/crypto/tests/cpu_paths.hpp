#pragma once
// The dispatch paths a crypto test can force on this machine
// (sion::base::override_cpu_features_for_testing): "portable" (no
// features), "avx2" (everything detected but AVX-512) and "avx512"
// (everything detected), those the CPU can run.

#include <string>
#include <vector>

#include "sion/base/cpu.hpp"

namespace sion::crypto::testing {

struct CpuPath {
  std::string name;
  base::CpuFeatures features;
};

inline std::vector<CpuPath> cpu_paths() {
  const base::CpuFeatures hw = base::detect_cpu_features();
  std::vector<CpuPath> paths;
  paths.push_back({"portable", base::CpuFeatures{}});
  if (hw.avx2) {
    base::CpuFeatures f = hw;
    f.avx512f = f.avx512dq = f.avx512bw = f.avx512vl = f.avx512ifma = f.avx512vbmi = false;
    paths.push_back({"avx2", f});
  }
  if (hw.avx512f) paths.push_back({"avx512", hw});
  return paths;
}

// The path names, for INSTANTIATE_TEST_SUITE_P.
inline std::vector<std::string> cpu_path_names() {
  std::vector<std::string> names;
  for (const CpuPath& p : cpu_paths()) names.push_back(p.name);
  return names;
}

// The features of the path called `name` (the active ones if none is).
inline base::CpuFeatures cpu_path_features(const std::string& name) {
  for (const CpuPath& p : cpu_paths()) {
    if (p.name == name) return p.features;
  }
  return base::cpu_features();
}

// Forces `features` while alive; restores the detected features after.
class ScopedCpuFeatures {
 public:
  explicit ScopedCpuFeatures(const base::CpuFeatures& features) {
    base::override_cpu_features_for_testing(features);
  }
  ~ScopedCpuFeatures() { base::override_cpu_features_for_testing(base::detect_cpu_features()); }
  ScopedCpuFeatures(const ScopedCpuFeatures&) = delete;
  ScopedCpuFeatures& operator=(const ScopedCpuFeatures&) = delete;
};

}  // namespace sion::crypto::testing
