#include "sion/ledger/fees.hpp"

#include <string>

#include "sion/base/checked.hpp"
#include "sion/crypto/verify_units.hpp"

namespace sion::ledger {

base::Result<Amount> required_fee(std::uint64_t tx_bytes, std::uint64_t verify_units, const FeeSchedule& fees) {
  const auto byte_part = base::checked_mul(fees.per_byte, tx_bytes);
  const auto unit_part = base::checked_mul(fees.per_verify_unit, verify_units);
  const auto total = byte_part && unit_part ? base::checked_add(*byte_part, *unit_part) : std::nullopt;
  if (!total) {
    return base::fail(base::Errc::invalid_value, "required fee for " + std::to_string(tx_bytes) + " bytes and " +
                                                     std::to_string(verify_units) + " verify units passes 2^64 - 1");
  }
  return *total;
}

std::uint64_t auth_bytes(const crypto::KeyBundle& keys, const crypto::SignatureBundle& auth) {
  return codec::encoded_size(keys) + codec::encoded_size(auth);
}

bool PulseUsage::fits(const PulseUsage& more, const PulseLimits& limits) const noexcept {
  const auto within = [](std::uint64_t have, std::uint64_t add, std::uint64_t limit) {
    const auto sum = base::checked_add(have, add);
    return sum && *sum <= limit;
  };
  return within(transactions, more.transactions, limits.max_transactions) &&
         within(bytes, more.bytes, limits.max_bytes) && within(auth_bytes, more.auth_bytes, limits.max_auth_bytes) &&
         within(verify_units, more.verify_units, limits.max_verify_units);
}

void PulseUsage::add(const PulseUsage& more) noexcept {
  transactions += more.transactions;
  bytes += more.bytes;
  auth_bytes += more.auth_bytes;
  verify_units += more.verify_units;
}

PulseUsage tx_usage(std::uint64_t tx_bytes, const crypto::KeyBundle& keys, const crypto::SignatureBundle& auth) {
  const std::uint64_t units = is_batch_member(keys) ? kBatchMemberVerifyUnits : crypto::verify_units(keys);
  return {1, tx_bytes, ledger::auth_bytes(keys, auth), units};
}

}  // namespace sion::ledger
