#pragma once
// What a Pulse publishes for data availability (docs/ledger.md, "Published
// data"): the ordered payloads of its transactions, laid out in one
// extended square (docs/data-availability.md). Key bundles and signatures
// are checked by validators and not published: they are most of a
// transaction's bytes (about 19 KB of a dual-signed transfer's 20 KB) and
// nothing after execution needs them.

#include <cstdint>
#include <span>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/square.hpp"
#include "sion/exec/transaction.hpp"

namespace sion::exec {

// The most transactions one Pulse's data lists: the codec bound of the
// list, far above any PulseLimits.max_transactions in use.
inline constexpr std::size_t kMaxPublishedTransactions = std::size_t{1} << 24;

// PulseData = list<TxPayload>, the payloads in Pulse order.
base::Bytes pulse_data(std::span<const Transaction> transactions);

// The payloads back from a Pulse's data (the first data_bytes bytes of its
// square's original quadrant); a decode error names what was wrong.
base::Result<std::vector<TxPayload>> decode_pulse_data(base::ByteView data);

struct PublishedPulse {
  da::ExtendedSquare square;
  da::SquareCommitment trees;     // for serving share proofs
  da::DataCommitment commitment;  // what the Pulse header carries
};

// Lays the Pulse's data out, extends it and commits to it. invalid_argument
// when the data is larger than one square (8 MiB): such a Pulse cannot be
// published and a proposer must not build it. On `executor` (nullptr: the
// calling thread), in square memory from `pool` when given.
base::Result<PublishedPulse> publish_pulse(std::span<const Transaction> transactions,
                                           base::Executor* executor = nullptr, da::SquarePool* pool = nullptr);

}  // namespace sion::exec
