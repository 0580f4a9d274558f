#pragma once
// What a validator's batches carry (docs/consensus.md, "Batch payloads"):
// consensus treats a batch's payload as opaque bytes; a node fills it with
// the codec encoding of a BatchPayload, transactions from its mempool in the
// order they are to execute, and checks a peer's before approving it.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/consensus/messages.hpp"
#include "sion/crypto/verify_cache.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/ledger/params.hpp"

namespace sion::node {

inline constexpr std::size_t kMaxBatchTransactions = 4096;

struct BatchPayload {
  codec::List<exec::Transaction, kMaxBatchTransactions> transactions;
  static constexpr std::string_view codec_name = "BatchPayload";
  static constexpr auto codec_fields() { return std::tuple{codec::field("transactions", &BatchPayload::transactions)}; }
  bool operator==(const BatchPayload&) const = default;
};

base::Bytes encode_batch_payload(std::span<const std::shared_ptr<const exec::Transaction>> transactions);

// Decodes a payload. invalid_value naming the problem (codec::decode's).
base::Result<BatchPayload> decode_batch_payload(base::ByteView payload);

// The checks a validator makes before it approves a peer's batch: the
// payload decodes, holds header.item_count transactions, their usage fits
// one Pulse's limits (a batch no Pulse could hold is no use), and every
// transaction's signature bundle verifies (through `cache`, the checks split
// over `executor`). Invalid input naming the first failure.
base::Status check_batch(const consensus::Batch& batch, const ledger::ChainParams& params, base::Executor* executor,
                         crypto::VerifyCache* cache);

}  // namespace sion::node
