// The conformance runner (sion/crypto/conformance.hpp): format detection,
// every kind of error, small hand-made ACVP and Wycheproof files with cases
// that pass, fail and are skipped, and every real vector file in
// shared/vectors when it is present.

#include "sion/crypto/conformance.hpp"

#include <gtest/gtest.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/crypto/classical.hpp"
#include "sion/crypto/mldsa.hpp"
#include "sion/crypto/slhdsa.hpp"

namespace sion::crypto {
namespace {

namespace fs = std::filesystem;
using base::Bytes;
using base::ByteView;
using base::Errc;
using nlohmann::json;

std::string upper_hex(ByteView bytes) {
  std::string text = base::to_hex(bytes);
  for (char& c : text) {
    if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

Bytes flipped(Bytes bytes, std::size_t at) {
  bytes.at(at) ^= 0x01;
  return bytes;
}

base::Result<ConformanceReport> run(const json& doc) { return run_conformance_text(doc.dump(), "inline.json"); }

// The error of running `text`, which must fail.
base::Error error_of(std::string_view text, std::string_view name = "bad.json") {
  base::Result<ConformanceReport> report = run_conformance_text(text, name);
  EXPECT_FALSE(report.ok()) << text;
  return report.ok() ? base::Error{} : std::move(report).error();
}

std::string failures_text(const ConformanceReport& report) {
  std::string text;
  for (const CaseNote& f : report.failures) {
    text += "  group " + std::to_string(f.group_id) + " tcId " + std::to_string(f.tc_id) + ": " + f.reason + "\n";
  }
  return text;
}

// ---------------------------------------------------------------------------
// Hand-made files

// ACVP ML-DSA keyGen: tcId 1 right, tcId 2 with one pk byte changed, tcId 3
// with a 31-byte seed.
json mldsa_keygen_file() {
  mldsa::Seed seed{};
  for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(i);
  const mldsa::KeyPair keys = mldsa::keygen(mldsa::Level::k44, seed);
  const Bytes sk(keys.secret_key.bytes().begin(), keys.secret_key.bytes().end());
  json tests = json::array();
  tests.push_back({{"tcId", 1}, {"seed", upper_hex(seed)}, {"pk", upper_hex(keys.public_key)}, {"sk", upper_hex(sk)}});
  tests.push_back({{"tcId", 2},
                   {"seed", upper_hex(seed)},
                   {"pk", upper_hex(flipped(keys.public_key, 100))},
                   {"sk", upper_hex(sk)}});
  tests.push_back({{"tcId", 3},
                   {"seed", upper_hex(ByteView(seed).first(31))},
                   {"pk", upper_hex(keys.public_key)},
                   {"sk", upper_hex(sk)}});
  return {{"format", "pqsig-acvp-merged-v1"},
          {"algorithm", "ML-DSA"},
          {"mode", "keyGen"},
          {"revision", "FIPS204"},
          {"testGroups", {{{"tgId", 7}, {"parameterSet", "ML-DSA-44"}, {"tests", tests}}}}};
}

TEST(Conformance, AcvpKeyGenPassAndFail) {
  const auto report = run(mldsa_keygen_file());
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->format, VectorFormat::acvp_merged);
  EXPECT_EQ(report->algorithm, "ML-DSA");
  EXPECT_EQ(report->mode, "keyGen");
  EXPECT_EQ(report->name, "inline.json");
  EXPECT_EQ(report->passed, 1U);
  EXPECT_EQ(report->failed, 2U);
  EXPECT_EQ(report->skipped, 0U);
  EXPECT_EQ(report->total(), 3U);
  ASSERT_EQ(report->failures.size(), 2U);
  EXPECT_EQ(report->failures[0].group_id, 7);
  EXPECT_EQ(report->failures[0].tc_id, 2);
  EXPECT_EQ(report->failures[0].reason, "pk differs from the expected value at byte 100 of 1312");
  EXPECT_EQ(report->failures[1].tc_id, 3);
  EXPECT_EQ(report->failures[1].reason, "seed is 31 bytes, not 32");
  ASSERT_EQ(report->groups.size(), 1U);
  EXPECT_EQ(report->groups[0].group_id, 7);
  EXPECT_EQ(report->groups[0].label, "ML-DSA-44");
  EXPECT_EQ(report->groups[0].parameter_set, "ML-DSA-44");
  EXPECT_EQ(report->groups[0].passed, 1U);
  EXPECT_EQ(report->groups[0].failed, 2U);
}

TEST(Conformance, AcvpUnknownParameterSetFailsItsCases) {
  json doc = mldsa_keygen_file();
  doc["testGroups"][0]["parameterSet"] = "ML-DSA-1024";
  const auto report = run(doc);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->passed, 0U);
  EXPECT_EQ(report->failed, 3U);
  EXPECT_NE(report->failures[0].reason.find("'ML-DSA-1024'"), std::string::npos);
}

// ACVP SLH-DSA sigVer (SHA2-128f, internal and external): the right
// signature, the same with a flipped byte under testPassed true (must fail)
// and under testPassed false (must pass).
TEST(Conformance, AcvpSlhDsaSigVer) {
  const auto set = slhdsa::ParameterSet::sha2_128f;
  const auto keys = slhdsa::keygen(set, Bytes(16, 1), Bytes(16, 2), Bytes(16, 3));
  ASSERT_TRUE(keys.ok());
  const Bytes message = {1, 2, 3};
  const Bytes context = {9};
  const auto internal_sig = slhdsa::sign_internal_deterministic(keys->secret_key, message);
  const auto external_sig = slhdsa::sign_deterministic(keys->secret_key, message, context);
  ASSERT_TRUE(internal_sig.ok() && external_sig.ok());
  const std::string pk = base::to_hex(keys->public_key.bytes());
  // Internal-interface cases carry no context (a field the runner does not
  // read is refused as unknown).
  auto test = [&](int tc, const Bytes& sig, bool passed) {
    json out{{"tcId", tc},
             {"pk", pk},
             {"message", base::to_hex(message)},
             {"signature", base::to_hex(sig)},
             {"testPassed", passed}};
    if (tc > 3) out["context"] = base::to_hex(context);
    return out;
  };
  const json doc = {{"format", "pqsig-acvp-merged-v1"},
                    {"algorithm", "SLH-DSA"},
                    {"mode", "sigVer"},
                    {"testGroups",
                     {{{"tgId", 1},
                       {"parameterSet", "SLH-DSA-SHA2-128f"},
                       {"signatureInterface", "internal"},
                       {"preHash", "none"},
                       {"tests",
                        {test(1, *internal_sig, true), test(2, flipped(*internal_sig, 40), true),
                         test(3, flipped(*internal_sig, 40), false)}}},
                      {{"tgId", 2},
                       {"parameterSet", "SLH-DSA-SHA2-128f"},
                       {"signatureInterface", "external"},
                       {"preHash", "pure"},
                       {"tests", {test(4, *external_sig, true), test(5, *internal_sig, true)}}},
                      {{"tgId", 3},
                       {"parameterSet", "SLH-DSA-SHA2-128f"},
                       {"signatureInterface", "external"},
                       {"preHash", "preHash"},
                       {"tests", {test(6, *external_sig, true)}}}}}};
  const auto report = run(doc);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->passed, 3U) << failures_text(*report);
  EXPECT_EQ(report->failed, 3U);
  ASSERT_EQ(report->failures.size(), 3U);
  EXPECT_EQ(report->failures[0].tc_id, 2);
  EXPECT_EQ(report->failures[0].group_id, 1);
  EXPECT_EQ(report->failures[0].reason, "signature rejected, but testPassed is true");
  EXPECT_EQ(report->failures[1].tc_id, 5);
  EXPECT_EQ(report->failures[2].tc_id, 6);
  EXPECT_NE(report->failures[2].reason.find("HashSLH-DSA"), std::string::npos);
  ASSERT_EQ(report->groups.size(), 3U);
  EXPECT_EQ(report->groups[0].label, "SLH-DSA-SHA2-128f internal");
  EXPECT_EQ(report->groups[1].label, "SLH-DSA-SHA2-128f external pure");
  EXPECT_EQ(report->groups[1].parameter_set, "SLH-DSA-SHA2-128f");
  EXPECT_EQ(report->groups[1].passed, 1U);
  EXPECT_EQ(report->groups[1].failed, 1U);
}

// ACVP ML-DSA sigGen, hedged, external pure and preHash: the given rnd
// gives the expected signature exactly.
TEST(Conformance, AcvpMlDsaSigGenHedged) {
  mldsa::Seed seed{};
  seed.fill(5);
  const mldsa::KeyPair keys = mldsa::keygen(mldsa::Level::k44, seed);
  mldsa::Rnd rnd{};
  rnd.fill(0xa5);
  const Bytes message = {0x61, 0x62, 0x63};
  const Bytes context = {};
  const auto pure = mldsa::sign(keys.secret_key, message, context, rnd);
  const auto hashed = mldsa::hash_sign(keys.secret_key, message, context, mldsa::PreHash::sha2_512_256, rnd);
  ASSERT_TRUE(pure.ok() && hashed.ok());
  const std::string sk = base::to_hex(keys.secret_key.bytes());
  const json doc = {{"format", "pqsig-acvp-merged-v1"},
                    {"algorithm", "ML-DSA"},
                    {"mode", "sigGen"},
                    {"testGroups",
                     {{{"tgId", 1},
                       {"parameterSet", "ML-DSA-44"},
                       {"signatureInterface", "external"},
                       {"preHash", "pure"},
                       {"externalMu", false},
                       {"deterministic", false},
                       {"tests",
                        {{{"tcId", 1},
                          {"sk", sk},
                          {"message", "616263"},
                          {"context", ""},
                          {"rnd", base::to_hex(rnd)},
                          {"signature", base::to_hex(*pure)}},
                         {{"tcId", 2},
                          {"sk", sk},
                          {"message", "616263"},
                          {"context", ""},
                          {"rnd", std::string(64, '0')},
                          {"signature", base::to_hex(*pure)}}}}},
                      {{"tgId", 2},
                       {"parameterSet", "ML-DSA-44"},
                       {"signatureInterface", "external"},
                       {"preHash", "preHash"},
                       {"externalMu", false},
                       {"deterministic", false},
                       {"tests",
                        {{{"tcId", 3},
                          {"sk", sk},
                          {"message", "616263"},
                          {"context", ""},
                          {"hashAlg", "SHA2-512/256"},
                          {"rnd", base::to_hex(rnd)},
                          {"signature", base::to_hex(*hashed)}},
                         {{"tcId", 4},
                          {"sk", sk},
                          {"message", "616263"},
                          {"context", ""},
                          {"hashAlg", "MD5"},
                          {"rnd", base::to_hex(rnd)},
                          {"signature", base::to_hex(*hashed)}}}}}}}};
  const auto report = run(doc);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->passed, 2U) << failures_text(*report);
  ASSERT_EQ(report->failed, 2U);
  EXPECT_EQ(report->failures[0].tc_id, 2);  // zero rnd: the deterministic signature
  EXPECT_NE(report->failures[0].reason.find("signature differs"), std::string::npos);
  EXPECT_EQ(report->failures[1].reason, "unknown hashAlg 'MD5'");
  EXPECT_EQ(report->groups[0].label, "ML-DSA-44 external pure hedged");
  EXPECT_EQ(report->groups[0].parameter_set, "ML-DSA-44");
  EXPECT_EQ(report->groups[1].label, "ML-DSA-44 external preHash hedged");
}

