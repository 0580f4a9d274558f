// ML-DSA against the conformance vectors in shared/vectors (its README.md
// describes the files): NIST ACVP keyGen, sigGen and sigVer, and the C2SP
// Wycheproof sign and verify files. Every case of every file runs; a file
// that is present but yields no case fails. Every suite runs once per
// dispatch path the machine has (portable, AVX2, AVX-512; cpu_paths.hpp).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>

#include "cpu_paths.hpp"
#include "sion/crypto/mldsa.hpp"

namespace sion::crypto::mldsa {
namespace {

namespace fs = std::filesystem;
using base::ByteView;
using base::Bytes;
using nlohmann::json;

fs::path vectors_dir() {
  if (const char* env = std::getenv("SION_VECTORS_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return fs::path(SION_SOURCE_DIR) / ".." / "shared" / "vectors";
}

// Loads vectors_dir()/relative into `var`. Skips the test when the vectors
// directory is absent; a directory without the file is a failure.
#define LOAD_VECTORS_OR_SKIP(var, relative)                                           \
  const fs::path var##_dir = vectors_dir();                                           \
  if (!fs::is_directory(var##_dir)) {                                                 \
    GTEST_SKIP() << "ML-DSA conformance vectors not found: no directory " << var##_dir \
                 << " (set SION_VECTORS_DIR to the shared/vectors directory)";        \
  }                                                                                   \
  const fs::path var##_path = var##_dir / (relative);                                 \
  ASSERT_TRUE(fs::is_regular_file(var##_path)) << var##_path << " is missing";        \
  const json var = load_json(var##_path)

json load_json(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

Bytes hex(const json& value) {
  auto bytes = base::from_hex(value.get<std::string>());
  EXPECT_TRUE(bytes.ok()) << value;
  return bytes.ok() ? std::move(bytes).value() : Bytes{};
}

template <std::size_t N>
std::optional<base::ByteArray<N>> fixed(const Bytes& bytes) {
  if (bytes.size() != N) return std::nullopt;
  base::ByteArray<N> out;
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

Level parse_level(const std::string& name) {
  if (name == "ML-DSA-44") return Level::k44;
  if (name == "ML-DSA-65") return Level::k65;
  if (name == "ML-DSA-87") return Level::k87;
  ADD_FAILURE() << "unknown parameter set " << name;
  return Level::k44;
}

std::optional<PreHash> parse_prehash(const std::string& name) {
  static const std::pair<const char*, PreHash> kNames[] = {
      {"SHA2-224", PreHash::sha2_224},         {"SHA2-256", PreHash::sha2_256},
      {"SHA2-384", PreHash::sha2_384},         {"SHA2-512", PreHash::sha2_512},
      {"SHA2-512/224", PreHash::sha2_512_224}, {"SHA2-512/256", PreHash::sha2_512_256},
      {"SHA3-224", PreHash::sha3_224},         {"SHA3-256", PreHash::sha3_256},
      {"SHA3-384", PreHash::sha3_384},         {"SHA3-512", PreHash::sha3_512},
      {"SHAKE-128", PreHash::shake128},        {"SHAKE-256", PreHash::shake256},
  };
  for (const auto& [text, value] : kNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

void report(const std::string& file, std::size_t count) {
  std::cout << "[ vectors  ] " << file << ": " << count << " cases run\n";
  ::testing::Test::RecordProperty("vectors_run", static_cast<int>(count));
  EXPECT_GT(count, 0U) << file << " is present but no case was run";
}

// ---- ACVP -------------------------------------------------------------------

class MlDsaAcvp : public ::testing::TestWithParam<std::string> {
 protected:
  testing::ScopedCpuFeatures cpu_{testing::cpu_path_features(GetParam())};
};

TEST_P(MlDsaAcvp, KeyGen) {
  LOAD_VECTORS_OR_SKIP(doc, "acvp/ml-dsa-keygen.json");
  std::size_t count = 0;
  for (const auto& group : doc.at("testGroups")) {
    const Level level = parse_level(group.at("parameterSet"));
    for (const auto& test : group.at("tests")) {
      SCOPED_TRACE("tcId " + std::to_string(test.at("tcId").get<int>()));
      const auto seed = fixed<kSeedBytes>(hex(test.at("seed")));
      ASSERT_TRUE(seed);
      const KeyPair keys = keygen(level, *seed);
      EXPECT_EQ(keys.public_key, hex(test.at("pk")));
      const Bytes sk = hex(test.at("sk"));
      EXPECT_TRUE(std::equal(sk.begin(), sk.end(), keys.secret_key.bytes().begin(),
                             keys.secret_key.bytes().end()));
      ++count;
    }
  }
  report("acvp/ml-dsa-keygen.json", count);
}

TEST_P(MlDsaAcvp, SigGen) {
  LOAD_VECTORS_OR_SKIP(doc, "acvp/ml-dsa-siggen.json");
  std::size_t count = 0;
  for (const auto& group : doc.at("testGroups")) {
    const Level level = parse_level(group.at("parameterSet"));
    const bool internal = group.at("signatureInterface") == "internal";
    const bool prehashed = group.at("preHash") == "preHash";
    const bool external_mu_given = group.at("externalMu").get<bool>();
    const bool deterministic = group.at("deterministic").get<bool>();
    for (const auto& test : group.at("tests")) {
      SCOPED_TRACE("tgId " + std::to_string(group.at("tgId").get<int>()) + " tcId " +
                   std::to_string(test.at("tcId").get<int>()));
      auto sk = SecretKey::from_bytes(level, hex(test.at("sk")));
      ASSERT_TRUE(sk.ok()) << sk.error().to_string();
      Rnd rnd{};
      if (!deterministic) {
        const auto given = fixed<kRndBytes>(hex(test.at("rnd")));
        ASSERT_TRUE(given);
        rnd = *given;
      }
      base::Result<Bytes> sig = Bytes{};
      if (internal && external_mu_given) {
        const auto mu = fixed<kMuBytes>(hex(test.at("mu")));
        ASSERT_TRUE(mu);
        sig = sign_mu(*sk, *mu, rnd);
      } else if (internal) {
        sig = sign_internal(*sk, hex(test.at("message")), rnd);
      } else if (prehashed) {
        const auto hash = parse_prehash(test.at("hashAlg"));
        ASSERT_TRUE(hash) << test.at("hashAlg");
        sig = hash_sign(*sk, hex(test.at("message")), hex(test.at("context")), *hash, rnd);
      } else {
        sig = sign(*sk, hex(test.at("message")), hex(test.at("context")), rnd);
      }
      ASSERT_TRUE(sig.ok()) << sig.error().to_string();
      EXPECT_EQ(*sig, hex(test.at("signature")));
      ++count;
    }
  }
  report("acvp/ml-dsa-siggen.json", count);
}

TEST_P(MlDsaAcvp, SigVer) {
  LOAD_VECTORS_OR_SKIP(doc, "acvp/ml-dsa-sigver.json");
  std::size_t count = 0;
  for (const auto& group : doc.at("testGroups")) {
    const Level level = parse_level(group.at("parameterSet"));
    const bool internal = group.at("signatureInterface") == "internal";
    const bool prehashed = group.at("preHash") == "preHash";
    const bool external_mu_given = group.at("externalMu").get<bool>();
    for (const auto& test : group.at("tests")) {
      SCOPED_TRACE("tgId " + std::to_string(group.at("tgId").get<int>()) + " tcId " +
                   std::to_string(test.at("tcId").get<int>()) + " (" +
                   test.at("reason").get<std::string>() + ")");
      const Bytes pk = hex(test.at("pk"));
      const Bytes sig = hex(test.at("signature"));
      bool accepted = false;
      if (internal && external_mu_given) {
        const auto mu = fixed<kMuBytes>(hex(test.at("mu")));
        ASSERT_TRUE(mu);
        accepted = verify_mu(level, pk, *mu, sig);
      } else if (internal) {
        accepted = verify_internal(level, pk, hex(test.at("message")), sig);
      } else if (prehashed) {
        const auto hash = parse_prehash(test.at("hashAlg"));
        ASSERT_TRUE(hash) << test.at("hashAlg");
        accepted = hash_verify(level, pk, hex(test.at("message")), hex(test.at("context")),
                               *hash, sig);
      } else {
        accepted = verify(level, pk, hex(test.at("message")), hex(test.at("context")), sig);
      }
      EXPECT_EQ(accepted, test.at("testPassed").get<bool>());
      ++count;
    }
  }
  report("acvp/ml-dsa-sigver.json", count);
}

INSTANTIATE_TEST_SUITE_P(Paths, MlDsaAcvp, ::testing::ValuesIn(testing::cpu_path_names()),
                         [](const auto& param_info) { return param_info.param; });

// ---- Wycheproof ---------------------------------------------------------------

// "valid" must be accepted and "invalid" rejected; "acceptable" (unused by
// these files) may go either way.
enum class Expect { valid, invalid, either };

Expect expectation(const json& test) {
  const std::string result = test.at("result");
  if (result == "valid") return Expect::valid;
  if (result == "invalid") return Expect::invalid;
  EXPECT_EQ(result, "acceptable");
  return Expect::either;
}

Bytes optional_hex(const json& test, const char* field) {
  return test.contains(field) ? hex(test.at(field)) : Bytes{};
}

// Signs one Wycheproof case with `sk` (pk, when known, also checks
// external_mu() and verify()) and compares with the expectation.
void check_wycheproof_sign(const json& test, Level level, const SecretKey& sk,
                           const Bytes& pk) {
  const Expect expect = expectation(test);
  Rnd rnd{};
  if (test.contains("rnd")) {
    const auto given = fixed<kRndBytes>(hex(test.at("rnd")));
    ASSERT_TRUE(given);
    rnd = *given;
  }
  base::Result<Bytes> sig = Bytes{};
  if (!test.contains("msg")) {  // flag Internal: sign mu with Sign_internal
    const auto mu = fixed<kMuBytes>(hex(test.at("mu")));
    ASSERT_TRUE(mu);
    sig = sign_mu(sk, *mu, rnd);
  } else {
    const Bytes msg = hex(test.at("msg"));
    const Bytes ctx = optional_hex(test, "ctx");
    sig = sign(sk, msg, ctx, rnd);
    if (sig.ok() && !pk.empty()) {
      EXPECT_TRUE(verify(level, pk, msg, ctx, *sig));
      if (test.contains("mu")) {
        const auto mu = external_mu(level, pk, msg, ctx);
        ASSERT_TRUE(mu.ok());
        EXPECT_EQ(Bytes(mu->begin(), mu->end()), hex(test.at("mu")));
      }
    }
  }
  if (expect == Expect::valid) {
    ASSERT_TRUE(sig.ok()) << sig.error().to_string();
    EXPECT_EQ(*sig, hex(test.at("sig")));
  } else if (expect == Expect::invalid) {
    EXPECT_FALSE(sig.ok());
  }
}

// Parameter: (level "44" / "65" / "87", dispatch path).
class MlDsaWycheproof
    : public ::testing::TestWithParam<std::tuple<const char*, std::string>> {
 protected:
  static std::string level() { return std::get<0>(GetParam()); }
  testing::ScopedCpuFeatures cpu_{testing::cpu_path_features(std::get<1>(GetParam()))};
};

TEST_P(MlDsaWycheproof, SignSeed) {
  const std::string file = std::string("wycheproof/mldsa_") + level() + "_sign_seed_test.json";
  LOAD_VECTORS_OR_SKIP(doc, file);
  const Level level = parse_level(doc.at("algorithm"));
  std::size_t count = 0;
  for (const auto& group : doc.at("testGroups")) {
    const Bytes seed_bytes = hex(group.at("privateSeed"));
    const Bytes pk = group.at("publicKey").is_null() ? Bytes{} : hex(group.at("publicKey"));
    for (const auto& test : group.at("tests")) {
      SCOPED_TRACE("tcId " + std::to_string(test.at("tcId").get<int>()) + " (" +
                   test.at("comment").get<std::string>() + ")");
      ++count;
      // keygen() takes exactly 32 bytes (Seed), so a seed of any other
      // length cannot become a key.
      const auto seed = fixed<kSeedBytes>(seed_bytes);
      if (!seed) {
        EXPECT_NE(expectation(test), Expect::valid);
        continue;
      }
      const KeyPair keys = keygen(level, *seed);
      if (!pk.empty()) {
        EXPECT_EQ(keys.public_key, pk);
      }
      check_wycheproof_sign(test, level, keys.secret_key, keys.public_key);
    }
  }
  report(file, count);
}

TEST_P(MlDsaWycheproof, SignNoSeed) {
  const std::string file =
      std::string("wycheproof/mldsa_") + level() + "_sign_noseed_test.json";
  LOAD_VECTORS_OR_SKIP(doc, file);
  const Level level = parse_level(doc.at("algorithm"));
  std::size_t count = 0;
  for (const auto& group : doc.at("testGroups")) {
    const Bytes sk_bytes = hex(group.at("privateKey"));
    const Bytes pk = group.at("publicKey").is_null() ? Bytes{} : hex(group.at("publicKey"));
    for (const auto& test : group.at("tests")) {
      SCOPED_TRACE("tcId " + std::to_string(test.at("tcId").get<int>()) + " (" +
                   test.at("comment").get<std::string>() + ")");
      ++count;
      auto sk = SecretKey::from_bytes(level, sk_bytes);
      if (!sk.ok()) {
        EXPECT_NE(expectation(test), Expect::valid) << sk.error().to_string();
        continue;
      }
      check_wycheproof_sign(test, level, *sk, pk);
    }
  }
  report(file, count);
}

TEST_P(MlDsaWycheproof, Verify) {
  const std::string file = std::string("wycheproof/mldsa_") + level() + "_verify_test.json";
  LOAD_VECTORS_OR_SKIP(doc, file);
  const Level level = parse_level(doc.at("algorithm"));
  std::size_t count = 0;
  for (const auto& group : doc.at("testGroups")) {
    const Bytes pk = hex(group.at("publicKey"));
    for (const auto& test : group.at("tests")) {
      SCOPED_TRACE("tcId " + std::to_string(test.at("tcId").get<int>()) + " (" +
                   test.at("comment").get<std::string>() + ")");
      ++count;
      const bool accepted =
          verify(level, pk, hex(test.at("msg")), optional_hex(test, "ctx"), hex(test.at("sig")));
      switch (expectation(test)) {
        case Expect::valid: EXPECT_TRUE(accepted); break;
        case Expect::invalid: EXPECT_FALSE(accepted); break;
        case Expect::either: break;
      }
    }
  }
  report(file, count);
}

INSTANTIATE_TEST_SUITE_P(Levels, MlDsaWycheproof,
                         ::testing::Combine(::testing::Values("44", "65", "87"),
                                            ::testing::ValuesIn(testing::cpu_path_names())),
                         [](const auto& param_info) {
                           return std::string("MlDsa") + std::get<0>(param_info.param) + "_" +
                                  std::get<1>(param_info.param);
                         });

}  // namespace
}  // namespace sion::crypto::mldsa
