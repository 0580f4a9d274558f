#include "sion/crypto/conformance.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/base/json.hpp"
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

constexpr std::string_view kAcvpFormat = "pqsig-acvp-merged-v1";
// The largest vector file read (the largest in shared/vectors is a few MB).
constexpr std::size_t kMaxVectorFileBytes = std::size_t{256} << 20;

std::string in_quotes(std::string_view text) { return base::quoted_path(text); }

// ---------------------------------------------------------------------------
// Reading JSON without exceptions. The first problem found in a file is kept;
// after it every read returns an empty value and the file is abandoned. The
// document comes from base::parse_json (a key twice in one object, deep
// nesting and numbers that are not exact integers are refused or kept
// apart there); each Obj records the fields it looked at, and finish()
// refuses any other field unless the caller names it as ignored.

class Problems {
 public:
  bool ok() const noexcept { return !error_.has_value(); }
  void add(Errc code, std::string message) {
    if (!error_) error_ = base::Error{code, std::move(message)};
  }
  base::Error take() { return std::move(*error_); }

 private:
  std::optional<base::Error> error_;
};

// A JSON object and where it sits in the file, e.g.
// "testGroups[0] (tgId 1), tests[3] (tcId 4)", for messages.
class Obj {
 public:
  Obj(const json& value, std::string where, Problems& problems)
      : value_(value.is_object() ? &value : nullptr), where_(std::move(where)), problems_(&problems) {
    if (value_ == nullptr) problems_->add(Errc::invalid_value, where_ + " is not a JSON object");
  }

  bool ok() const noexcept { return problems_->ok(); }
  const std::string& where() const noexcept { return where_; }
  void add_to_where(const std::string& text) { where_ += text; }

  // The value of `key`, or nullptr when it is absent or null. The field
  // counts as known from now on (finish()).
  const json* find(const char* key) const {
    if (value_ == nullptr) return nullptr;
    read_.emplace(key);
    const auto it = value_->find(key);
    if (it == value_->end() || it->is_null()) return nullptr;
    return &*it;
  }
  bool has(const char* key) const { return find(key) != nullptr; }

  // Present and non-null, or a "missing field" problem.
  const json* need(const char* key) const {
    if (!ok()) return nullptr;
    const json* value = find(key);
    if (value == nullptr) problems_->add(Errc::invalid_value, "missing field " + field(key));
    return value;
  }

  std::string str(const char* key) const {
    const json* value = need(key);
    if (value == nullptr) return {};
    if (!value->is_string()) {
      wrong_type(key, "a string");
      return {};
    }
    return value->get_ref<const std::string&>();
  }

  // The string if present, `fallback` if absent.
  std::string str_or(const char* key, std::string fallback) const { return has(key) ? str(key) : fallback; }

