#pragma once
// The dispatch paths a crypto test can force on this machine
// (sion::base::override_cpu_features_for_testing), those the CPU can run.
// Two sets, since SHA-2 picks its kernels on other features than the rest:
//   CpuPathSet::simd: "portable" (no features), "avx2" (everything detected
//     but AVX-512) and "avx512" (everything detected);
//   CpuPathSet::sha2: every combination of the feature sets that select a
//     SHA-256 / SHA-512 kernel family (SHA-NI, AVX2, AVX-512 F+BW):
//     "portable"; "sha_ni" (SHA-NI alone); "avx2" (AVX2 without SHA-NI or
//     AVX-512); "avx2_sha_ni" (everything detected but AVX-512); "native"
//     (everything detected, AVX-512 included).

#include <string>
#include <vector>

#include "sion/base/cpu.hpp"

namespace sion::crypto::testing {

struct CpuPath {
  std::string name;
  base::CpuFeatures features;
};

enum class CpuPathSet { simd, sha2 };

inline std::vector<CpuPath> cpu_paths(CpuPathSet set = CpuPathSet::simd) {
  const base::CpuFeatures hw = base::detect_cpu_features();
  base::CpuFeatures no512 = hw;
  no512.avx512f = no512.avx512dq = no512.avx512bw = no512.avx512vl = no512.avx512ifma = no512.avx512vbmi = false;
  std::vector<CpuPath> paths;
  paths.push_back({"portable", base::CpuFeatures{}});
  if (set == CpuPathSet::simd) {
    if (hw.avx2) paths.push_back({"avx2", no512});
    if (hw.avx512f) paths.push_back({"avx512", hw});
    return paths;
  }
  const bool sha_ni = hw.sha_ni && hw.sse42;
  if (sha_ni) {
    base::CpuFeatures f;
    f.sse42 = true;
    f.sha_ni = true;
    paths.push_back({"sha_ni", f});
  }
  if (hw.avx2) {
    base::CpuFeatures f = no512;
    f.sha_ni = false;
    paths.push_back({"avx2", f});
    if (sha_ni) paths.push_back({"avx2_sha_ni", no512});
  }
  if (hw.avx512f && hw.avx512bw) paths.push_back({"native", hw});
  return paths;
}

// The path names, for INSTANTIATE_TEST_SUITE_P.
inline std::vector<std::string> cpu_path_names(CpuPathSet set = CpuPathSet::simd) {
  std::vector<std::string> names;
  for (const CpuPath& p : cpu_paths(set)) names.push_back(p.name);
  return names;
}

// The features of the path called `name` (the active ones if none is).
inline base::CpuFeatures cpu_path_features(const std::string& name, CpuPathSet set = CpuPathSet::simd) {
  for (const CpuPath& p : cpu_paths(set)) {
    if (p.name == name) return p.features;
  }
  return base::cpu_features();
}

// Forces `features` while alive; restores the detected features after.
class ScopedCpuFeatures {
 public:
  explicit ScopedCpuFeatures(const base::CpuFeatures& features) { base::override_cpu_features_for_testing(features); }
  ~ScopedCpuFeatures() { base::override_cpu_features_for_testing(base::detect_cpu_features()); }
  ScopedCpuFeatures(const ScopedCpuFeatures&) = delete;
  ScopedCpuFeatures& operator=(const ScopedCpuFeatures&) = delete;
};

}  // namespace sion::crypto::testing
