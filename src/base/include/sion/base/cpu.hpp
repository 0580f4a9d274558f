#pragma once
// Run-time CPU feature detection. Kernels compiled for AVX2, AVX-512 or the
// SHA extensions are chosen by these flags, never by compile-time -march, so
// one binary runs on any x86-64 and the portable path is always there.
//
// SION_CPU_DISABLE (environment, read once) turns features off for testing
// and comparison: a comma-separated list of feature names, or "all" to force
// every portable path.

#include <string>
#include <vector>

namespace sion::base {

struct CpuFeatures {
  bool sse42 = false;
  bool pclmul = false;
  bool aesni = false;
  bool avx = false;
  bool avx2 = false;
  bool bmi2 = false;
  bool adx = false;
  bool sha_ni = false;
  bool gfni = false;
  bool vaes = false;
  bool vpclmulqdq = false;
  bool avx512f = false;
  bool avx512dq = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512ifma = false;
  bool avx512vbmi = false;

  // The names of the features that are on, in a fixed order.
  std::vector<std::string> names() const;
};

// What this CPU and OS support (OS support of the AVX and AVX-512 register
// state is checked with XGETBV), minus SION_CPU_DISABLE.
const CpuFeatures& cpu_features();

// What the hardware offers, ignoring SION_CPU_DISABLE.
CpuFeatures detect_cpu_features();

// The processor's brand string, e.g. "AMD EPYC 9B45".
std::string cpu_model_name();

// Tests use this to run every dispatch path the machine can run; pass the
// result of detect_cpu_features() to restore. Not thread-safe: call it only
// while no other thread dispatches.
void override_cpu_features_for_testing(const CpuFeatures& features);

}  // namespace sion::base