// Wycheproof Ed25519 (RFC 8032 Sec. 7.1 TEST 1): valid, a valid case whose
// signature was changed, an invalid one, an acceptable one with no flag the
// policy judges.
json ed25519_file() {
  const std::string pk = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
  const std::string sig =
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9"
      "b46bd25bf5f0595bbe24655141438e7a100b";
  std::string bad_sig = sig;
  bad_sig[0] = 'f';
  json tests = {
      {{"tcId", 1},
       {"comment", "RFC 8032 TEST 1"},
       {"flags", {"Valid"}},
       {"msg", ""},
       {"sig", sig},
       {"result", "valid"}},
      {{"tcId", 2},
       {"comment", "changed R"},
       {"flags", json::array()},
       {"msg", ""},
       {"sig", bad_sig},
       {"result", "valid"}},
      {{"tcId", 3}, {"comment", "changed R"}, {"msg", ""}, {"sig", bad_sig}, {"result", "invalid"}},
      {{"tcId", 4}, {"comment", "either way"}, {"msg", ""}, {"sig", sig}, {"result", "acceptable"}},
  };
  return {{"algorithm", "EDDSA"},
          {"schema", "eddsa_verify_schema_v1.json"},
          {"numberOfTests", 4},
          {"testGroups",
           {{{"type", "EddsaVerify"},
             {"publicKey", {{"type", "EDDSAPublicKey"}, {"curve", "edwards25519"}, {"pk", pk}}},
             {"tests", tests}}}}};
}

