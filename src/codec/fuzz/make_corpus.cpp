// Writes the codec fuzz target's seed corpus into the folder given as the
// only argument: valid encodings of random sample values, from a fixed seed
// so every run starts from the same corpus.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sample_types.hpp"
#include "sion/codec/codec.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus-dir>\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir(argv[1]);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "make_corpus: cannot create %s: %s\n", argv[1], ec.message().c_str());
    return 1;
  }
  sion::codec::sample::Generator gen(2026);
  for (int i = 0; i < 32; ++i) {
    const auto bytes = sion::codec::encode(gen.envelope());
    std::ofstream file(dir / ("envelope-" + std::to_string(i)), std::ios::binary);
    file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!file) {
      std::fprintf(stderr, "make_corpus: cannot write into %s\n", argv[1]);
      return 1;
    }
  }
  return 0;
}