  // `key` must be one of `allowed`.
  std::string one_of(const char* key, std::initializer_list<std::string_view> allowed) const {
    std::string value = str(key);
    if (!ok()) return value;
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      std::string list;
      for (const std::string_view a : allowed) list += (list.empty() ? "" : ", ") + in_quotes(a);
      problems_->add(Errc::invalid_value,
                     "field " + field(key) + " is " + in_quotes(value) + "; expected one of " + list);
    }
    return value;
  }

  bool boolean(const char* key) const {
    const json* value = need(key);
    if (value == nullptr) return false;
    if (!value->is_boolean()) {
      wrong_type(key, "true or false");
      return false;
    }
    return value->get<bool>();
  }

  std::int64_t integer(const char* key) const {
    const json* value = need(key);
    if (value == nullptr) return 0;
    if (!value->is_number_integer()) {
      wrong_type(key, "an integer");
      return 0;
    }
    return value->get<std::int64_t>();
  }

  // A hex string (either case; "" is zero bytes).
  Bytes hex(const char* key) const {
    const std::string text = str(key);
    if (!ok()) return {};
    base::Result<Bytes> bytes = base::from_hex(text);
    if (!bytes) {
      problems_->add(Errc::invalid_value, "field " + field(key) + " is not hex: " + bytes.error().reason);
      return {};
    }
    return std::move(bytes).value();
  }

  Bytes hex_or_empty(const char* key) const { return has(key) ? hex(key) : Bytes{}; }

  const json& array(const char* key) const {
    static const json kEmpty = json::array();
    const json* value = need(key);
    if (value == nullptr) return kEmpty;
    if (!value->is_array()) {
      wrong_type(key, "an array");
      return kEmpty;
    }
    return *value;
  }

  // An optional array of strings (Wycheproof "flags").
  std::vector<std::string> strings_or_empty(const char* key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    for (const json& item : array(key)) {
      if (!item.is_string()) {
        wrong_type(key, "an array of strings");
        return {};
      }
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  Obj object(const char* key) const {
    static const json kEmpty = json::object();
    const json* value = need(key);
    return Obj(value == nullptr ? kEmpty : *value, join(key), *problems_);
  }

  // After the object was read: "unknown field 'k' in <where>" for a field
  // neither looked at nor in `ignored` (fields the formats carry for people
  // or other tools, which this runner has no use for).
  void finish(std::initializer_list<std::string_view> ignored) const {
    if (value_ == nullptr || !ok()) return;
    for (const auto& item : value_->items()) {
      const std::string& key = item.key();
      if (read_.count(key) != 0 || std::find(ignored.begin(), ignored.end(), key) != ignored.end()) continue;
      problems_->add(Errc::invalid_value, "unknown field " + field(key.c_str()));
      return;
    }
  }

  // An element of one of this object's arrays, called `name` ("tests[3]").
  Obj element(const json& value, const std::string& name) const { return Obj(value, join(name), *problems_); }

 private:
  std::string join(const std::string& name) const { return where_.empty() ? name : where_ + ", " + name; }
  std::string field(const char* key) const { return in_quotes(key) + (where_.empty() ? "" : " in " + where_); }
  void wrong_type(const char* key, const char* expected) const {
    problems_->add(Errc::invalid_value, "field " + field(key) + " is not " + expected);
  }

  const json* value_;
  std::string where_;
  Problems* problems_;
  mutable std::set<std::string, std::less<>> read_;
};

// ---------------------------------------------------------------------------
// Judging one case, and counting.

// What one case showed: every check it failed, or why it was not judged.
class Checks {
 public:
  void fail(std::string_view what) {
    if (!failures_.empty()) failures_ += "; ";
    failures_ += what;
  }
  void expect(bool condition, std::string_view what) {
    if (!condition) fail(what);
  }
  // Byte-exact comparison with the expected value.
  void compare(std::string_view what, ByteView got, ByteView want) {
    if (got.size() != want.size()) {
      fail(std::string(what) + " is " + std::to_string(got.size()) + " bytes, expected " + std::to_string(want.size()));
      return;
    }
    const auto diff = std::mismatch(got.begin(), got.end(), want.begin());
    if (diff.first != got.end()) {
      fail(std::string(what) + " differs from the expected value at byte " + std::to_string(diff.first - got.begin()) +
           " of " + std::to_string(got.size()));
    }
  }
  void skip(std::string why) { skip_ = std::move(why); }

  bool failed() const noexcept { return !failures_.empty(); }
  bool skipped() const noexcept { return !skip_.empty(); }
  std::string& failures() noexcept { return failures_; }
  std::string& skip_reason() noexcept { return skip_; }

 private:
  std::string failures_;
  std::string skip_;
};

class Recorder {
 public:
  Recorder(ConformanceReport& report, const ConformanceFilter& filter) : report_(report), filter_(filter) {}

  // Starts a group; its cases run only if the filter selects its parameter set.
  void begin_group(std::int64_t id, std::string parameter_set, std::string label) {
    cases_ = 0;
    active_ = filter_.parameter_set.empty() || filter_.parameter_set == parameter_set;
    if (!active_) return;
    GroupCounts group;
    group.group_id = id;
    group.parameter_set = std::move(parameter_set);
    group.label = std::move(label);
    report_.groups.push_back(std::move(group));
  }

  // Whether the next case of the current group is to run.
  bool wants_case() const noexcept {
    return active_ && (filter_.max_cases_per_group == 0 || cases_ < filter_.max_cases_per_group);
  }

  void record(std::int64_t tc_id, Checks& checks) {
    ++cases_;
    GroupCounts& group = report_.groups.back();
    if (checks.failed()) {
      ++report_.failed;
      ++group.failed;
      report_.failures.push_back({group.group_id, tc_id, std::move(checks.failures())});
    } else if (checks.skipped()) {
      ++report_.skipped;
      ++group.skipped;
      report_.skips.push_back({group.group_id, tc_id, std::move(checks.skip_reason())});
    } else {
      ++report_.passed;
      ++group.passed;
    }
  }

 private:
  ConformanceReport& report_;
  const ConformanceFilter& filter_;
  bool active_ = false;
  std::size_t cases_ = 0;  // run in the current group
};

// Runs judge(test, checks) on every case of `group` and records each.
// Each case may hold only the fields judge() looks at and `ignored` (by
// default ACVP's "reason" and Wycheproof's "comment", prose for people, and
// Wycheproof's "flags", which only "acceptable" cases need).
template <class Judge>
void run_cases(const Obj& group, Recorder& recorder, Judge&& judge,
               std::initializer_list<std::string_view> ignored = {"reason", "comment", "flags"}) {
  const json& tests = group.array("tests");
  for (std::size_t i = 0; i < tests.size() && group.ok() && recorder.wants_case(); ++i) {
    Obj test = group.element(tests[i], "tests[" + std::to_string(i) + "]");
    const std::int64_t tc_id = test.integer("tcId");
    if (!test.ok()) return;
    test.add_to_where(" (tcId " + std::to_string(tc_id) + ")");
    Checks checks;
    judge(test, checks);
    test.finish(ignored);
    if (!test.ok()) return;
    recorder.record(tc_id, checks);
  }
}

template <std::size_t N>
std::optional<base::ByteArray<N>> fixed(const Bytes& bytes) {
  if (bytes.size() != N) return std::nullopt;
  base::ByteArray<N> out;
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

std::string wrong_length(std::string_view what, std::size_t got, std::size_t want) {
  return std::string(what) + " is " + std::to_string(got) + " bytes, not " + std::to_string(want);
}

std::string verdict_name(bool accepted) { return accepted ? "accepted" : "rejected"; }

// ---------------------------------------------------------------------------
// Parameter names

std::optional<mldsa::Level> mldsa_level(std::string_view name) {
  if (name == "ML-DSA-44") return mldsa::Level::k44;
  if (name == "ML-DSA-65") return mldsa::Level::k65;
  if (name == "ML-DSA-87") return mldsa::Level::k87;
  return std::nullopt;
}

// ACVP hashAlg names (shared/vectors/README.md).
std::optional<mldsa::PreHash> mldsa_prehash(std::string_view name) {
  using mldsa::PreHash;
  static constexpr std::pair<std::string_view, PreHash> kNames[] = {
      {"SHA2-224", PreHash::sha2_224}, {"SHA2-256", PreHash::sha2_256},         {"SHA2-384", PreHash::sha2_384},
      {"SHA2-512", PreHash::sha2_512}, {"SHA2-512/224", PreHash::sha2_512_224}, {"SHA2-512/256", PreHash::sha2_512_256},
      {"SHA3-224", PreHash::sha3_224}, {"SHA3-256", PreHash::sha3_256},         {"SHA3-384", PreHash::sha3_384},
      {"SHA3-512", PreHash::sha3_512}, {"SHAKE-128", PreHash::shake128},        {"SHAKE-256", PreHash::shake256},
  };
  for (const auto& [text, value] : kNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::string unknown_set(std::string_view name) {
  return "unknown parameter set " + in_quotes(name) + " (not implemented)";
}

// ---------------------------------------------------------------------------
// ACVP, ML-DSA

void acvp_mldsa_keygen(const Obj& group, std::int64_t tg_id, Recorder& recorder) {
  const std::string set = group.str("parameterSet");
  if (!group.ok()) return;
  const std::optional<mldsa::Level> level = mldsa_level(set);
  recorder.begin_group(tg_id, set, set);
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes seed = test.hex("seed");
    const Bytes pk = test.hex("pk");
    const Bytes sk = test.hex("sk");
    if (!test.ok()) return;
    if (!level) return checks.fail(unknown_set(set));
    const auto xi = fixed<mldsa::kSeedBytes>(seed);
    if (!xi) return checks.fail(wrong_length("seed", seed.size(), mldsa::kSeedBytes));
    const mldsa::KeyPair keys = mldsa::keygen(*level, *xi);
    checks.compare("pk", keys.public_key, pk);
    checks.compare("sk", keys.secret_key.bytes(), sk);
  });
}

// The group flags of ML-DSA sigGen and sigVer.
struct MlDsaGroup {
  std::string set;
  std::optional<mldsa::Level> level;
  bool internal = false;
  bool prehashed = false;
  bool external_mu = false;
  std::string label;
};

MlDsaGroup read_mldsa_group(const Obj& group) {
  MlDsaGroup g;
  g.set = group.str("parameterSet");
  g.level = mldsa_level(g.set);
  const std::string interface = group.one_of("signatureInterface", {"internal", "external"});
  const std::string prehash = group.one_of("preHash", {"pure", "preHash", "none"});
  g.external_mu = group.boolean("externalMu");
  g.internal = interface == "internal";
  g.prehashed = prehash == "preHash";
  g.label = g.set + " " + interface + (prehash == "none" ? "" : " " + prehash) + (g.external_mu ? " externalMu" : "");
  return g;
}

// The message inputs of an ML-DSA sigGen or sigVer case, as the group's
// interface reads them.
struct MlDsaInput {
  Bytes mu;
  Bytes message;
  Bytes context;
  std::string hash_alg;
};

MlDsaInput read_mldsa_input(const Obj& test, const MlDsaGroup& g) {
  MlDsaInput in;
  if (g.internal && g.external_mu) {
    in.mu = test.hex("mu");
    return in;
  }
  in.message = test.hex("message");
  if (g.internal) return in;
  in.context = test.hex("context");
  if (g.prehashed) in.hash_alg = test.str("hashAlg");
  return in;
}

void acvp_mldsa_siggen(const Obj& group, std::int64_t tg_id, Recorder& recorder) {
  const MlDsaGroup g = read_mldsa_group(group);
  const bool deterministic = group.boolean("deterministic");
  if (!group.ok()) return;
  recorder.begin_group(tg_id, g.set, g.label + (deterministic ? " deterministic" : " hedged"));
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes sk_bytes = test.hex("sk");
    const Bytes expected = test.hex("signature");
    const Bytes rnd_bytes = deterministic ? Bytes{} : test.hex("rnd");
    const MlDsaInput in = read_mldsa_input(test, g);
    if (!test.ok()) return;
    if (!g.level) return checks.fail(unknown_set(g.set));
    auto sk = mldsa::SecretKey::from_bytes(*g.level, sk_bytes);
    if (!sk) return checks.fail("sk does not decode: " + sk.error().to_string());
    mldsa::Rnd rnd{};
    if (!deterministic) {
      const auto given = fixed<mldsa::kRndBytes>(rnd_bytes);
      if (!given) return checks.fail(wrong_length("rnd", rnd_bytes.size(), mldsa::kRndBytes));
      rnd = *given;
    }
    base::Result<Bytes> sig = Bytes{};
    if (g.internal && g.external_mu) {
      const auto mu = fixed<mldsa::kMuBytes>(in.mu);
      if (!mu) return checks.fail(wrong_length("mu", in.mu.size(), mldsa::kMuBytes));
      sig = mldsa::sign_mu(*sk, *mu, rnd);
    } else if (g.internal) {
      sig = mldsa::sign_internal(*sk, in.message, rnd);
    } else if (g.prehashed) {
      const auto hash = mldsa_prehash(in.hash_alg);
      if (!hash) return checks.fail("unknown hashAlg " + in_quotes(in.hash_alg));
      sig = mldsa::hash_sign(*sk, in.message, in.context, *hash, rnd);
    } else {
      sig = mldsa::sign(*sk, in.message, in.context, rnd);
    }
    if (!sig) return checks.fail("signing failed: " + sig.error().to_string());
    checks.compare("signature", *sig, expected);
  });
}

