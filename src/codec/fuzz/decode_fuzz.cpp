// libFuzzer target for the canonical decoder. Properties checked on every
// input: decoding never crashes (sanitizers watch), a failure is reported as
// an invalid-input error with a reason naming the field, and a success
// re-encodes to exactly the input (one encoding per value).

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "sample_types.hpp"
#include "sion/codec/codec.hpp"

namespace {

template <class T>
void check_decoder(const std::uint8_t* data, std::size_t size) {
  const sion::base::ByteView input(data, size);
  auto decoded = sion::codec::decode<T>(input);
  if (!decoded) {
    const auto& error = decoded.error();
    if (!error.is_invalid_input() || error.reason.empty()) std::abort();
    return;
  }
  const auto again = sion::codec::encode(*decoded);
  if (!sion::codec::valid(*decoded)) std::abort();
  if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_decoder<sion::codec::sample::Envelope>(data, size);
  check_decoder<sion::codec::sample::Transfer>(data, size);
  check_decoder<sion::codec::VarBytes<300>>(data, size);
  return 0;
}
