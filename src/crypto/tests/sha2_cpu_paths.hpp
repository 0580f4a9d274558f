#pragma once
// The SHA-2 dispatch paths a test can force on this machine: every
// combination of the feature sets that select a SHA-256 / SHA-512 kernel
// family (SHA-NI, AVX2, AVX-512 F+BW), those the CPU can run.

#include <string>
#include <vector>

#include "cpu_paths.hpp"
#include "sion/base/cpu.hpp"

namespace sion::crypto::testing {

// "portable"; "sha_ni" (SHA-NI alone); "avx2" (AVX2 without SHA-NI or
// AVX-512); "avx2_sha_ni" (everything detected but AVX-512); "native"
// (everything detected, AVX-512 included).
inline std::vector<CpuPath> sha2_cpu_paths() {
  const base::CpuFeatures hw = base::detect_cpu_features();
  const bool sha_ni = hw.sha_ni && hw.sse42;
  std::vector<CpuPath> paths;
  paths.push_back({"portable", base::CpuFeatures{}});
  if (sha_ni) {
    base::CpuFeatures f;
    f.sse42 = true;
    f.sha_ni = true;
    paths.push_back({"sha_ni", f});
  }
  base::CpuFeatures no512 = hw;
  no512.avx512f = no512.avx512dq = no512.avx512bw = no512.avx512vl = no512.avx512ifma =
      no512.avx512vbmi = false;
  if (hw.avx2) {
    base::CpuFeatures f = no512;
    f.sha_ni = false;
    paths.push_back({"avx2", f});
    if (sha_ni) paths.push_back({"avx2_sha_ni", no512});
  }
  if (hw.avx512f && hw.avx512bw) paths.push_back({"native", hw});
  return paths;
}

inline std::vector<std::string> sha2_cpu_path_names() {
  std::vector<std::string> names;
  for (const CpuPath& p : sha2_cpu_paths()) names.push_back(p.name);
  return names;
}

inline base::CpuFeatures sha2_cpu_path_features(const std::string& name) {
  for (const CpuPath& p : sha2_cpu_paths()) {
    if (p.name == name) return p.features;
  }
  return base::detect_cpu_features();
}

}  // namespace sion::crypto::testing
