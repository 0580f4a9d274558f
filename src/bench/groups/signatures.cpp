// Group `signatures`: every signature scheme's key generation, signing and
// verification on one core, the dual and composite bundles, the verify cache,
// and the verify units each scheme costs (ML-DSA-44 verify = 100).
// Row names as in docs/performance.md ("ML-DSA-44 sign", "SLH-DSA-SHA2-128f
// verify").

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "groups.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/signature.hpp"
#include "sion/crypto/verify_cache.hpp"
#include "sion/crypto/verify_units.hpp"

namespace sion::bench::groups {
namespace {

using crypto::Scheme;

// Signing costs span microseconds (Ed25519) to a second (SLH-DSA-SHA2-256s):
// anything above a millisecond is timed one call per sample.
bool is_slow_signer(Scheme scheme) {
  switch (scheme) {
    case Scheme::slh_dsa_sha2_128s:
    case Scheme::slh_dsa_sha2_128f:
    case Scheme::slh_dsa_sha2_192f:
    case Scheme::slh_dsa_sha2_256s:
    case Scheme::slh_dsa_shake_128f: return true;
    default: return false;
  }
}

template <class Fn>
Stats time_op(Fn&& fn, bool slow, const MeasureOptions& options) {
  return slow ? time_each_call(fn, options) : time_per_call(fn, options);
}

const base::Bytes& sample_message() {
  // A transfer's signed body is a few hundred bytes.
  static const base::Bytes message(256, 0x42);
  return message;
}

// ML-DSA-44 verify through python3's `cryptography` and the OpenSSL it
// loaded, timed in a subprocess. Absent package or no ML-DSA: no row.
struct OpenSslTiming {
  double seconds = 0;   // per verify, the fastest of 5 repeats
  std::string version;  // as that OpenSSL reports it, e.g. "OpenSSL 4.0.0 14 Apr 2026"
};

std::optional<OpenSslTiming> openssl_mldsa44_verify(bool quick) {
  const std::string script = fmt::format(
      "import timeit\n"
      "from cryptography.hazmat.primitives.asymmetric import mldsa\n"
      "from cryptography.hazmat.backends.openssl.backend import backend\n"
      "k = mldsa.MLDSA44PrivateKey.from_seed_bytes(bytes(32))\n"
      "p = k.public_key(); m = bytes(256); s = k.sign(m, b'')\n"
      "n = {}\n"
      "print(min(timeit.repeat(lambda: p.verify(s, m, b''), number=n, repeat=5)) / n)\n"
      "print(backend.openssl_version_text())\n",
      quick ? 200 : 2000);
  std::string command = "python3 -c \"" + script + "\" 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  char timing[64] = {};
  char version[128] = {};
  const bool got =
      std::fgets(timing, sizeof(timing), pipe) != nullptr && std::fgets(version, sizeof(version), pipe) != nullptr;
  if (pclose(pipe) != 0 || !got) return std::nullopt;
  OpenSslTiming result;
  char* end = nullptr;
  result.seconds = std::strtod(timing, &end);
  if (end == timing || !std::isfinite(result.seconds) || result.seconds <= 0) return std::nullopt;
  result.version = version;
  while (!result.version.empty() && (result.version.back() == '\n' || result.version.back() == '\r')) {
    result.version.pop_back();
  }
  return result;
}

// "4.0" of "OpenSSL 4.0.0 14 Apr 2026": the version in the row's name, so
// that rows of one OpenSSL release compare across runs.
std::string major_minor(std::string_view version_text) {
  const auto space = version_text.find(' ');
  const std::string_view number = space == std::string_view::npos ? version_text : version_text.substr(space + 1);
  const auto first_dot = number.find('.');
  const auto second_dot = first_dot == std::string_view::npos ? first_dot : number.find('.', first_dot + 1);
  return std::string(number.substr(0, second_dot == std::string_view::npos ? number.find(' ') : second_dot));
}

base::Status run(Context& context) {
  const MeasureOptions options = context.measure_options();
  const base::Bytes& message = sample_message();
  crypto::KeySeed seed{};
  seed.fill(0x17);
  std::map<Scheme, double> verify_seconds;

  for (Scheme scheme : crypto::kAllSchemes) {
    const std::string name(crypto::scheme_name(scheme));
    const bool slow = is_slow_signer(scheme);
    // --quick skips the two schemes whose signing takes most of a second.
    if (context.quick() && (scheme == Scheme::slh_dsa_sha2_128s || scheme == Scheme::slh_dsa_sha2_256s)) {
      continue;
    }
    SION_TRY(const auto key, crypto::SigningKey::from_seed(scheme, seed));

    const Stats keygen = time_op(
        [&] {
          auto k = crypto::SigningKey::from_seed(scheme, seed);
          do_not_optimize(k);
        },
        slow, options);
    context.report_time(name + " keygen", keygen, TimeUnit::us);

    base::Bytes signature;
    const Stats sign = time_op(
        [&] {
          signature = key.sign(message).value();
          do_not_optimize(signature);
        },
        slow, options);
    context.report_time(name + " sign", sign, TimeUnit::us,
                        scheme == Scheme::ml_dsa_44 || scheme == Scheme::ml_dsa_65 || scheme == Scheme::ml_dsa_87
                            ? "median over batches; a call's time includes every attempt of its rejection loop"
                            : "");

    bool ok = true;
    const Stats verify = time_per_call(
        [&] {
          ok = crypto::verify(scheme, key.public_key(), message, signature);
          do_not_optimize(ok);
        },
        options);
    if (!ok) return base::fail(base::Errc::internal, name + " signature did not verify in the bench");
    verify_seconds[scheme] = verify.median;
    context.report_time(name + " verify", verify, TimeUnit::us, fmt::format("{} B signature", signature.size()));
  }

  // ML-DSA-44 verify against OpenSSL in the same run.
  if (auto openssl = openssl_mldsa44_verify(context.quick())) {
    const double ours = verify_seconds[Scheme::ml_dsa_44];
    context.report(fmt::format("ML-DSA-44 verify, OpenSSL {} (python3 cryptography)", major_minor(openssl->version)),
                   openssl->seconds * 1e6, "µs",
                   fmt::format("{}, fastest of 5 repeats; ours (median) is {:.1f}x faster", openssl->version,
                               openssl->seconds / ours));
  }

  // Bundles: the default dual profile, and the classical composite.
  for (crypto::Profile profile : {crypto::Profile::dual, crypto::Profile::classic}) {
    SION_TRY(const auto bundle, crypto::SigningBundle::from_seed(profile, seed));
    const base::Bytes context_bytes{'s', 'i', 'o', 'n', '/', 't', 'x'};
    crypto::SignatureBundle signatures;
    const bool dual = profile == crypto::Profile::dual;
    if (dual) {
      const Stats sign = time_each_call(
          [&] {
            signatures = bundle.sign(message, context_bytes).value();
            do_not_optimize(signatures);
          },
          options);
      context.report_time("dual sign", sign, TimeUnit::us, "ML-DSA-44 + SLH-DSA-SHA2-128f");
    } else {
      signatures = bundle.sign(message, context_bytes).value();
    }
    bool ok = true;
    const Stats verify = time_per_call(
        [&] {
          ok = crypto::verify_bundle(bundle.public_ref(), message, context_bytes, signatures);
          do_not_optimize(ok);
        },
        options);
    if (!ok) return base::fail(base::Errc::internal, "bundle did not verify in the bench");
    context.report_time(dual ? "dual verify" : "composite Ed25519 + ECDSA-P256 verify", verify, TimeUnit::us,
                        fmt::format("{} B of signatures", signatures.byte_size()));

    if (dual) {
      crypto::VerifyCache cache;
      const crypto::Hash256 digest = crypto::VerifyCache::signature_digest(signatures);
      (void)crypto::verify_bundle_cached(cache, bundle.public_ref(), message, context_bytes, signatures, digest);
      const Stats hit = time_per_call(
          [&] {
            ok = crypto::verify_bundle_cached(cache, bundle.public_ref(), message, context_bytes, signatures, digest);
            do_not_optimize(ok);
          },
          options);
      const Stats digest_cost = time_per_call(
          [&] {
            auto d = crypto::VerifyCache::signature_digest(signatures);
            do_not_optimize(d);
          },
          options);
      context.report_time("verify cache hit", hit, TimeUnit::us,
                          fmt::format("signature digest precomputed; computing it: {:.1f} µs",
                                      seconds_in(TimeUnit::us, digest_cost.median)));
    }
  }

  // Verify units (docs/crypto.md, "Verify units"): cost relative to ML-DSA-44
  // verify = 100, measured here; the constants consensus uses are in
  // sion/crypto/verify_units.hpp.
  const double base_seconds = verify_seconds[Scheme::ml_dsa_44];
  for (const auto& [scheme, seconds] : verify_seconds) {
    context.report(fmt::format("verify units, {}", crypto::scheme_name(scheme)), 100.0 * seconds / base_seconds,
                   "units", fmt::format("constant {}", crypto::verify_units(scheme)));
  }
  return {};
}

}  // namespace

Group signatures() {
  return {"signatures", "key generation, signing and verification of every scheme, bundles, verify cache", &run};
}

}  // namespace sion::bench::groups
