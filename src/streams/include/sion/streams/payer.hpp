#pragma once
// The payer's side of a stream (docs/streams.md, "Paying"): the chain is
// built once; payments reveal x[1], x[2], ... in order. The payer keeps the
// seed, the checkpoints and the segment of at most c elements it is paying
// from: O(sqrt n) memory, and each segment costs c - 1 hashes for c
// payments, under one hash a payment.

#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/streams/chain.hpp"

namespace sion::streams {

// Checkpoints of a chain of up to 2^32 - 1 elements: c >= sqrt(n), so at
// most 2^16.
inline constexpr std::size_t kMaxCheckpoints = 65'536;
using Checkpoints = codec::List<Hash, kMaxCheckpoints>;

// One payment: x[index].
struct Payment {
  std::uint32_t index = 0;
  Hash element{};
  bool operator==(const Payment&) const = default;
};

// What a payer keeps across restarts: enough to go on without rebuilding
// the chain.
struct PayerRecord {
  Hash seed{};  // x[length]: a secret
  std::uint32_t length = 0;
  std::uint32_t revealed = 0;  // payments made: x[1 .. revealed]
  Checkpoints checkpoints;
  static constexpr std::string_view codec_name = "PayerRecord";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("seed", &PayerRecord::seed), codec::field("length", &PayerRecord::length),
                      codec::field("revealed", &PayerRecord::revealed),
                      codec::field("checkpoints", &PayerRecord::checkpoints)};
  }
  bool operator==(const PayerRecord&) const = default;
};

class StreamPayer {
 public:
  // Builds the chain from `seed`: length hashes.
  static base::Result<StreamPayer> create(const Hash& seed, std::uint32_t length);
  // Goes on from a record; refused if its fields do not fit together (the
  // checkpoint count, revealed <= length).
  static base::Result<StreamPayer> resume(PayerRecord record);

  std::uint32_t length() const noexcept { return record_.length; }
  std::uint32_t revealed() const noexcept { return record_.revealed; }
  std::uint32_t spacing() const noexcept { return spacing_; }
  const Checkpoints& checkpoints() const noexcept { return record_.checkpoints; }
  // x[0], kept from creation or walked once on resume.
  const Hash& anchor() const noexcept { return anchor_; }
  Hash checkpoint_root() const { return streams::checkpoint_root(record_.checkpoints); }
  const PayerRecord& record() const noexcept { return record_; }

  // The next payment, x[revealed + 1]; invalid_argument past the end.
  base::Result<Payment> next();

 private:
  StreamPayer() = default;
  // Fills segment_ with x[lo + 1 .. hi] for the segment holding `index`.
  void load_segment(std::uint32_t index);

  PayerRecord record_;
  std::uint32_t spacing_ = 1;
  Hash anchor_{};
  std::uint32_t segment_low_ = 0;  // segment_[i] = x[segment_low_ + 1 + i]
  std::vector<Hash> segment_;
};

}  // namespace sion::streams
