#include "sion/base/cpu.hpp"

#include <gtest/gtest.h>

namespace sion::base {
namespace {

TEST(Cpu, FeatureImplicationsHold) {
  const CpuFeatures f = detect_cpu_features();
  EXPECT_TRUE(!f.avx2 || f.avx);
  EXPECT_TRUE(!f.avx512f || f.avx2);
  EXPECT_TRUE(!f.avx512bw || f.avx512f);
  EXPECT_FALSE(cpu_model_name().empty());
}

TEST(Cpu, OverrideForcesPortablePaths) {
  const CpuFeatures real = detect_cpu_features();
  override_cpu_features_for_testing(CpuFeatures{});
  EXPECT_FALSE(cpu_features().avx2);
  EXPECT_TRUE(cpu_features().names().empty());
  override_cpu_features_for_testing(real);
  EXPECT_EQ(cpu_features().names(), real.names());
}

}  // namespace
}  // namespace sion::base