TEST(Conformance, WycheproofEd25519PassFailSkip) {
  const auto report = run(ed25519_file());
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->format, VectorFormat::wycheproof);
  EXPECT_EQ(report->algorithm, "EDDSA");
  EXPECT_EQ(report->mode, "EddsaVerify");
  EXPECT_EQ(report->passed, 2U) << failures_text(*report);
  EXPECT_EQ(report->failed, 1U);
  EXPECT_EQ(report->skipped, 1U);
  ASSERT_EQ(report->failures.size(), 1U);
  EXPECT_EQ(report->failures[0].group_id, 1);
  EXPECT_EQ(report->failures[0].tc_id, 2);
  EXPECT_EQ(report->failures[0].reason, "valid signature rejected (changed R)");
  ASSERT_EQ(report->skips.size(), 1U);
  EXPECT_EQ(report->skips[0].tc_id, 4);
  EXPECT_EQ(report->skips[0].reason, "acceptable: accepted, not judged (either way)");
  EXPECT_EQ(report->notes.at(0), "4 cases: 2 valid, 1 invalid, 1 acceptable");
}

TEST(Conformance, WycheproofDetectedWithoutSchemaByGroupType) {
  json doc = ed25519_file();
  doc.erase("schema");
  const auto report = run(doc);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->format, VectorFormat::wycheproof);
}

