#include "sion/streams/payer.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace sion::streams {

base::Result<StreamPayer> StreamPayer::create(const Hash& seed, std::uint32_t length) {
  SION_TRY(Chain chain, build_chain(seed, length));
  StreamPayer payer;
  payer.record_.seed = seed;
  payer.record_.length = length;
  payer.record_.checkpoints.assign(chain.checkpoints.begin(), chain.checkpoints.end());
  payer.spacing_ = checkpoint_spacing(length);
  payer.anchor_ = chain.anchor;
  return payer;
}

base::Result<StreamPayer> StreamPayer::resume(PayerRecord record) {
  if (record.length == 0) return base::fail(base::Errc::invalid_argument, "the chain's length is 0");
  if (record.revealed > record.length) {
    return base::fail(base::Errc::invalid_argument, "revealed " + std::to_string(record.revealed) +
                                                        " payments of a chain of " + std::to_string(record.length));
  }
  if (record.checkpoints.size() != checkpoint_count(record.length)) {
    return base::fail(base::Errc::invalid_argument, "a chain of " + std::to_string(record.length) + " has " +
                                                        std::to_string(checkpoint_count(record.length)) +
                                                        " checkpoints, the record lists " +
                                                        std::to_string(record.checkpoints.size()));
  }
  StreamPayer payer;
  payer.spacing_ = checkpoint_spacing(record.length);
  payer.anchor_ = walk(record.checkpoints.front(), payer.spacing_);
  payer.record_ = std::move(record);
  return payer;
}

void StreamPayer::load_segment(std::uint32_t index) {
  const std::uint32_t low = checkpoint_below(index - 1, spacing_);
  const std::uint32_t high =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{low} + spacing_, record_.length));
  // x[high] is a checkpoint, or the seed at the top of the chain.
  const bool at_checkpoint = high % spacing_ == 0 && high / spacing_ <= record_.checkpoints.size();
  Hash element = at_checkpoint ? record_.checkpoints[high / spacing_ - 1] : record_.seed;
  segment_.resize(high - low);
  segment_low_ = low;
  for (std::uint32_t i = high; i > low; --i) {
    segment_[i - low - 1] = element;
    if (i > low + 1) element = chain_step(element);
  }
}

base::Result<Payment> StreamPayer::next() {
  if (record_.revealed >= record_.length) {
    return base::fail(base::Errc::invalid_argument,
                      "the chain is spent: all " + std::to_string(record_.length) + " payments were made");
  }
  const std::uint32_t index = record_.revealed + 1;
  if (segment_.empty() || index <= segment_low_ || index > segment_low_ + segment_.size()) load_segment(index);
  record_.revealed = index;
  return Payment{index, segment_[index - segment_low_ - 1]};
}

}  // namespace sion::streams
