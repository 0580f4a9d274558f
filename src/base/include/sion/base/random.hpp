#pragma once
// Randomness from the operating system (getrandom(2)), for key generation and
// hedged signing. Never a user-space generator: nothing to seed or reseed.

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::base {

// Fills `out` completely, or fails with io_error (never returns partial data).
Status random_bytes(MutableByteView out);

// A fixed-size array of random bytes.
template <std::size_t N>
Result<ByteArray<N>> random_array() {
  ByteArray<N> out;
  SION_TRY_STATUS(random_bytes(out));
  return out;
}

}  // namespace sion::base