// r || s as a DER Ecdsa-Sig-Value; `long_form` writes the SEQUENCE length
// in BER long form (0x81 len), which strict DER refuses.
Bytes der_signature(ByteView p1363, bool long_form = false) {
  Bytes body;
  for (const ByteView half : {p1363.first(32), p1363.last(32)}) {
    std::size_t skip = 0;
    while (skip < 31 && half[skip] == 0) ++skip;
    Bytes integer(half.begin() + static_cast<std::ptrdiff_t>(skip), half.end());
    if (integer[0] & 0x80) integer.insert(integer.begin(), 0);
    body.push_back(0x02);
    body.push_back(static_cast<std::uint8_t>(integer.size()));
    body.insert(body.end(), integer.begin(), integer.end());
  }
  Bytes out = {0x30};
  if (long_form) out.push_back(0x81);
  out.push_back(static_cast<std::uint8_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// The uncompressed form of a compressed P-256 key (via OpenSSL).
Bytes p256_uncompressed(ByteView compressed) {
  EC_GROUP* group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  EC_POINT* point = EC_POINT_new(group);
  Bytes out(65);
  EXPECT_EQ(EC_POINT_oct2point(group, point, compressed.data(), compressed.size(), nullptr), 1);
  EXPECT_EQ(EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, out.data(), out.size(), nullptr),
            out.size());
  EC_POINT_free(point);
  EC_GROUP_free(group);
  return out;
}

// Wycheproof ECDSA P-256 (DER): a low-S signature, its high-S twin (valid
// for Wycheproof, refused by the strict verifier), acceptable BER cases that
// Sion's policy says must be rejected, and a valid signature marked invalid.
TEST(Conformance, WycheproofEcdsaHighSAndAcceptablePolicy) {
  p256::SecretKey secret{};
  secret[31] = 7;
  const Bytes msg = {0x31, 0x32, 0x33};
  const auto sig = p256::sign(secret, msg);
  const auto pk = p256::keygen(secret);
  ASSERT_TRUE(sig.ok() && pk.ok());
  // (r, n - s)
  const Bytes n = *base::from_hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
  Bytes twin(sig->begin(), sig->end());
  int borrow = 0;
  for (std::size_t i = 32; i-- > 0;) {
    const int diff = int{n[i]} - int{(*sig)[32 + i]} - borrow;
    twin[32 + i] = static_cast<std::uint8_t>(diff & 0xff);
    borrow = diff < 0 ? 1 : 0;
  }
  const std::string m = base::to_hex(msg);
  const std::string low = base::to_hex(der_signature(*sig));
  const std::string high = base::to_hex(der_signature(twin));
  const std::string ber = base::to_hex(der_signature(*sig, true));
  const json ber_flag = {"BerEncodedSignature"};
  const json doc = {{"algorithm", "ECDSA"},
                    {"schema", "ecdsa_verify_schema_v1.json"},
                    {"numberOfTests", 5},
                    {"testGroups",
                     {{{"type", "EcdsaVerify"},
                       {"sha", "SHA-256"},
                       {"publicKey", {{"curve", "secp256r1"}, {"uncompressed", base::to_hex(p256_uncompressed(*pk))}}},
                       {"tests",
                        {{{"tcId", 1}, {"msg", m}, {"sig", low}, {"result", "valid"}},
                         {{"tcId", 2}, {"msg", m}, {"sig", high}, {"result", "valid"}},
                         {{"tcId", 3}, {"msg", m}, {"sig", ber}, {"flags", ber_flag}, {"result", "acceptable"}},
                         {{"tcId", 4}, {"msg", m}, {"sig", low}, {"flags", ber_flag}, {"result", "acceptable"}},
                         {{"tcId", 5}, {"msg", m}, {"sig", high}, {"result", "invalid"}}}}}}}};
  const auto report = run(doc);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->mode, "EcdsaVerify");
  EXPECT_EQ(report->passed, 3U) << failures_text(*report);
  ASSERT_EQ(report->failed, 2U);
  EXPECT_EQ(report->failures[0].tc_id, 4);
  EXPECT_EQ(report->failures[0].reason, "acceptable signature accepted; Sion's policy for its flags is rejected");
  EXPECT_EQ(report->failures[1].tc_id, 5);
  EXPECT_EQ(report->failures[1].reason, "invalid signature accepted");
  EXPECT_EQ(report->groups.at(0).label, "EcdsaVerify secp256r1 SHA-256");
  EXPECT_EQ(report->groups.at(0).parameter_set, "secp256r1");
  // tcId 2 and 5 are high S, accepted by the permissive verifier only.
  EXPECT_EQ(report->notes.at(1), "2 accepted signatures with high S, refused by the strict verifier");
}

