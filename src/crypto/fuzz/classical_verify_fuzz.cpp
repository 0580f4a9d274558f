// libFuzzer target: the Ed25519, ECDSA-P256 and ECDSA-secp256k1
// verifier on arbitrary signatures and keys. It must return (true or false)
// and never crash, read out of bounds or trip a sanitizer. Built with
// SION_FUZZ_CORPUS_TOOL, the same file is the program that writes the seed
// corpus: a valid signature for each scheme.

#include "fixtures.hpp"

namespace {
constexpr std::array<sion::crypto::Scheme, 3> kSchemes = {sion::crypto::Scheme::ed25519, sion::crypto::Scheme::ecdsa_p256, sion::crypto::Scheme::ecdsa_secp256k1};
}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
int main(int argc, char** argv) { return sion::crypto::fuzz::corpus_main(kSchemes, argc, argv); }
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sion::crypto::fuzz::fuzz_signature(kSchemes, data, size);
  return 0;
}
#endif