void acvp_mldsa_sigver(const Obj& group, std::int64_t tg_id, Recorder& recorder) {
  const MlDsaGroup g = read_mldsa_group(group);
  if (!group.ok()) return;
  recorder.begin_group(tg_id, g.set, g.label);
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes pk = test.hex("pk");
    const Bytes sig = test.hex("signature");
    const bool expected = test.boolean("testPassed");
    const std::string reason = test.str_or("reason", "");
    const MlDsaInput in = read_mldsa_input(test, g);
    if (!test.ok()) return;
    if (!g.level) return checks.fail(unknown_set(g.set));
    bool accepted = false;
    if (g.internal && g.external_mu) {
      const auto mu = fixed<mldsa::kMuBytes>(in.mu);
      if (!mu) return checks.fail(wrong_length("mu", in.mu.size(), mldsa::kMuBytes));
      accepted = mldsa::verify_mu(*g.level, pk, *mu, sig);
    } else if (g.internal) {
      accepted = mldsa::verify_internal(*g.level, pk, in.message, sig);
    } else if (g.prehashed) {
      const auto hash = mldsa_prehash(in.hash_alg);
      if (!hash) return checks.fail("unknown hashAlg " + in_quotes(in.hash_alg));
      accepted = mldsa::hash_verify(*g.level, pk, in.message, in.context, *hash, sig);
    } else {
      accepted = mldsa::verify(*g.level, pk, in.message, in.context, sig);
    }
    if (accepted != expected) {
      checks.fail("signature " + verdict_name(accepted) + ", but testPassed is " + (expected ? "true" : "false") +
                  (reason.empty() ? "" : " (" + reason + ")"));
    }
  });
}

