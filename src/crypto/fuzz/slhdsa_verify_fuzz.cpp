// libFuzzer target: the SLH-DSA, all five parameter sets (FIPS 205, Alg. 20 and 24)
// verifier on arbitrary signatures and keys. It must return (true or false)
// and never crash, read out of bounds or trip a sanitizer. Built with
// SION_FUZZ_CORPUS_TOOL, the same file is the program that writes the seed
// corpus: a valid signature for each scheme.

#include "fixtures.hpp"

namespace {
constexpr std::array<sion::crypto::Scheme, 5> kSchemes = {sion::crypto::Scheme::slh_dsa_sha2_128s, sion::crypto::Scheme::slh_dsa_sha2_128f, sion::crypto::Scheme::slh_dsa_sha2_192f,
                                                    sion::crypto::Scheme::slh_dsa_sha2_256s, sion::crypto::Scheme::slh_dsa_shake_128f};
}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
int main(int argc, char** argv) { return sion::crypto::fuzz::corpus_main(kSchemes, argc, argv); }
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sion::crypto::fuzz::fuzz_signature(kSchemes, data, size);
  return 0;
}
#endif
