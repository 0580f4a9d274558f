// libFuzzer target: a key file's text (JSON, docs/genesis.md "Key files"), as
// read from disk. Parsing must give a bundle or fail with a reason that names
// the text's origin, never crash (nor leak: ASan). Built with
// SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus: a valid key
// file of each fast profile.

#include <cstdlib>
#include <fstream>
#include <string>

#include "sion/base/bytes.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/wallet/key_file.hpp"

using namespace sion;

#ifdef SION_FUZZ_CORPUS_TOOL
#include <filesystem>

namespace {

std::string key_file_text(crypto::Profile profile, std::uint8_t fill) {
  crypto::KeySeed seed{};
  seed.fill(fill);
  const auto bundle = crypto::SigningBundle::from_seed(profile, seed);
  if (!bundle) std::abort();
  return "{\"profile\": \"" + std::string(crypto::profile_name(profile)) + "\", \"seed\": \"" + base::to_hex(seed) +
         "\", \"account\": \"" + base::to_hex(exec::account_id(bundle->public_bundle())) + "\"}";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::filesystem::create_directories(argv[1]);
  int i = 0;
  for (crypto::Profile profile : {crypto::Profile::dual, crypto::Profile::hybrid, crypto::Profile::classic}) {
    const std::string text = key_file_text(profile, static_cast<std::uint8_t>(i + 3));
    if (!wallet::parse_key_file(text, "corpus")) return 1;
    std::ofstream(std::filesystem::path(argv[1]) / ("key-file-" + std::to_string(i++)), std::ios::binary) << text;
  }
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto key = wallet::parse_key_file(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!key) {
    if (key.error().reason.rfind("fuzz: ", 0) != 0) std::abort();  // every error names its origin
    return 0;
  }
  return 0;
}
#endif