// ---------------------------------------------------------------------------
// ACVP, SLH-DSA

void acvp_slhdsa_keygen(const Obj& group, std::int64_t tg_id, Recorder& recorder) {
  const std::string set_name = group.str("parameterSet");
  if (!group.ok()) return;
  const auto set = slhdsa::parameter_set_from_name(set_name);
  recorder.begin_group(tg_id, set_name, set_name);
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes sk_seed = test.hex("skSeed");
    const Bytes sk_prf = test.hex("skPrf");
    const Bytes pk_seed = test.hex("pkSeed");
    const Bytes sk = test.hex("sk");
    const Bytes pk = test.hex("pk");
    if (!test.ok()) return;
    if (!set) return checks.fail(unknown_set(set_name));
    const auto keys = slhdsa::keygen(*set, sk_seed, sk_prf, pk_seed);
    if (!keys) return checks.fail("keygen failed: " + keys.error().to_string());
    checks.compare("sk", keys->secret_key.bytes(), sk);
    checks.compare("pk", keys->public_key.bytes(), pk);
  });
}

// The group flags of SLH-DSA sigGen and sigVer. The files hold pure and
// internal groups only; HashSLH-DSA (FIPS 205 Alg. 23) is not implemented,
// so a preHash group's cases fail with `unsupported` as the reason.
struct SlhDsaGroup {
  std::string set_name;
  std::optional<slhdsa::ParameterSet> set;
  bool external = false;
  std::string unsupported;
  std::string label;
};

SlhDsaGroup read_slhdsa_group(const Obj& group) {
  SlhDsaGroup g;
  g.set_name = group.str("parameterSet");
  g.set = slhdsa::parameter_set_from_name(g.set_name);
  const std::string interface = group.one_of("signatureInterface", {"internal", "external"});
  const std::string prehash = group.one_of("preHash", {"pure", "preHash", "none"});
  g.external = interface == "external";
  if (prehash == "preHash") {
    g.unsupported = "preHash (HashSLH-DSA, FIPS 205 Alg. 23) is not implemented";
  } else if (prehash != (g.external ? "pure" : "none")) {
    g.unsupported = "preHash " + in_quotes(prehash) + " does not fit signatureInterface " + in_quotes(interface);
  }
  g.label = g.set_name + " " + interface + (prehash == "none" ? "" : " " + prehash);
  return g;
}

void acvp_slhdsa_siggen(const Obj& group, std::int64_t tg_id, Recorder& recorder) {
  const SlhDsaGroup g = read_slhdsa_group(group);
  const bool deterministic = group.boolean("deterministic");
  if (!group.ok()) return;
  recorder.begin_group(tg_id, g.set_name, g.label + (deterministic ? " deterministic" : " hedged"));
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes sk_bytes = test.hex("sk");
    const Bytes pk_bytes = test.hex("pk");
    const Bytes message = test.hex("message");
    const Bytes expected = test.hex("signature");
    const Bytes context = g.external ? test.hex("context") : Bytes{};
    const Bytes addrnd = deterministic ? Bytes{} : test.hex("additionalRandomness");
    if (!test.ok()) return;
    if (!g.set) return checks.fail(unknown_set(g.set_name));
    if (!g.unsupported.empty()) return checks.fail(g.unsupported);
    const auto sk = slhdsa::SecretKey::from_bytes(*g.set, sk_bytes);
    if (!sk) return checks.fail("sk does not decode: " + sk.error().to_string());
    const slhdsa::PublicKey pk = sk->public_key();
    checks.compare("pk (the last 2n bytes of sk)", pk.bytes(), pk_bytes);
    if (checks.failed()) return;
    base::Result<Bytes> sig = Bytes{};
    if (g.external) {
      sig = deterministic ? slhdsa::sign_deterministic(*sk, message, context)
                          : slhdsa::sign(*sk, message, context, addrnd);
      checks.expect(slhdsa::verify(pk, message, context, expected), "the expected signature does not verify");
    } else {
      sig = deterministic ? slhdsa::sign_internal_deterministic(*sk, message)
                          : slhdsa::sign_internal(*sk, message, addrnd);
      checks.expect(slhdsa::verify_internal(pk, message, expected), "the expected signature does not verify");
    }
    if (!sig) return checks.fail("signing failed: " + sig.error().to_string());
    checks.compare("signature", *sig, expected);
  });
}

