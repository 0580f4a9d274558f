#pragma once
// Values the agents tests share: distinct ids and caveats that allow
// everything up to round bounds.

#include <cstdint>

#include "sion/agents/caveats.hpp"

namespace sion::agents::testing {

// An id of 32 bytes n.
inline Id id_n(std::uint8_t n) {
  Id id{};
  id.fill(n);
  return id;
}

// Every action and payee, up to height 1000, 500 a payment, 5000 a period
// of 10 Pulses.
inline Caveats open_caveats() {
  Caveats c;
  c.expiry_height = 1000;
  c.per_payment = 500;
  c.period_cap = 5000;
  c.period_length = 10;
  c.actions = kAllActions;
  c.payee_classes = static_cast<std::uint8_t>(PayeeClass::any);
  return c;
}

}  // namespace sion::agents::testing
