#pragma once
// What the libFuzzer targets share: the decoding property every decoder
// must keep, and the seed-corpus writer of their SION_FUZZ_CORPUS_TOOL
// builds. For fuzz targets and their corpus tools only.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "sion/base/bytes.hpp"
#include "sion/codec/codec.hpp"

namespace sion::codec::testing {

// Decodes `bytes` as a T. A failure must carry a reason; a success must
// re-encode to exactly `bytes` (one encoding per value). Either violation
// aborts, which the fuzzer reports. Returns whether `out` holds a value.
template <class T>
bool decode_exactly(base::ByteView bytes, T& out) {
  auto decoded = decode<T>(bytes);
  if (!decoded) {
    if (decoded.error().reason.empty()) std::abort();
    return false;
  }
  const base::Bytes again = encode(*decoded);
  if (again.size() != bytes.size() || !std::equal(again.begin(), again.end(), bytes.begin())) std::abort();
  out = std::move(*decoded);
  return true;
}

// Targets whose inputs are a kind byte and a body: runs
// fuzz_one(kind modulo kinds, body); an empty input does nothing.
template <class FuzzOne>
void dispatch_by_kind(const std::uint8_t* data, std::size_t size, std::uint8_t kinds, const FuzzOne& fuzz_one) {
  if (size == 0) return;
  fuzz_one(static_cast<std::uint8_t>(data[0] % kinds), base::ByteView(data + 1, size - 1));
}

// Writes seed inputs `<prefix>-0`, `<prefix>-1`, ... into a folder: a kind
// byte (the target's first input byte picks what to decode) and a body.
class CorpusWriter {
 public:
  CorpusWriter(std::filesystem::path folder, std::string prefix)
      : folder_(std::move(folder)), prefix_(std::move(prefix)) {
    std::filesystem::create_directories(folder_);
  }

  // One input: the body as it is.
  void write(base::ByteView body) {
    std::ofstream out(folder_ / (prefix_ + "-" + std::to_string(written_++)), std::ios::binary);
    out.write(reinterpret_cast<const char*>(body.data()), static_cast<std::streamsize>(body.size()));
  }
  // One input whose first byte picks the decoder.
  void write(std::uint8_t kind, base::ByteView body) {
    std::ofstream out(folder_ / (prefix_ + "-" + std::to_string(written_++)), std::ios::binary);
    out.put(static_cast<char>(kind));
    out.write(reinterpret_cast<const char*>(body.data()), static_cast<std::streamsize>(body.size()));
  }

 private:
  std::filesystem::path folder_;
  std::string prefix_;
  int written_ = 0;
};

}  // namespace sion::codec::testing