void acvp_slhdsa_sigver(const Obj& group, std::int64_t tg_id, Recorder& recorder) {
  const SlhDsaGroup g = read_slhdsa_group(group);
  if (!group.ok()) return;
  recorder.begin_group(tg_id, g.set_name, g.label);
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes pk_bytes = test.hex("pk");
    const Bytes message = test.hex("message");
    const Bytes sig = test.hex("signature");
    const Bytes context = g.external ? test.hex("context") : Bytes{};
    const bool expected = test.boolean("testPassed");
    const std::string reason = test.str_or("reason", "");
    if (!test.ok()) return;
    if (!g.set) return checks.fail(unknown_set(g.set_name));
    if (!g.unsupported.empty()) return checks.fail(g.unsupported);
    const auto pk = slhdsa::PublicKey::from_bytes(*g.set, pk_bytes);
    if (!pk) return checks.fail("pk does not decode: " + pk.error().to_string());
    const bool accepted =
        g.external ? slhdsa::verify(*pk, message, context, sig) : slhdsa::verify_internal(*pk, message, sig);
    if (accepted != expected) {
      checks.fail("signature " + verdict_name(accepted) + ", but testPassed is " + (expected ? "true" : "false") +
                  (reason.empty() ? "" : " (" + reason + ")"));
    }
  });
}

using GroupRunner = void (*)(const Obj&, std::int64_t, Recorder&);

base::Status run_acvp(const Obj& top, Problems& problems, const ConformanceFilter& filter, ConformanceReport& report) {
  report.format = VectorFormat::acvp_merged;
  report.algorithm = top.str("algorithm");
  report.mode = top.str("mode");
  const json& groups = top.array("testGroups");
  if (!problems.ok()) return base::fail(problems.take());

  struct Entry {
    std::string_view algorithm;
    std::string_view mode;
    GroupRunner run;
  };
  static constexpr Entry kRunners[] = {
      {"ML-DSA", "keyGen", acvp_mldsa_keygen},   {"ML-DSA", "sigGen", acvp_mldsa_siggen},
      {"ML-DSA", "sigVer", acvp_mldsa_sigver},   {"SLH-DSA", "keyGen", acvp_slhdsa_keygen},
      {"SLH-DSA", "sigGen", acvp_slhdsa_siggen}, {"SLH-DSA", "sigVer", acvp_slhdsa_sigver},
  };
  GroupRunner run = nullptr;
  for (const Entry& entry : kRunners) {
    if (entry.algorithm == report.algorithm && entry.mode == report.mode) run = entry.run;
  }
  if (run == nullptr) {
    return base::fail(Errc::unsupported, "ACVP algorithm " + in_quotes(report.algorithm) + " mode " +
                                             in_quotes(report.mode) +
                                             " is not supported (known: ML-DSA and SLH-DSA; keyGen, sigGen, sigVer)");
  }

  Recorder recorder(report, filter);
  for (std::size_t i = 0; i < groups.size() && problems.ok(); ++i) {
    Obj group = top.element(groups[i], "testGroups[" + std::to_string(i) + "]");
    const std::int64_t tg_id = group.integer("tgId");
    if (!problems.ok()) break;
    group.add_to_where(" (tgId " + std::to_string(tg_id) + ")");
    run(group, tg_id, recorder);
  }
  if (!problems.ok()) return base::fail(problems.take());
  return {};
}

// ---------------------------------------------------------------------------
// Wycheproof

enum class Expect { valid, invalid, acceptable };

struct WycheproofTally {
  std::size_t valid = 0;
  std::size_t invalid = 0;
  std::size_t acceptable = 0;
  bool ecdsa = false;
  std::size_t high_s = 0;  // accepted signatures with high S, which the strict verifier must refuse
};

// The case's "result", counted.
Expect read_expect(const Obj& test, WycheproofTally& tally) {
  const std::string result = test.one_of("result", {"valid", "invalid", "acceptable"});
  if (result == "valid") {
    ++tally.valid;
    return Expect::valid;
  }
  if (result == "invalid") {
    ++tally.invalid;
    return Expect::invalid;
  }
  ++tally.acceptable;  // or unreadable, in which case the file is abandoned
  return Expect::acceptable;
}

// The verdict Sion gives an "acceptable" case, if it commits to one.
std::optional<bool> acceptable_verdict(const std::vector<std::string>& flags) {
  for (const std::string& flag : flags) {
    if (flag == "BerEncodedSignature" || flag == "InvalidEncoding" || flag == "MissingZero") {
      return false;  // strict DER only
    }
  }
  return std::nullopt;
}

std::string described(std::string_view what, const std::string& comment) {
  return comment.empty() ? std::string(what) : std::string(what) + " (" + comment + ")";
}

// Judges a verifier's verdict on a verification case.
void judge_verdict(const Obj& test, Checks& checks, Expect expect, bool accepted) {
  const std::string comment = test.str_or("comment", "");
  switch (expect) {
    case Expect::valid: checks.expect(accepted, described("valid signature rejected", comment)); break;
    case Expect::invalid: checks.expect(!accepted, described("invalid signature accepted", comment)); break;
    case Expect::acceptable:
      if (const auto verdict = acceptable_verdict(test.strings_or_empty("flags"))) {
        checks.expect(accepted == *verdict, described("acceptable signature " + verdict_name(accepted) +
                                                          "; Sion's policy for its flags is " + verdict_name(*verdict),
                                                      comment));
      } else {
        checks.skip(described("acceptable: " + verdict_name(accepted) + ", not judged", comment));
      }
      break;
  }
}

