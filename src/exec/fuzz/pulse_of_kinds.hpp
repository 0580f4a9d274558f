#pragma once
// The check the fuzz targets of transaction kinds share: the input is a
// codec list of up to 8 transactions, decoded and executed as one Pulse on
// the target's state. Decoding must fail with a reason or give a value that
// re-encodes to the same bytes; execution must give one receipt per
// transaction, never crash; and value is conserved: what the objects hold
// after the Pulse plus its fees equals what they held before.

#include <cstdint>
#include <cstdlib>

#include "sion/codec/codec.hpp"
#include "sion/exec/pulse.hpp"

namespace sion::exec::fuzzing {

using Transactions = codec::List<Transaction, 8>;

// Coins, plus what `held` says another kind of object holds (an agent's
// allotment, a stream's deposit; 0 for the rest).
template <class Held>
Amount value_of(const MemoryState& state, const Held& held) {
  Amount total = 0;
  for (const auto& [id, object] : state.objects()) {
    total +=
        object.type == static_cast<std::uint32_t>(ObjectType::coin) ? coin_from(object).value().amount : held(object);
  }
  return total;
}

template <class Held>
int run_pulse_of_kinds(const std::uint8_t* data, std::size_t size, const MemoryState& state, const ChainParams& params,
                       std::uint64_t height, const Held& held) {
  const base::ByteView bytes(data, size);
  auto txs = codec::decode<Transactions>(bytes);
  if (!txs) {
    if (txs.error().reason.empty()) std::abort();
    return 0;
  }
  if (codec::encode(*txs) != base::Bytes(bytes.begin(), bytes.end())) std::abort();
  const auto outcome = execute_pulse(state, *txs, params, height);
  if (!outcome || outcome->receipts.size() != txs->size()) std::abort();
  MemoryState after = state;
  if (!commit_pulse(after, *outcome)) std::abort();
  if (value_of(after, held) + outcome->fees != value_of(state, held)) std::abort();
  return 0;
}

}  // namespace sion::exec::fuzzing