// Wycheproof ML-DSA sign with a seed: one group with a good seed (valid
// case right, valid case with a changed expected signature), one with a
// 31-byte seed (an invalid case passes, a valid one cannot).
TEST(Conformance, WycheproofMlDsaSignSeed) {
  mldsa::Seed seed{};
  seed.fill(0x42);
  const mldsa::KeyPair keys = mldsa::keygen(mldsa::Level::k65, seed);
  const Bytes msg = {0x48, 0x69};
  const auto sig = mldsa::sign_deterministic(keys.secret_key, msg, {});
  const auto mu = mldsa::external_mu(mldsa::Level::k65, keys.public_key, msg, {});
  ASSERT_TRUE(sig.ok() && mu.ok());
  const json doc = {
      {"algorithm", "ML-DSA-65"},
      {"schema", "mldsa_sign_seed_schema.json"},
      {"testGroups",
       {{{"type", "MlDsaSign"},
         {"privateSeed", base::to_hex(seed)},
         {"publicKey", base::to_hex(keys.public_key)},
         {"tests",
          {{{"tcId", 1}, {"msg", "4869"}, {"mu", base::to_hex(*mu)}, {"sig", base::to_hex(*sig)}, {"result", "valid"}},
           {{"tcId", 2}, {"msg", "4869"}, {"sig", base::to_hex(flipped(*sig, 3000))}, {"result", "valid"}},
           {{"tcId", 3}, {"mu", base::to_hex(*mu)}, {"sig", base::to_hex(*sig)}, {"result", "valid"}}}}},
        {{"type", "MlDsaSign"},
         {"privateSeed", base::to_hex(ByteView(seed).first(31))},
         {"publicKey", nullptr},
         {"tests",
          {{{"tcId", 4}, {"msg", "4869"}, {"sig", ""}, {"result", "invalid"}},
           {{"tcId", 5}, {"msg", "4869"}, {"sig", ""}, {"result", "valid"}}}}}}}};
  const auto report = run(doc);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->passed, 3U) << failures_text(*report);
  ASSERT_EQ(report->failed, 2U);
  EXPECT_EQ(report->failures[0].tc_id, 2);
  EXPECT_EQ(report->failures[0].reason, "sig differs from the expected value at byte 3000 of 3309");
  EXPECT_EQ(report->failures[1].group_id, 2);
  EXPECT_EQ(report->failures[1].tc_id, 5);
  EXPECT_EQ(report->failures[1].reason, "valid case, but privateSeed is 31 bytes; keygen takes exactly 32");
  EXPECT_EQ(report->groups.at(0).label, "MlDsaSign ML-DSA-65 privateSeed");
  EXPECT_EQ(report->groups.at(0).parameter_set, "ML-DSA-65");
}