void wycheproof_eddsa(const Obj& group, std::int64_t id, Recorder& recorder, WycheproofTally& tally) {
  const Obj key = group.object("publicKey");
  const std::string curve = key.str("curve");
  const Bytes pk = key.hex("pk");
  if (!group.ok()) return;
  recorder.begin_group(id, curve, "EddsaVerify " + curve);
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes msg = test.hex("msg");
    const Bytes sig = test.hex("sig");
    const Expect expect = read_expect(test, tally);
    if (!test.ok()) return;
    if (curve != "edwards25519") {
      return checks.fail("curve " + in_quotes(curve) + " is not supported");
    }
    judge_verdict(test, checks, expect, ed25519::verify(pk, msg, sig));
  });
}

// (n - 1) / 2 for P-256 (n from SP 800-186 Sec. 3.2.1.3), big-endian.
constexpr std::array<std::uint8_t, 32> kP256HalfOrder = {
    0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b, 0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8};

// One DER TLV with a short-form length (all a P-256 signature needs).
std::optional<ByteView> take_tlv(ByteView& in, std::uint8_t tag) {
  if (in.size() < 2 || in[0] != tag || (in[1] & 0x80) != 0) return std::nullopt;
  const std::size_t len = in[1];
  if (in.size() - 2 < len) return std::nullopt;
  const ByteView value = in.subspan(2, len);
  in = in.subspan(2 + len);
  return value;
}

// s of a DER Ecdsa-Sig-Value as 32 big-endian bytes, if it parses and fits.
std::optional<std::array<std::uint8_t, 32>> der_s(ByteView der) {
  auto seq = take_tlv(der, 0x30);
  if (!seq || !der.empty()) return std::nullopt;
  ByteView body = *seq;
  const auto r = take_tlv(body, 0x02);
  auto s = take_tlv(body, 0x02);
  if (!r || !s || !body.empty()) return std::nullopt;
  while (!s->empty() && s->front() == 0) *s = s->subspan(1);
  if (s->size() > 32) return std::nullopt;
  std::array<std::uint8_t, 32> out{};
  std::copy(s->begin(), s->end(), out.end() - static_cast<std::ptrdiff_t>(s->size()));
  return out;
}

void wycheproof_ecdsa(const Obj& group, std::int64_t id, Recorder& recorder, WycheproofTally& tally, bool der) {
  const std::string type = der ? "EcdsaVerify" : "EcdsaP1363Verify";
  const Obj key = group.object("publicKey");
  const std::string curve = key.str("curve");
  const Bytes uncompressed = key.hex("uncompressed");
  const std::string sha = group.str("sha");
  if (!group.ok()) return;
  tally.ecdsa = true;
  recorder.begin_group(id, curve, type + " " + curve + " " + sha);
  // SEC 1 Sec. 2.3.3: the compressed form of 04 || x || y is (02 | y odd) || x.
  Bytes compressed;
  if (uncompressed.size() == 65 && uncompressed[0] == 0x04) {
    compressed.assign(uncompressed.begin(), uncompressed.begin() + 33);
    compressed[0] = static_cast<std::uint8_t>(0x02 | (uncompressed[64] & 1));
  }
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes msg = test.hex("msg");
    const Bytes sig = test.hex("sig");
    const Expect expect = read_expect(test, tally);
    if (!test.ok()) return;
    if (curve != "secp256r1" || sha != "SHA-256") {
      return checks.fail("curve " + in_quotes(curve) + " with " + in_quotes(sha) +
                         " is not supported (P-256 with SHA-256 only)");
    }
    if (compressed.empty()) {
      return checks.fail("publicKey.uncompressed is not a 65-byte uncompressed point");
    }
    const auto run = [&](const Bytes& pk, HighS rule) {
      return der ? p256::verify_der(pk, msg, sig, rule) : p256::verify(pk, msg, sig, rule);
    };
    const bool permissive = run(uncompressed, HighS::accept);
    judge_verdict(test, checks, expect, permissive);
    checks.expect(run(compressed, HighS::accept) == permissive,
                  "the compressed key gives a different verdict from the uncompressed one");
    // The strict verifier must accept exactly the permissive verdicts with low S.
    bool high = false;
    if (permissive) {
      std::optional<std::array<std::uint8_t, 32>> s;
      if (der) {
        s = der_s(sig);
      } else if (sig.size() == 64) {
        s.emplace();
        std::copy(sig.begin() + 32, sig.end(), s->begin());
      }
      if (!s) return checks.fail("accepted a signature whose s cannot be read");
      high = std::lexicographical_compare(kP256HalfOrder.begin(), kP256HalfOrder.end(), s->begin(), s->end());
      if (high) ++tally.high_s;
    }
    const bool strict = run(uncompressed, HighS::reject);
    if (strict != (permissive && !high)) {
      checks.fail("strict verifier (HighS::reject) " + verdict_name(strict) + " a " + (high ? "high" : "low") +
                  "-S signature the permissive verifier " + verdict_name(permissive));
    }
  });
}

std::string unknown_level(std::string_view algorithm) {
  return "algorithm " + in_quotes(algorithm) + " names no ML-DSA parameter set implemented here";
}

void wycheproof_mldsa_verify(const Obj& group, std::int64_t id, Recorder& recorder, WycheproofTally& tally,
                             const std::string& algorithm) {
  const Bytes pk = group.hex("publicKey");
  if (!group.ok()) return;
  const std::optional<mldsa::Level> level = mldsa_level(algorithm);
  recorder.begin_group(id, algorithm, "MlDsaVerify " + algorithm);
  run_cases(group, recorder, [&](const Obj& test, Checks& checks) {
    const Bytes msg = test.hex("msg");
    const Bytes sig = test.hex("sig");
    const Bytes ctx = test.hex_or_empty("ctx");
    const Expect expect = read_expect(test, tally);
    if (!test.ok()) return;
    if (!level) return checks.fail(unknown_level(algorithm));
    judge_verdict(test, checks, expect, mldsa::verify(*level, pk, msg, ctx, sig));
  });
}

