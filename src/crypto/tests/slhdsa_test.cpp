#include "sion/crypto/slhdsa.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_paths.hpp"
#include "sion/crypto/conformance.hpp"

namespace sion::crypto::slhdsa {

// How GoogleTest prints a ParameterSet (found by argument-dependent lookup).
void PrintTo(ParameterSet set, std::ostream* os) { *os << params(set).name; }

namespace {

using base::Bytes;
using base::ByteView;

// ---------------------------------------------------------------------------
// ACVP vectors (shared/vectors/README.md describes the files), judged by the
// conformance runner (sion/crypto/conformance.hpp, which `sion conformance`
// also uses).

std::filesystem::path vectors_dir() {
  if (const char* env = std::getenv("SION_VECTORS_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::filesystem::path(SION_SOURCE_DIR "/../shared/vectors");
}

std::string missing_message(const std::string& file) {
  return "no " + (vectors_dir() / "acvp" / file).string() + " (set SION_VECTORS_DIR to the directory holding acvp/)";
}

// Every vector file runs on every SHA-2 dispatch path this machine has
// (testing::CpuPathSet::sha2: portable, SHA-NI only, AVX2 without SHA-NI,
// AVX2 with SHA-NI, and native, i.e. AVX-512), the path forced with
// override_cpu_features_for_testing. keyGen and sigVer run in full on every
// path. sigGen runs in full on the portable and the best path; on the paths
// in between, the f sets run in full and the s sets and SHAKE only the
// first case of each group (every combination of interface and
// determinism), which keeps the portable path the slow one.
using VectorParam = std::tuple<ParameterSet, std::string>;

class SlhDsaVectors : public ::testing::TestWithParam<VectorParam> {
 protected:
  ParameterSet set() const { return std::get<0>(GetParam()); }
  const std::string& path() const { return std::get<1>(GetParam()); }
  const Params& p() const { return params(set()); }
  // How many sigGen cases of each group to run on this path (0: all).
  std::size_t siggen_cases_per_group() const {
    const std::vector<std::string> paths = testing::cpu_path_names(testing::CpuPathSet::sha2);
    const bool full = path() == paths.front() || path() == paths.back();
    const bool f_set_sha2 = p().family == HashFamily::sha2 && p().name.back() == 'f';
    return full || f_set_sha2 ? 0 : 1;
  }

  // Runs this set's cases of one file and expects every one to pass.
  void expect_all_pass(const char* file, const char* mode, std::size_t max_cases_per_group = 0) {
    const std::filesystem::path path = vectors_dir() / "acvp" / file;
    if (!std::filesystem::is_regular_file(path)) GTEST_SKIP() << missing_message(file);
    ConformanceFilter filter;
    filter.parameter_set = std::string(p().name);
    filter.max_cases_per_group = max_cases_per_group;
    const auto report = run_conformance_file(path, filter);
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->mode, mode);
    // Counts go to the log and to the XML report (--gtest_output=xml).
    std::cout << "[ vectors  ] " << p().name << " " << mode << " (" << this->path() << "): " << report->passed
              << " cases\n";
    RecordProperty("vectors", static_cast<int>(report->passed));
    EXPECT_GT(report->passed, 0U) << "the vector file holds no " << mode << " case for " << p().name;
    EXPECT_EQ(report->failed, 0U);
    for (const CaseNote& failure : report->failures) {
      ADD_FAILURE() << file << " tgId " << failure.group_id << " tcId " << failure.tc_id << ": " << failure.reason;
    }
  }

  testing::ScopedCpuFeatures cpu_{testing::cpu_path_features(path(), testing::CpuPathSet::sha2)};
};

TEST_P(SlhDsaVectors, KeyGen) { expect_all_pass("slh-dsa-keygen.json", "keyGen"); }
TEST_P(SlhDsaVectors, SigGen) { expect_all_pass("slh-dsa-siggen.json", "sigGen", siggen_cases_per_group()); }
TEST_P(SlhDsaVectors, SigVer) { expect_all_pass("slh-dsa-sigver.json", "sigVer"); }

std::string set_test_name(const ::testing::TestParamInfo<ParameterSet>& info) {
  std::string name(params(info.param).name.substr(std::string_view("SLH-DSA-").size()));
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    AllSets, SlhDsaVectors,
    ::testing::Combine(::testing::Values(ParameterSet::sha2_128s, ParameterSet::sha2_128f, ParameterSet::sha2_192f,
                                         ParameterSet::sha2_256s, ParameterSet::shake_128f),
                       ::testing::ValuesIn(testing::cpu_path_names(testing::CpuPathSet::sha2))),
    [](const ::testing::TestParamInfo<VectorParam>& param_info) {
      return set_test_name({std::get<0>(param_info.param), param_info.index}) + "_" + std::get<1>(param_info.param);
    });

// Every group in every file names a parameter set implemented here, so no
// vector is silently left out by the per-set tests above: an unfiltered run
// fails the cases of any group whose set is unknown.
TEST(SlhDsaVectorFiles, NameOnlyKnownParameterSets) {
  bool any = false;
  for (const char* file : {"slh-dsa-keygen.json", "slh-dsa-sigver.json"}) {
    const std::filesystem::path path = vectors_dir() / "acvp" / file;
    if (!std::filesystem::is_regular_file(path)) continue;
    any = true;
    const auto report = run_conformance_file(path);
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->failed, 0U) << file;
  }
  if (!any) GTEST_SKIP() << missing_message("slh-dsa-*.json");
}

// ---------------------------------------------------------------------------
// Round trips and rejection of malformed input.

Bytes random_bytes(std::mt19937_64& rng, std::size_t len) {
  Bytes out(len);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

// Signing costs up to a second per signature in the "s" sets, and ctest runs
// every test in its own process, so each test below signs at most once.
class SlhDsaRoundTrip : public ::testing::TestWithParam<ParameterSet> {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(static_cast<std::uint64_t>(GetParam()) + 1000);
    const std::size_t n = params(GetParam()).n;
    base::Result<KeyPair> keys = keygen(GetParam(), random_bytes(rng, n), random_bytes(rng, n), random_bytes(rng, n));
    ASSERT_TRUE(keys.ok());
    keys_.emplace(*keys);
    message_ = random_bytes(rng, 1 + rng() % 300);
    addrnd_ = random_bytes(rng, n);
  }

  const SecretKey& sk() const { return keys_->secret_key; }
  const PublicKey& pk() const { return keys_->public_key; }

  std::optional<KeyPair> keys_;
  Bytes message_;
  Bytes addrnd_;
};

TEST_P(SlhDsaRoundTrip, SignVerifyAndRejectTampering) {
  const Params& p = params(GetParam());
  // The longest context allowed (ACVP covers the shorter ones).
  std::mt19937_64 rng(7);
  const Bytes context = random_bytes(rng, 255);
  const base::Result<Bytes> sig = sign(sk(), message_, context, addrnd_);
  ASSERT_TRUE(sig.ok());
  ASSERT_EQ(sig->size(), p.sig_bytes);
  EXPECT_TRUE(verify(pk(), message_, context, *sig));

  {
    SCOPED_TRACE("tampered signature");
    // A flipped bit in R, the FORS secrets and auth paths, each hypertree
    // layer's WOTS+ signature and auth path, and the last byte.
    std::set<std::size_t> positions = {0, p.n - 1, p.n, 2 * p.n, p.sig_bytes - 1};
    const std::size_t fors_end = p.n + p.k * (p.a + 1) * p.n;
    const std::size_t xmss_bytes = (p.len + p.hp) * p.n;
    for (std::size_t layer = 0; layer < p.d; ++layer) {
      positions.insert(fors_end + layer * xmss_bytes);
      positions.insert(fors_end + layer * xmss_bytes + p.len * p.n);
    }
    for (const std::size_t at : positions) {
      Bytes bad = *sig;
      bad[at] ^= 0x01;
      EXPECT_FALSE(verify(pk(), message_, context, bad)) << "flipped byte " << at;
    }
    EXPECT_FALSE(verify(pk(), message_, context, random_bytes(rng, p.sig_bytes)));
  }
  {
    SCOPED_TRACE("truncated or padded signature");
    EXPECT_FALSE(verify(pk(), message_, context, ByteView(*sig).first(sig->size() - 1)));
    Bytes padded = *sig;
    padded.push_back(0);
    EXPECT_FALSE(verify(pk(), message_, context, padded));
    EXPECT_FALSE(verify(pk(), message_, context, {}));
  }
  {
    SCOPED_TRACE("tampered message");
    Bytes other = message_;
    other[0] ^= 0x80;
    EXPECT_FALSE(verify(pk(), other, context, *sig));
    other = message_;
    other.push_back(0);
    EXPECT_FALSE(verify(pk(), other, context, *sig));
    EXPECT_FALSE(verify(pk(), ByteView(message_).first(message_.size() - 1), context, *sig));
  }
  {
    SCOPED_TRACE("tampered context");
    Bytes other = context;
    other[0] ^= 0x01;
    EXPECT_FALSE(verify(pk(), message_, other, *sig));
    EXPECT_FALSE(verify(pk(), message_, ByteView(context).first(254), *sig));
    EXPECT_FALSE(verify(pk(), message_, {}, *sig));
  }
  {
    SCOPED_TRACE("domain separation");
    // The pure interface signs M' = 0 || len(ctx) || ctx || M (Alg. 22):
    // the signature is an internal signature of M' and not of M.
    Bytes m_prime = {0, static_cast<std::uint8_t>(context.size())};
    m_prime.insert(m_prime.end(), context.begin(), context.end());
    m_prime.insert(m_prime.end(), message_.begin(), message_.end());
    EXPECT_TRUE(verify_internal(pk(), m_prime, *sig));
    EXPECT_FALSE(verify_internal(pk(), message_, *sig));
  }
  for (const Params& other : kParameterSets) {
    if (other.set == GetParam()) continue;
    SCOPED_TRACE("key of " + std::string(other.name));
    const base::Result<PublicKey> foreign = PublicKey::from_bytes(other.set, pk().bytes());
    if (other.pk_bytes != pk().bytes().size()) {
      EXPECT_FALSE(foreign.ok());
      continue;
    }
    // Same key size (SHA2-128f and SHAKE-128f, 128s and 128f): the bytes
    // parse, but the signature does not verify under the other scheme.
    ASSERT_TRUE(foreign.ok());
    EXPECT_FALSE(verify(*foreign, message_, context, *sig));
  }
}

TEST_P(SlhDsaRoundTrip, InternalInterface) {
  // Deterministic signing (opt_rand = PK.seed) is checked bit for bit by the
  // ACVP deterministic groups; this checks the internal round trip.
  const base::Result<Bytes> sig = sign_internal_deterministic(sk(), message_);
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(verify_internal(pk(), message_, *sig));
  EXPECT_FALSE(verify(pk(), message_, {}, *sig));
  Bytes other = message_;
  other.back() ^= 0x01;
  EXPECT_FALSE(verify_internal(pk(), other, *sig));
  EXPECT_FALSE(verify_internal(pk(), message_, ByteView(*sig).first(sig->size() - 1)));
  Bytes padded = *sig;
  padded.push_back(0);
  EXPECT_FALSE(verify_internal(pk(), message_, padded));
}

TEST_P(SlhDsaRoundTrip, RejectsBadArguments) {
  const Params& p = params(GetParam());
  const Bytes long_context(256, 0x11);
  const base::Result<Bytes> too_long = sign(sk(), message_, long_context, addrnd_);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().code, base::Errc::length_over_max);
  EXPECT_FALSE(sign_deterministic(sk(), message_, long_context).ok());
  EXPECT_FALSE(verify(pk(), message_, long_context, Bytes(p.sig_bytes, 0)));