TEST(Conformance, FilterByParameterSetAndCaseCount) {
  json doc = mldsa_keygen_file();
  json second = doc["testGroups"][0];
  second["tgId"] = 8;
  second["parameterSet"] = "ML-DSA-65";
  doc["testGroups"].push_back(second);  // wrong keys for ML-DSA-65: every case fails

  ConformanceFilter only_44;
  only_44.parameter_set = "ML-DSA-44";
  const auto report = run_conformance_text(doc.dump(), "inline.json", only_44);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->total(), 3U);
  ASSERT_EQ(report->groups.size(), 1U);
  EXPECT_EQ(report->groups[0].group_id, 7);

  ConformanceFilter first_case;
  first_case.max_cases_per_group = 1;
  const auto firsts = run_conformance_text(doc.dump(), "inline.json", first_case);
  ASSERT_TRUE(firsts.ok()) << firsts.error().to_string();
  EXPECT_EQ(firsts->passed, 1U);
  EXPECT_EQ(firsts->failed, 1U);  // tgId 8 tcId 1
  EXPECT_EQ(firsts->failures.at(0).group_id, 8);

  ConformanceFilter none;
  none.parameter_set = "ML-DSA-87";
  const auto nothing = run_conformance_text(doc.dump(), "inline.json", none);
  ASSERT_FALSE(nothing.ok());
  EXPECT_EQ(nothing.error().reason, "inline.json: the file holds no test case for 'ML-DSA-87'");

  // numberOfTests describes the whole file, so a filtered run does not check it.
  const auto wycheproof = run_conformance_text(ed25519_file().dump(), "w.json", first_case);
  ASSERT_TRUE(wycheproof.ok()) << wycheproof.error().to_string();
  EXPECT_EQ(wycheproof->total(), 1U);
}

// ---------------------------------------------------------------------------
// Errors

TEST(ConformanceErrors, NotJson) {
  const base::Error e = error_of("this is not JSON\n", "notes.txt");
  EXPECT_EQ(e.code, Errc::invalid_value);
  EXPECT_EQ(e.reason.rfind("notes.txt: not JSON: parse error at line 1, column 2", 0), 0U) << e.reason;
  EXPECT_EQ(error_of("").reason.rfind("bad.json: not JSON: ", 0), 0U);
  EXPECT_EQ(error_of("{\"format\": ").reason.rfind("bad.json: not JSON: ", 0), 0U);
}

TEST(ConformanceErrors, UnknownFormat) {
  for (const char* text :
       {R"({"hello": 1})", R"([1, 2])", R"("text")", R"({"algorithm": "EDDSA", "testGroups": []})"}) {
    const base::Error e = error_of(text);
    EXPECT_EQ(e.code, Errc::invalid_value) << text;
    EXPECT_EQ(e.reason.rfind("bad.json: unknown format", 0), 0U) << e.reason;
  }
  const base::Error other = error_of(R"({"format": "pqsig-acvp-merged-v2", "testGroups": []})");
  EXPECT_EQ(other.code, Errc::unsupported);
  EXPECT_EQ(other.reason,
            "bad.json: unknown format 'pqsig-acvp-merged-v2' (known: pqsig-acvp-merged-v1 and "
            "Wycheproof)");
}

TEST(ConformanceErrors, UnsupportedAlgorithmModeOrType) {
  const base::Error algorithm = error_of(
      R"({"format": "pqsig-acvp-merged-v1", "algorithm": "FN-DSA", "mode": "sigVer",
          "testGroups": []})");
  EXPECT_EQ(algorithm.code, Errc::unsupported);
  EXPECT_NE(algorithm.reason.find("'FN-DSA'"), std::string::npos) << algorithm.reason;
  const base::Error mode = error_of(
      R"({"format": "pqsig-acvp-merged-v1", "algorithm": "ML-DSA", "mode": "sigGenX",
          "testGroups": []})");
  EXPECT_EQ(mode.code, Errc::unsupported);
  EXPECT_NE(mode.reason.find("'sigGenX'"), std::string::npos) << mode.reason;
  const base::Error type = error_of(
      R"({"algorithm": "RSASSA-PSS", "schema": "rsassa_pss_verify_schema.json",
          "testGroups": [{"type": "RsassaPssVerify", "tests": []}]})");
  EXPECT_EQ(type.code, Errc::unsupported);
  EXPECT_EQ(type.reason.rfind("bad.json: Wycheproof test type 'RsassaPssVerify' in testGroups[0]", 0), 0U)
      << type.reason;
}

