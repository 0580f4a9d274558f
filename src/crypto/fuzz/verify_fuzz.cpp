// libFuzzer target: one signature verifier family on arbitrary signatures
// and keys. It must return (true or false) and never crash, read out of
// bounds or trip a sanitizer. The build compiles this file once per family
// (src/crypto/CMakeLists.txt), naming it with a definition, so that each
// family is its own target with its own bounded run in scripts/fuzz.
// Built with SION_FUZZ_CORPUS_TOOL, the same file is the program that
// writes the seed corpus: a valid signature for each scheme.

#include "fixtures.hpp"

namespace {

using sion::crypto::Scheme;

#if defined(SION_FUZZ_VERIFY_MLDSA)
// ML-DSA-44/65/87 (FIPS 204, Alg. 3 and 8).
constexpr std::array kSchemes = {Scheme::ml_dsa_44, Scheme::ml_dsa_65, Scheme::ml_dsa_87};
#elif defined(SION_FUZZ_VERIFY_SLHDSA)
// SLH-DSA, all five parameter sets (FIPS 205, Alg. 20 and 24).
constexpr std::array kSchemes = {Scheme::slh_dsa_sha2_128s, Scheme::slh_dsa_sha2_128f, Scheme::slh_dsa_sha2_192f,
                                 Scheme::slh_dsa_sha2_256s, Scheme::slh_dsa_shake_128f};
#elif defined(SION_FUZZ_VERIFY_CLASSICAL)
// Ed25519, ECDSA-P256 and ECDSA-secp256k1.
constexpr std::array kSchemes = {Scheme::ed25519, Scheme::ecdsa_p256, Scheme::ecdsa_secp256k1};
#else
#error "define SION_FUZZ_VERIFY_MLDSA, SION_FUZZ_VERIFY_SLHDSA or SION_FUZZ_VERIFY_CLASSICAL"
#endif

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
int main(int argc, char** argv) { return sion::crypto::fuzz::corpus_main(kSchemes, argc, argv); }
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sion::crypto::fuzz::fuzz_signature(kSchemes, data, size);
  return 0;
}
#endif