  for (const std::size_t len : {std::size_t{0}, p.n - 1, p.n + 1}) {
    const Bytes addrnd(len, 0x22);
    EXPECT_FALSE(sign(sk(), message_, {}, addrnd).ok()) << len;
    EXPECT_FALSE(sign_internal(sk(), message_, addrnd).ok()) << len;
  }
}

// A secret key whose PK.root does not belong to its seeds would make
// signatures that never verify; signing refuses it. Each refusal costs a full
// signature, so this runs on the f sets only (SHA2 categories 1 and 3, SHAKE).
using SlhDsaKeyCheck = SlhDsaRoundTrip;

TEST_P(SlhDsaKeyCheck, RefusesInconsistentSecretKey) {
  const Params& p = params(GetParam());
  for (const std::size_t at : {std::size_t{0}, 3 * p.n}) {  // a byte of SK.seed, of PK.root
    Bytes bytes(sk().bytes().begin(), sk().bytes().end());
    bytes[at] ^= 0x01;
    const base::Result<SecretKey> broken = SecretKey::from_bytes(GetParam(), bytes);
    ASSERT_TRUE(broken.ok());
    const base::Result<Bytes> sig = sign_deterministic(*broken, message_, {});
    ASSERT_FALSE(sig.ok()) << "byte " << at;
    EXPECT_EQ(sig.error().code, base::Errc::invalid_value);
  }
}

INSTANTIATE_TEST_SUITE_P(FastSets, SlhDsaKeyCheck,
                         ::testing::Values(ParameterSet::sha2_128f, ParameterSet::sha2_192f, ParameterSet::shake_128f),
                         set_test_name);

TEST_P(SlhDsaRoundTrip, RejectsWrongLengthKeysAndSeeds) {
  const Params& p = params(GetParam());
  for (const std::size_t len : {std::size_t{0}, p.pk_bytes - 1, p.pk_bytes + 1, p.sk_bytes}) {
    EXPECT_FALSE(PublicKey::from_bytes(GetParam(), Bytes(len, 1)).ok()) << len;
  }
  for (const std::size_t len : {std::size_t{0}, p.sk_bytes - 1, p.sk_bytes + 1, p.pk_bytes}) {
    EXPECT_FALSE(SecretKey::from_bytes(GetParam(), Bytes(len, 1)).ok()) << len;
  }
  EXPECT_TRUE(PublicKey::from_bytes(GetParam(), pk().bytes()).ok());
  EXPECT_TRUE(SecretKey::from_bytes(GetParam(), sk().bytes()).ok());

  const Bytes good(p.n, 3);
  const Bytes bad(p.n + 1, 3);
  EXPECT_FALSE(keygen(GetParam(), bad, good, good).ok());
  EXPECT_FALSE(keygen(GetParam(), good, bad, good).ok());
  EXPECT_FALSE(keygen(GetParam(), good, good, bad).ok());
  EXPECT_FALSE(keygen(GetParam(), good, good, {}).ok());

  const auto unknown = static_cast<ParameterSet>(200);
  EXPECT_FALSE(keygen(unknown, good, good, good).ok());
  EXPECT_FALSE(PublicKey::from_bytes(unknown, pk().bytes()).ok());
  EXPECT_FALSE(SecretKey::from_bytes(unknown, sk().bytes()).ok());
}

INSTANTIATE_TEST_SUITE_P(AllSets, SlhDsaRoundTrip,
                         ::testing::Values(ParameterSet::sha2_128s, ParameterSet::sha2_128f, ParameterSet::sha2_192f,
                                           ParameterSet::sha2_256s, ParameterSet::shake_128f),
                         set_test_name);

// SLH-DSA-SHAKE runs its batches of F, H, PRF and T_l in 8 Keccak states
// (AVX-512), 4 (AVX2) or one hash at a time (portable). On every forced
// path, keygen and both kinds of signing give the same bytes, every path's
// signature verifies, and a signature tampered in the FORS part, in the
// WOTS+ chains and in an authentication path is rejected.
TEST(SlhDsaShakeLanes, EveryCpuPathSignsAndVerifiesAlike) {
  const ParameterSet set = ParameterSet::shake_128f;
  const Params& p = params(set);
  std::mt19937_64 rng(205);
  const Bytes sk_seed = random_bytes(rng, p.n);
  const Bytes sk_prf = random_bytes(rng, p.n);
  const Bytes pk_seed = random_bytes(rng, p.n);
  const Bytes message = random_bytes(rng, 123);
  const Bytes context = random_bytes(rng, 9);
  const Bytes addrnd = random_bytes(rng, p.n);
  struct Signed {
    std::string path;
    Bytes pk, sig, sig_deterministic;
  };
  std::vector<Signed> runs;
  for (const testing::CpuPath& path : testing::cpu_paths()) {
    SCOPED_TRACE("signing on " + path.name);
    const testing::ScopedCpuFeatures cpu(path.features);
    const base::Result<KeyPair> keys = keygen(set, sk_seed, sk_prf, pk_seed);
    ASSERT_TRUE(keys.ok());
    const base::Result<Bytes> sig = sign(keys->secret_key, message, context, addrnd);
    const base::Result<Bytes> det = sign_deterministic(keys->secret_key, message, context);
    ASSERT_TRUE(sig.ok());
    ASSERT_TRUE(det.ok());
    const ByteView pk = keys->public_key.bytes();
    runs.push_back({path.name, Bytes(pk.begin(), pk.end()), *sig, *det});
  }
  for (const Signed& run : runs) {
    EXPECT_EQ(run.pk, runs.front().pk) << run.path;
    EXPECT_EQ(run.sig, runs.front().sig) << run.path;
    EXPECT_EQ(run.sig_deterministic, runs.front().sig_deterministic) << run.path;
  }
  const base::Result<PublicKey> pk = PublicKey::from_bytes(set, runs.front().pk);
  ASSERT_TRUE(pk.ok());
  const std::size_t fors_end = p.n + p.k * (p.a + 1) * p.n;
  const std::size_t tampered_at[] = {p.n + 5, fors_end + 3, fors_end + p.len * p.n + 1, p.sig_bytes - 1};
  for (const testing::CpuPath& path : testing::cpu_paths()) {
    SCOPED_TRACE("verifying on " + path.name);
    const testing::ScopedCpuFeatures cpu(path.features);
    for (const Signed& run : runs) {
      EXPECT_TRUE(verify(*pk, message, context, run.sig)) << "signed on " << run.path;
      EXPECT_TRUE(verify(*pk, message, context, run.sig_deterministic)) << "signed on " << run.path;
    }
    for (const std::size_t at : tampered_at) {
      Bytes bad = runs.front().sig;
      bad[at] ^= 0x10;
      EXPECT_FALSE(verify(*pk, message, context, bad)) << "flipped byte " << at;
    }
  }
}

TEST(SlhDsaParams, MatchFips205Table2) {
  // n, h, d, h', a, k, m, |pk|, |sig| as printed in FIPS 205, Table 2.
  struct Row {
    ParameterSet set;
    std::size_t n, h, d, hp, a, k, m, pk, sig;
  };
  const Row rows[] = {
      {ParameterSet::sha2_128s, 16, 63, 7, 9, 12, 14, 30, 32, 7856},
      {ParameterSet::sha2_128f, 16, 66, 22, 3, 6, 33, 34, 32, 17088},
      {ParameterSet::sha2_192f, 24, 66, 22, 3, 8, 33, 42, 48, 35664},
      {ParameterSet::sha2_256s, 32, 64, 8, 8, 14, 22, 47, 64, 29792},
      {ParameterSet::shake_128f, 16, 66, 22, 3, 6, 33, 34, 32, 17088},
  };
  for (const Row& row : rows) {
    const Params& p = params(row.set);
    SCOPED_TRACE(std::string(p.name));
    EXPECT_EQ(p.set, row.set);
    EXPECT_EQ(p.n, row.n);
    EXPECT_EQ(p.h, row.h);
    EXPECT_EQ(p.d, row.d);
    EXPECT_EQ(p.hp, row.hp);
    EXPECT_EQ(p.a, row.a);
    EXPECT_EQ(p.k, row.k);
    EXPECT_EQ(p.lg_w, 4U);
    EXPECT_EQ(p.m, row.m);
    EXPECT_EQ(p.len, 2 * row.n + 3);
    EXPECT_EQ(p.pk_bytes, row.pk);
    EXPECT_EQ(p.sk_bytes, 2 * row.pk);
    EXPECT_EQ(p.sig_bytes, row.sig);
    EXPECT_EQ(parameter_set_from_name(p.name), row.set);
  }
  EXPECT_FALSE(parameter_set_from_name("SLH-DSA-SHA2-128S").has_value());
}

}  // namespace
}  // namespace sion::crypto::slhdsa