TEST(ConformanceErrors, MissingFieldIsNamed) {
  json doc = mldsa_keygen_file();
  doc["testGroups"][0]["tests"][1].erase("pk");
  base::Error e = error_of(doc.dump(), "keygen.json");
  EXPECT_EQ(e.code, Errc::invalid_value);
  EXPECT_EQ(e.reason, "keygen.json: missing field 'pk' in testGroups[0] (tgId 7), tests[1] (tcId 2)");

  doc = mldsa_keygen_file();
  doc.erase("testGroups");
  EXPECT_EQ(error_of(doc.dump(), "keygen.json").reason, "keygen.json: missing field 'testGroups'");

  doc = mldsa_keygen_file();
  doc["testGroups"][0].erase("parameterSet");
  EXPECT_EQ(error_of(doc.dump()).reason, "bad.json: missing field 'parameterSet' in testGroups[0] (tgId 7)");

  json wp = ed25519_file();
  wp["testGroups"][0]["publicKey"].erase("pk");
  EXPECT_EQ(error_of(wp.dump()).reason, "bad.json: missing field 'pk' in testGroups[0], publicKey");

  wp = ed25519_file();
  wp["testGroups"][0]["tests"][2].erase("result");
  EXPECT_EQ(error_of(wp.dump()).reason, "bad.json: missing field 'result' in testGroups[0], tests[2] (tcId 3)");
}

TEST(ConformanceErrors, WrongTypesAndBadHex) {
  json doc = mldsa_keygen_file();
  doc["testGroups"][0]["tests"][0]["tcId"] = "1";
  EXPECT_EQ(error_of(doc.dump()).reason,
            "bad.json: field 'tcId' in testGroups[0] (tgId 7), tests[0] is not an integer");

  doc = mldsa_keygen_file();
  doc["testGroups"][0]["tests"][0]["seed"] = "0g";
  const base::Error hex = error_of(doc.dump());
  EXPECT_EQ(hex.code, Errc::invalid_value);
  EXPECT_EQ(hex.reason.rfind("bad.json: field 'seed' in testGroups[0] (tgId 7), tests[0] "
                             "(tcId 1) is not hex: ",
                             0),
            0U)
      << hex.reason;

  doc = mldsa_keygen_file();
  doc["testGroups"][0]["tests"] = 5;
  EXPECT_EQ(error_of(doc.dump()).reason, "bad.json: field 'tests' in testGroups[0] (tgId 7) is not an array");

  doc = mldsa_keygen_file();
  doc["testGroups"][0] = 5;
  EXPECT_EQ(error_of(doc.dump()).reason, "bad.json: testGroups[0] is not a JSON object");

  json wp = ed25519_file();
  wp["testGroups"][0]["tests"][0]["result"] = "maybe";
  EXPECT_EQ(error_of(wp.dump()).reason,
            "bad.json: field 'result' in testGroups[0], tests[0] (tcId 1) is 'maybe'; expected "
            "one of 'valid', 'invalid', 'acceptable'");
}

// One strict reader (sion/base/json.hpp): a key twice and a field no
// judgement reads are errors; prose fields ("comment", "reason") are ignored.
TEST(ConformanceErrors, DuplicateAndUnknownFields) {
  std::string text = ed25519_file().dump();
  text.insert(1, "\"algorithm\": \"EDDSA\", ");
  EXPECT_EQ(error_of(text).reason, "bad.json: $: duplicate field \"algorithm\"");

  json wp = ed25519_file();
  wp["testGroups"][0]["tests"][1]["extra"] = 1;
  EXPECT_EQ(error_of(wp.dump()).reason, "bad.json: unknown field 'extra' in testGroups[0], tests[1] (tcId 2)");
  wp = ed25519_file();
  wp["testGroups"][0]["tests"][1]["comment"] = "a note for people";
  EXPECT_TRUE(run_conformance_text(wp.dump(), "good.json").ok());

  json doc = mldsa_keygen_file();
  doc["testGroups"][0]["tests"][0]["reason"] = "prose";
  EXPECT_TRUE(run_conformance_text(doc.dump(), "good.json").ok());
  doc["testGroups"][0]["tests"][0]["tcId"] = 1.0;  // not an integer, never rounded
  EXPECT_EQ(error_of(doc.dump()).reason,
            "bad.json: field 'tcId' in testGroups[0] (tgId 7), tests[0] is not an integer");
}