// Signs one Wycheproof case with `sk`; with `pk` known, the signature made
// must verify and the case's "mu" must equal external_mu().
void check_mldsa_sign(const Obj& test, Checks& checks, Expect expect, mldsa::Level level, const mldsa::SecretKey& sk,
                      const Bytes& pk) {
  mldsa::Rnd rnd{};
  if (test.has("rnd")) {
    const Bytes given = test.hex("rnd");
    if (!test.ok()) return;
    const auto r = fixed<mldsa::kRndBytes>(given);
    if (!r) return checks.fail(wrong_length("rnd", given.size(), mldsa::kRndBytes));
    rnd = *r;
  }
  base::Result<Bytes> sig = Bytes{};
  if (!test.has("msg")) {  // flag Internal: sign mu with Sign_internal
    const Bytes given = test.hex("mu");
    if (!test.ok()) return;
    const auto mu = fixed<mldsa::kMuBytes>(given);
    if (!mu) return checks.fail(wrong_length("mu", given.size(), mldsa::kMuBytes));
    sig = mldsa::sign_mu(sk, *mu, rnd);
  } else {
    const Bytes msg = test.hex("msg");
    const Bytes ctx = test.hex_or_empty("ctx");
    const Bytes mu_given = test.hex_or_empty("mu");
    if (!test.ok()) return;
    sig = mldsa::sign(sk, msg, ctx, rnd);
    if (sig && !pk.empty()) {
      checks.expect(mldsa::verify(level, pk, msg, ctx, *sig), "the signature made does not verify");
      if (test.has("mu")) {
        const auto mu = mldsa::external_mu(level, pk, msg, ctx);
        if (!mu) {
          checks.fail("external_mu failed: " + mu.error().to_string());
        } else {
          checks.compare("external_mu", *mu, mu_given);
        }
      }
    }
  }
  const std::string comment = test.str_or("comment", "");
  switch (expect) {
    case Expect::valid:
      if (!sig) {
        return checks.fail(described("signing failed: " + sig.error().to_string(), comment));
      }
      checks.compare("sig", *sig, test.hex("sig"));
      break;
    case Expect::invalid: checks.expect(!sig.ok(), described("signing succeeded on an invalid case", comment)); break;
    case Expect::acceptable:
      checks.skip(
          described(std::string("acceptable: signing ") + (sig ? "succeeded" : "failed") + ", not judged", comment));
      break;
  }
}

// A key that cannot be used at all (a seed that is not 32 bytes, an encoded
// key that does not decode): the case must not be valid.
void judge_unusable_key(const Obj& test, Checks& checks, Expect expect, const std::string& why) {
  const std::string comment = test.str_or("comment", "");
  if (expect == Expect::valid) checks.fail(described("valid case, but " + why, comment));
  if (expect == Expect::acceptable) checks.skip(described("acceptable: " + why, comment));
}

void wycheproof_mldsa_sign(const Obj& group, std::int64_t id, Recorder& recorder, WycheproofTally& tally,
                           const std::string& algorithm) {
  const bool seeded = group.has("privateSeed");
  const Bytes key_bytes = group.hex(seeded ? "privateSeed" : "privateKey");
  const Bytes group_pk = group.hex_or_empty("publicKey");
  if (!group.ok()) return;
  const std::optional<mldsa::Level> level = mldsa_level(algorithm);
  recorder.begin_group(id, algorithm, "MlDsaSign " + algorithm + (seeded ? " privateSeed" : " privateKey"));

  // The key, once per group: from the seed, or decoded.
  std::optional<mldsa::KeyPair> keys;
  std::optional<mldsa::SecretKey> sk;
  std::string unusable;
  if (level && seeded) {
    if (const auto seed = fixed<mldsa::kSeedBytes>(key_bytes)) {
      keys.emplace(mldsa::keygen(*level, *seed));
    } else {
      unusable = "privateSeed is " + std::to_string(key_bytes.size()) + " bytes; keygen takes exactly 32";
    }
  } else if (level) {
    auto decoded = mldsa::SecretKey::from_bytes(*level, key_bytes);
    if (decoded) {
      sk.emplace(std::move(decoded).value());
    } else {
      unusable = "privateKey does not decode: " + decoded.error().to_string();
    }
  }

  run_cases(group, recorder,
            [&](const Obj& test, Checks& checks) {
              const Expect expect = read_expect(test, tally);
              if (!test.ok()) return;
              if (!level) return checks.fail(unknown_level(algorithm));
              if (!unusable.empty()) return judge_unusable_key(test, checks, expect, unusable);
              if (keys) {
                if (!group_pk.empty()) {
                  checks.compare("public key from privateSeed", keys->public_key, group_pk);
                }
                check_mldsa_sign(test, checks, expect, *level, keys->secret_key, keys->public_key);
              } else {
                check_mldsa_sign(test, checks, expect, *level, *sk, group_pk);
              }
              // A case that is judged before signing (an unusable key, an invalid
              // case) leaves its inputs and expected signature unread: these names
              // of the Wycheproof MlDsaSign schema are known either way.
            },
            {"comment", "flags", "msg", "ctx", "mu", "rnd", "sig"});
}

