#pragma once
// The conformance runner: runs every case of a signature test-vector file
// against this layer's ML-DSA, SLH-DSA, Ed25519 and ECDSA-P256 and says which
// cases passed, which failed and why. It reads the two formats of
// shared/vectors (its README.md describes them):
//
//  - ACVP merged, `"format": "pqsig-acvp-merged-v1"`: NIST ACVP prompts joined
//    with their expected results, for "ML-DSA" and "SLH-DSA", modes "keyGen",
//    "sigGen" and "sigVer";
//  - C2SP Wycheproof, unmodified: a document with "algorithm", "schema" and
//    "testGroups" whose groups have type "EddsaVerify" (Ed25519),
//    "EcdsaVerify" (P-256 / SHA-256, DER), "EcdsaP1363Verify" (P-256 /
//    SHA-256, r || s), "MlDsaSign" (key as "privateSeed" or "privateKey")
//    or "MlDsaVerify".
//
// How a case is judged
//
//  ACVP keyGen: the key pair from the seeds must equal pk and sk byte for
//    byte. A seed of the wrong length fails the case.
//  ACVP sigGen: the signature must equal the expected one byte for byte.
//    Deterministic groups sign with rnd = 0^32 (ML-DSA) or opt_rand =
//    PK.seed (SLH-DSA); hedged groups with the case's "rnd" (ML-DSA) or
//    "additionalRandomness" (SLH-DSA). ML-DSA groups choose the interface:
//    internal with externalMu (sign_mu on "mu"), internal (sign_internal on
//    "message" as M'), external preHash (hash_sign with "hashAlg") or
//    external pure (sign with "context"). SLH-DSA groups are internal
//    (sign_internal*) or external pure (sign*, which must also verify the
//    expected signature, as must verify_internal for internal groups); and
//    the case's "pk" must be the one the secret key holds.
//  ACVP sigVer: the verifier's verdict, through the same interfaces, must
//    equal "testPassed". SLH-DSA has internal and external pure groups.
//    SLH-DSA preHash groups (HashSLH-DSA) are not implemented: their cases
//    fail, saying so.
//  Wycheproof: "valid" must be accepted (signing: must succeed and give the
//    expected "sig" exactly) and "invalid" rejected (signing: must fail; an
//    ML-DSA seed that is not 32 bytes, or an encoded key that does not
//    decode, counts as rejected). ECDSA cases are verified with
//    HighS::accept, plain ECDSA as Wycheproof expects; every ECDSA case must
//    also give the same verdict with the compressed form of the key, and
//    the strict verifier (HighS::reject, the consensus rule) must say
//    "permissive verdict and s <= (n - 1) / 2". ML-DSA signing cases with a
//    public key must also verify, and their "mu" must equal external_mu().
//    "acceptable" cases (none in the current files) are judged by flag:
//    BerEncodedSignature, InvalidEncoding and MissingZero must be rejected,
//    since Sion parses strict DER; any other acceptable case is run and
//    counted as skipped, its verdict given as the reason.
//
// A case fails for every check it does not meet; it is skipped only as
// above. What makes the file itself unusable is an error instead of a
// report: unreadable, not JSON, neither format, an algorithm, mode, group
// type or curve this runner does not know (Errc::unsupported), a missing
// field or one of the wrong type or not hex, no test case at all, or a
// Wycheproof "numberOfTests" that does not match the cases. The message
// names the file and, for a field, the field and the case it is in.
//
// The runner uses whichever dispatch path (portable, AVX2, AVX-512) is
// active (sion/base/cpu.hpp). Nothing here throws.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"

namespace sion::crypto {

enum class VectorFormat : std::uint8_t {
  acvp_merged,  // "pqsig-acvp-merged-v1"
  wycheproof,
};

// "pqsig-acvp-merged-v1" or "wycheproof".
std::string_view vector_format_name(VectorFormat format) noexcept;

// One case that failed or was skipped.
struct CaseNote {
  std::int64_t group_id = 0;  // ACVP tgId; Wycheproof: the group's position, from 1
  std::int64_t tc_id = 0;     // tcId
  std::string reason;         // what went wrong, or why it was not judged
};

// The counts of one test group.
struct GroupCounts {
  std::int64_t group_id = 0;  // as in CaseNote
  // ACVP: the group's "parameterSet" ("ML-DSA-44", "SLH-DSA-SHA2-128s").
  // Wycheproof: the file's "algorithm" for ML-DSA ("ML-DSA-65"), the key's
  // curve for Ed25519 and ECDSA ("edwards25519", "secp256r1").
  std::string parameter_set;
  // For people: the parameter set and the group's flags, e.g.
  // "ML-DSA-44 external pure deterministic", "EcdsaVerify secp256r1 SHA-256".
  std::string label;
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
};

struct ConformanceReport {
  std::string name;  // the file's display name
  VectorFormat format = VectorFormat::acvp_merged;
  // The file's "algorithm": "ML-DSA", "SLH-DSA" (ACVP); "EDDSA", "ECDSA",
  // "ML-DSA-65" (Wycheproof).
  std::string algorithm;
  // ACVP: "mode" ("keyGen", "sigGen", "sigVer"). Wycheproof: the group types
  // found, comma-separated ("EcdsaVerify", "MlDsaSign").
  std::string mode;
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::vector<CaseNote> failures;   // every failed case, in file order
  std::vector<CaseNote> skips;      // every skipped case, with its reason
  std::vector<GroupCounts> groups;  // in file order
  // Facts worth printing that are not failures, e.g. how many valid ECDSA
  // signatures were high-S and correctly refused by the strict verifier.
  std::vector<std::string> notes;

  std::size_t total() const noexcept { return passed + failed + skipped; }
};

// Which cases to run; the default runs every case of the file.
struct ConformanceFilter {
  // Only the groups whose GroupCounts::parameter_set is this (e.g.
  // "SLH-DSA-SHA2-128s", "ML-DSA-65"); the others are not run or reported.
  // Empty: every group.
  std::string parameter_set;
  // At most this many cases of each group, the first in the file. 0: all.
  std::size_t max_cases_per_group = 0;
};
// With a filter, a Wycheproof "numberOfTests" is not checked, and a filter
// that selects no case is an error like a file without cases.

// Reads, detects and runs one vector file. The display name is the path.
base::Result<ConformanceReport> run_conformance_file(const std::filesystem::path& path,
                                                     const ConformanceFilter& filter = {});

// The same for a file already in memory; `name` is used in the report and in
// error messages.
base::Result<ConformanceReport> run_conformance_text(std::string_view text, std::string_view name,
                                                     const ConformanceFilter& filter = {});

}  // namespace sion::crypto
