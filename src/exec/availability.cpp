#include "sion/exec/availability.hpp"

#include <string>

#include "sion/codec/codec.hpp"

namespace sion::exec {
namespace {

using PulseData = codec::List<TxPayload, kMaxPublishedTransactions>;

}  // namespace

base::Bytes pulse_data(std::span<const Transaction> transactions) {
  PulseData payloads;
  payloads.reserve(transactions.size());
  for (const Transaction& tx : transactions) payloads.push_back(tx.payload);
  return codec::encode(payloads);
}

base::Result<std::vector<TxPayload>> decode_pulse_data(base::ByteView data) {
  SION_TRY(auto payloads, codec::decode<PulseData>(data));
  return std::vector<TxPayload>(std::move(payloads));
}

base::Result<PublishedPulse> publish_pulse(std::span<const Transaction> transactions, base::Executor* executor,
                                           da::SquarePool* pool) {
  const base::Bytes data = pulse_data(transactions);
  if (data.size() > da::kMaxDataBytes) {
    return base::fail(base::Errc::invalid_argument, "the Pulse's data is " + std::to_string(data.size()) +
                                                        " bytes; one square holds at most " +
                                                        std::to_string(da::kMaxDataBytes));
  }
  SION_TRY(auto square, da::ExtendedSquare::from_data(data, executor, pool));
  da::SquareCommitment trees = da::SquareCommitment::compute(square, executor);
  const da::DataCommitment commitment{square.original_width(), data.size(), trees.data_root()};
  return PublishedPulse{std::move(square), std::move(trees), commitment};
}

}  // namespace sion::exec
