// Our side of the ML-DSA interoperability test (mldsa_interop.py): reads
// OpenSSL's cases, checks our public keys and verification against them,
// and writes our own signatures for OpenSSL to check.

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "sion/base/random.hpp"
#include "sion/crypto/mldsa.hpp"

namespace {

using sion::base::Bytes;
namespace mldsa = sion::crypto::mldsa;

Bytes hex(const nlohmann::json& value) { return sion::base::from_hex(value.get<std::string>()).value(); }

int run(const char* cases_path, const char* out_path) {
  std::ifstream in(cases_path);
  const auto cases = nlohmann::json::parse(in, nullptr, false);
  if (cases.is_discarded() || !cases.is_array()) {
    std::fprintf(stderr, "cannot read cases from %s\n", cases_path);
    return 2;
  }
  int failures = 0;
  auto out = nlohmann::json::array();
  for (const auto& c : cases) {
    const std::string name = c["level"].get<std::string>();
    const mldsa::Level level = name == "44" ? mldsa::Level::k44 : name == "65" ? mldsa::Level::k65 : mldsa::Level::k87;
    const Bytes seed_bytes = hex(c["seed"]);
    mldsa::Seed seed;
    std::copy(seed_bytes.begin(), seed_bytes.end(), seed.begin());
    const Bytes message = hex(c["message"]);
    const Bytes context = hex(c["context"]);
    auto pair = mldsa::keygen(level, seed);
    if (pair.public_key != hex(c["public_key"])) {
      ++failures;
      std::printf("FAILED: ML-DSA-%s public key from the same seed differs from OpenSSL's\n", name.c_str());
    }
    if (!mldsa::verify(level, pair.public_key, message, context, hex(c["signature"]))) {
      ++failures;
      std::printf("FAILED: we reject OpenSSL's ML-DSA-%s signature\n", name.c_str());
    }
    if (mldsa::verify(level, pair.public_key, message, context, hex(c["flipped_signature"]))) {
      ++failures;
      std::printf("FAILED: we accept OpenSSL's ML-DSA-%s signature with a bit flipped\n", name.c_str());
    }
    auto rnd = sion::base::random_array<mldsa::kRndBytes>();
    auto signature = mldsa::sign(pair.secret_key, message, context, rnd.value());
    if (!signature) {
      ++failures;
      std::printf("FAILED: signing: %s\n", signature.error().to_string().c_str());
      out.push_back({{"signature", ""}});
      continue;
    }
    out.push_back({{"signature", sion::base::to_hex(*signature)}});
  }
  std::ofstream(out_path) << out.dump();
  std::printf("we checked %zu OpenSSL cases: %zu ok\n", cases.size(),
              cases.size() - static_cast<std::size_t>(failures));
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CASES.json OUT.json\n", argv[0]);
    return 2;
  }
  return run(argv[1], argv[2]);
}