TEST(ConformanceErrors, NoCasesOrWrongCount) {
  json doc = mldsa_keygen_file();
  doc["testGroups"] = json::array();
  EXPECT_EQ(error_of(doc.dump()).reason, "bad.json: the file holds no test case");

  json wp = ed25519_file();
  wp["numberOfTests"] = 5;
  EXPECT_EQ(error_of(wp.dump()).reason, "bad.json: numberOfTests is 5 but the file holds 4 tests");
}

TEST(ConformanceErrors, Files) {
  const fs::path missing = fs::temp_directory_path() / "sion_conformance_no_such_file.json";
  const auto absent = run_conformance_file(missing);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().code, Errc::not_found);
  EXPECT_EQ(absent.error().reason, "vector file '" + missing.string() + "': no such file");

  const auto directory = run_conformance_file(fs::temp_directory_path());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().code, Errc::invalid_argument);

  const fs::path path = fs::temp_directory_path() / ("sion_conformance_test_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path);
    out << ed25519_file().dump(2);
  }
  const auto report = run_conformance_file(path);
  fs::remove(path);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->name, path.string());
  EXPECT_EQ(report->total(), 4U);
}

// ---------------------------------------------------------------------------
// The real files

fs::path vectors_dir() {
  if (const char* env = std::getenv("SION_VECTORS_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return fs::path(SION_SOURCE_DIR) / ".." / "shared" / "vectors";
}

class ConformanceVectors : public ::testing::TestWithParam<const char*> {};

TEST_P(ConformanceVectors, RunsClean) {
  const fs::path dir = vectors_dir();
  if (!fs::is_directory(dir)) {
    GTEST_SKIP() << "conformance vectors not found: no directory " << dir
                 << " (set SION_VECTORS_DIR to the shared/vectors directory)";
  }
  const fs::path path = dir / GetParam();
  ASSERT_TRUE(fs::is_regular_file(path)) << path << " is missing";
  const auto report = run_conformance_file(path);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  const bool acvp = std::string_view(GetParam()).rfind("acvp/", 0) == 0;
  EXPECT_EQ(report->format, acvp ? VectorFormat::acvp_merged : VectorFormat::wycheproof);
  std::cout << "[ vectors  ] " << GetParam() << ": " << report->passed << " passed, " << report->failed << " failed, "
            << report->skipped << " skipped\n";
  for (const std::string& note : report->notes) std::cout << "[ vectors  ]   " << note << "\n";
  RecordProperty("vectors_passed", static_cast<int>(report->passed));
  EXPECT_GT(report->passed, 0U);
  EXPECT_EQ(report->failed, 0U) << failures_text(*report);
}

INSTANTIATE_TEST_SUITE_P(
    Files, ConformanceVectors,
    ::testing::Values("acvp/ml-dsa-keygen.json", "acvp/ml-dsa-siggen.json", "acvp/ml-dsa-sigver.json",
                      "acvp/slh-dsa-keygen.json", "acvp/slh-dsa-siggen.json", "acvp/slh-dsa-sigver.json",
                      "wycheproof/ed25519_test.json", "wycheproof/ecdsa_secp256r1_sha256_test.json",
                      "wycheproof/ecdsa_secp256r1_sha256_p1363_test.json", "wycheproof/mldsa_44_sign_seed_test.json",
                      "wycheproof/mldsa_44_sign_noseed_test.json", "wycheproof/mldsa_44_verify_test.json",
                      "wycheproof/mldsa_65_sign_seed_test.json", "wycheproof/mldsa_65_sign_noseed_test.json",
                      "wycheproof/mldsa_65_verify_test.json", "wycheproof/mldsa_87_sign_seed_test.json",
                      "wycheproof/mldsa_87_sign_noseed_test.json", "wycheproof/mldsa_87_verify_test.json"),
    [](const ::testing::TestParamInfo<const char*>& param_info) {
      std::string name = param_info.param;
      name = name.substr(0, name.rfind('.'));
      for (char& c : name) {
        if (c == '/' || c == '-' || c == '.') c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace sion::crypto
