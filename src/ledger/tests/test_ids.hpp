#pragma once
// Distinct ids for ledger tests: every byte n.

#include <cstdint>

#include "sion/ledger/objects.hpp"

namespace sion::ledger::testing {

inline Id id_n(std::uint8_t n) {
  Id id{};
  id.fill(n);
  return id;
}

}  // namespace sion::ledger::testing
