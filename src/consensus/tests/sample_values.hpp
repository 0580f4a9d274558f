#pragma once
// Values the consensus tests build messages from.

#include <cstdint>

#include "sion/consensus/messages.hpp"

namespace sion::consensus::testing {

inline Hash filled(std::uint8_t b) {
  Hash h;
  h.fill(b);
  return h;
}

// A signature of a two-part key bundle (say ML-DSA-44, SLH-DSA-SHA2-128f)
// under a policy that requires the first leg only; the parts are stand-ins
// of three bytes, not real signatures.
inline Signature one_leg(std::uint8_t b) {
  Signature s;
  s.parts.emplace_back(base::Bytes(3, b));
  s.parts.emplace_back();
  return s;
}

}  // namespace sion::consensus::testing
