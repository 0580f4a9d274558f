// ML-DSA against the conformance vectors in shared/vectors (its README.md
// describes the files): NIST ACVP keyGen, sigGen and sigVer, and the C2SP
// Wycheproof sign and verify files, judged by the conformance runner
// (sion/crypto/conformance.hpp, which `sion conformance` also uses). Every
// case of every file runs; a file that is present but yields no case fails.
// Every suite runs once per dispatch path the machine has (portable, AVX2,
// AVX-512; cpu_paths.hpp).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <tuple>

#include "cpu_paths.hpp"
#include "sion/crypto/conformance.hpp"

namespace sion::crypto {
namespace {

namespace fs = std::filesystem;

fs::path vectors_dir() {
  if (const char* env = std::getenv("SION_VECTORS_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return fs::path(SION_SOURCE_DIR) / ".." / "shared" / "vectors";
}

// Runs one vector file on the current dispatch path and expects every case
// to pass. Skips when the vectors directory is absent; a directory without
// the file fails.
void expect_all_pass(const std::string& relative, std::string_view algorithm, std::string_view mode) {
  const fs::path dir = vectors_dir();
  if (!fs::is_directory(dir)) GTEST_SKIP() << "ML-DSA conformance vectors not found: no directory " << dir;
  const fs::path path = dir / relative;
  ASSERT_TRUE(fs::is_regular_file(path)) << path << " is missing";
  const auto report = run_conformance_file(path);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->algorithm, algorithm);
  EXPECT_EQ(report->mode, mode);
  std::cout << "[ vectors  ] " << relative << ": " << report->passed << " passed\n";
  ::testing::Test::RecordProperty("vectors_run", static_cast<int>(report->passed));
  EXPECT_GT(report->passed, 0U) << relative << " is present but no case was run";
  EXPECT_EQ(report->failed, 0U);
  for (const CaseNote& failure : report->failures) {
    ADD_FAILURE() << relative << " group " << failure.group_id << " tcId " << failure.tc_id << ": " << failure.reason;
  }
}

class MlDsaAcvp : public ::testing::TestWithParam<std::string> {
 protected:
  testing::ScopedCpuFeatures cpu_{testing::cpu_path_features(GetParam())};
};

TEST_P(MlDsaAcvp, KeyGen) { expect_all_pass("acvp/ml-dsa-keygen.json", "ML-DSA", "keyGen"); }
TEST_P(MlDsaAcvp, SigGen) { expect_all_pass("acvp/ml-dsa-siggen.json", "ML-DSA", "sigGen"); }
TEST_P(MlDsaAcvp, SigVer) { expect_all_pass("acvp/ml-dsa-sigver.json", "ML-DSA", "sigVer"); }

INSTANTIATE_TEST_SUITE_P(Paths, MlDsaAcvp, ::testing::ValuesIn(testing::cpu_path_names()),
                         [](const auto& param_info) { return param_info.param; });

// Parameter: (level "44" / "65" / "87", dispatch path).
class MlDsaWycheproof : public ::testing::TestWithParam<std::tuple<const char*, std::string>> {
 protected:
  static std::string level() { return std::get<0>(GetParam()); }
  static std::string file(const char* kind) { return "wycheproof/mldsa_" + level() + "_" + kind + "_test.json"; }
  testing::ScopedCpuFeatures cpu_{testing::cpu_path_features(std::get<1>(GetParam()))};
};

TEST_P(MlDsaWycheproof, SignSeed) { expect_all_pass(file("sign_seed"), "ML-DSA-" + level(), "MlDsaSign"); }
TEST_P(MlDsaWycheproof, SignNoSeed) { expect_all_pass(file("sign_noseed"), "ML-DSA-" + level(), "MlDsaSign"); }
TEST_P(MlDsaWycheproof, Verify) { expect_all_pass(file("verify"), "ML-DSA-" + level(), "MlDsaVerify"); }

INSTANTIATE_TEST_SUITE_P(Levels, MlDsaWycheproof,
                         ::testing::Combine(::testing::Values("44", "65", "87"),
                                            ::testing::ValuesIn(testing::cpu_path_names())),
                         [](const auto& param_info) {
                           return std::string("MlDsa") + std::get<0>(param_info.param) + "_" +
                                  std::get<1>(param_info.param);
                         });

}  // namespace
}  // namespace sion::crypto