base::Status run_wycheproof(const Obj& top, Problems& problems, const ConformanceFilter& filter,
                            ConformanceReport& report) {
  report.format = VectorFormat::wycheproof;
  report.algorithm = top.str("algorithm");
  const json& groups = top.array("testGroups");
  const bool counted = top.has("numberOfTests");
  const std::int64_t number_of_tests = counted ? top.integer("numberOfTests") : 0;
  if (!problems.ok()) return base::fail(problems.take());

  static constexpr std::string_view kTypes[] = {"EddsaVerify", "EcdsaVerify", "EcdsaP1363Verify", "MlDsaSign",
                                                "MlDsaVerify"};
  Recorder recorder(report, filter);
  WycheproofTally tally;
  std::vector<std::string> types;
  for (std::size_t i = 0; i < groups.size() && problems.ok(); ++i) {
    const std::int64_t id = static_cast<std::int64_t>(i) + 1;
    Obj group = top.element(groups[i], "testGroups[" + std::to_string(i) + "]");
    const std::string type = group.str("type");
    if (!problems.ok()) break;
    if (std::find(std::begin(kTypes), std::end(kTypes), type) == std::end(kTypes)) {
      return base::fail(Errc::unsupported, "Wycheproof test type " + in_quotes(type) + " in " + group.where() +
                                               " is not supported (known: EddsaVerify, EcdsaVerify, "
                                               "EcdsaP1363Verify, MlDsaSign, MlDsaVerify)");
    }
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
    if (type == "EddsaVerify") {
      wycheproof_eddsa(group, id, recorder, tally);
    } else if (type == "EcdsaVerify" || type == "EcdsaP1363Verify") {
      wycheproof_ecdsa(group, id, recorder, tally, type == "EcdsaVerify");
    } else if (type == "MlDsaSign") {
      wycheproof_mldsa_sign(group, id, recorder, tally, report.algorithm);
    } else {
      wycheproof_mldsa_verify(group, id, recorder, tally, report.algorithm);
    }
  }
  if (!problems.ok()) return base::fail(problems.take());

  for (const std::string& type : types) report.mode += (report.mode.empty() ? "" : ",") + type;
  const bool filtered = !filter.parameter_set.empty() || filter.max_cases_per_group != 0;
  if (counted && !filtered && number_of_tests != static_cast<std::int64_t>(report.total())) {
    return base::fail(Errc::invalid_value, "numberOfTests is " + std::to_string(number_of_tests) +
                                               " but the file holds " + std::to_string(report.total()) + " tests");
  }
  report.notes.push_back(std::to_string(report.total()) + " cases: " + std::to_string(tally.valid) + " valid, " +
                         std::to_string(tally.invalid) + " invalid, " + std::to_string(tally.acceptable) +
                         " acceptable");
  if (tally.ecdsa) {
    report.notes.push_back(std::to_string(tally.high_s) +
                           " accepted signatures with high S, refused by the strict verifier");
  }
  return {};
}

// ---------------------------------------------------------------------------

// Wycheproof without "schema": recognised by its groups' "type".
bool first_group_has_type(const Obj& top) {
  const json* groups = top.find("testGroups");
  return groups != nullptr && groups->is_array() && !groups->empty() && groups->front().is_object() &&
         groups->front().contains("type");
}

base::Result<ConformanceReport> run_text(std::string_view text, const std::string& name,
                                         const ConformanceFilter& filter) {
  SION_TRY(const json doc, base::parse_json(text));
  if (!doc.is_object()) {
    return base::fail(Errc::invalid_value,
                      "unknown format: a vector file is a JSON object, this is a JSON " + std::string(doc.type_name()));
  }
  ConformanceReport report;
  report.name = name;
  Problems problems;
  const Obj top(doc, "", problems);
  base::Status status;
  if (top.has("format")) {
    const std::string format = top.str("format");
    if (!problems.ok()) return base::fail(problems.take());
    if (format != kAcvpFormat) {
      return base::fail(Errc::unsupported, "unknown format " + in_quotes(format) +
                                               " (known: " + std::string(kAcvpFormat) + " and Wycheproof)");
    }
    status = run_acvp(top, problems, filter, report);
  } else if (top.has("algorithm") && (top.has("schema") || first_group_has_type(top))) {
    status = run_wycheproof(top, problems, filter, report);
  } else {
    return base::fail(Errc::invalid_value,
                      "unknown format: neither ACVP merged (no field 'format') nor Wycheproof "
                      "(no fields 'algorithm' and 'schema')");
  }
  if (!status) return base::fail(std::move(status).error());
  if (report.total() == 0) {
    return base::fail(Errc::invalid_value, filter.parameter_set.empty()
                                               ? std::string("the file holds no test case")
                                               : "the file holds no test case for " + in_quotes(filter.parameter_set));
  }
  return report;
}

}  // namespace

std::string_view vector_format_name(VectorFormat format) noexcept {
  switch (format) {
    case VectorFormat::acvp_merged: return kAcvpFormat;
    case VectorFormat::wycheproof: return "wycheproof";
  }
  return "unknown";
}

base::Result<ConformanceReport> run_conformance_text(std::string_view text, std::string_view name,
                                                     const ConformanceFilter& filter) {
  try {
    SION_TRY_CONTEXT(ConformanceReport report, name, run_text(text, std::string(name), filter));
    return report;
  } catch (const std::exception& e) {
    // Nothing above throws on bad input; this is for memory exhaustion.
    return base::fail(Errc::internal, std::string(name) + ": " + e.what());
  }
}

base::Result<ConformanceReport> run_conformance_file(const std::filesystem::path& path,
                                                     const ConformanceFilter& filter) {
  const std::string name = path.string();
  // A regular file only (a FIFO is refused, not waited on), of a bounded size.
  SION_TRY(const std::string text, base::read_file(name, {.what = "vector file", .max_bytes = kMaxVectorFileBytes}));
  return run_conformance_text(text, name, filter);
}

}  // namespace sion::crypto
