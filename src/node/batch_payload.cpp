#include "sion/node/batch_payload.hpp"

#include <fmt/format.h>

#include <atomic>

#include "sion/exec/pulse.hpp"

namespace sion::node {

base::Bytes encode_batch_payload(std::span<const std::shared_ptr<const exec::Transaction>> transactions) {
  BatchPayload payload;
  payload.transactions.reserve(transactions.size());
  for (const auto& tx : transactions) payload.transactions.push_back(*tx);
  return codec::encode(payload);
}

base::Result<BatchPayload> decode_batch_payload(base::ByteView payload) { return codec::decode<BatchPayload>(payload); }

base::Status check_batch(const consensus::Batch& batch, const ledger::ChainParams& params, base::Executor* executor,
                         crypto::VerifyCache* cache) {
  SION_TRY_CONTEXT(const BatchPayload payload, "batch payload", decode_batch_payload(batch.payload));
  const auto& transactions = payload.transactions;
  if (transactions.size() != batch.header.item_count) {
    return base::fail(base::Errc::invalid_value, fmt::format("batch payload: holds {} transactions, its header says {}",
                                                             transactions.size(), batch.header.item_count));
  }
  ledger::PulseUsage usage;
  for (const exec::Transaction& tx : transactions) {
    const ledger::PulseUsage one = exec::tx_usage(tx);
    if (!usage.fits(one, params.limits)) {
      return base::fail(base::Errc::invalid_value, "batch payload: its transactions exceed one Pulse's limits");
    }
    usage.add(one);
  }
  // The first bad signature by position, whichever thread finds it.
  std::atomic<std::size_t> first_bad{transactions.size()};
  base::for_slices(
      executor, transactions.size(), base::concurrency(executor), [&](unsigned, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          // A batch member's place is checked at execution.
          if (!exec::carries_signature(transactions[i]) || exec::verify_signatures(transactions[i], cache)) {
            continue;
          }
          std::size_t seen = first_bad.load();
          while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
          }
          return;
        }
      });
  if (first_bad.load() < transactions.size()) {
    return base::fail(
        base::Errc::invalid_value,
        fmt::format("batch payload: transaction {} has a signature bundle that does not verify", first_bad.load()));
  }
  return {};
}

}  // namespace sion::node
