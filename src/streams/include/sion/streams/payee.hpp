#pragma once
// The payee's side of a stream (docs/streams.md, "Being paid"): each
// payment is checked with one hash against the last one accepted, with no
// ledger involved; the payee keeps the highest element and its index, and
// settles with them, by checkpoint or walked.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/streams/kinds.hpp"
#include "sion/streams/objects.hpp"
#include "sion/streams/payer.hpp"

namespace sion::streams {

// Why a payment is refused. Stable codes: programs read them.
enum class Refusal : std::uint8_t {
  replayed = 1,             // an index at or below the last accepted
  out_of_order = 2,         // an index past the next one
  forged = 3,               // the element does not hash to the last accepted element
  past_end = 4,             // an index past the chain's length
  beyond_deposit = 5,       // the deposit does not cover this many payments
  checkpoint_mismatch = 6,  // a checkpoint element differs from the payer's list: settle walked from here
};
std::string_view refusal_name(Refusal refusal) noexcept;

struct PaymentVerdict {
  std::optional<Refusal> refusal;  // nullopt: accepted
  std::string reason;              // why, when refused
  explicit operator bool() const noexcept { return !refusal; }
};

// What a payee keeps across restarts.
struct PayeeRecord {
  Id stream_id{};
  Stream terms;  // the stream as opened
  Checkpoints checkpoints;
  std::uint32_t accepted = 0;  // the highest index accepted
  Hash element{};              // x[accepted]
  static constexpr std::string_view codec_name = "PayeeRecord";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("stream_id", &PayeeRecord::stream_id), codec::field("terms", &PayeeRecord::terms),
                      codec::field("checkpoints", &PayeeRecord::checkpoints),
                      codec::field("accepted", &PayeeRecord::accepted), codec::field("element", &PayeeRecord::element)};
  }
  bool operator==(const PayeeRecord&) const = default;
};

class StreamPayee {
 public:
  // A stream as opened on the ledger (nothing settled yet) and the
  // checkpoints its payer handed over: refused unless they are as many as
  // the length gives and their root is the stream's.
  static base::Result<StreamPayee> open(const Id& stream_id, const Stream& opened, Checkpoints checkpoints);
  // Goes on from a record, checked as open() checks.
  static base::Result<StreamPayee> resume(PayeeRecord record);

  // Payment accepted + 1: one hash. Accepted, it becomes the last.
  PaymentVerdict accept(const Payment& payment);
  // out[i] = payees[i]->accept(payments[i]) for every i, in order, with
  // the hashes of the payments that pass the index checks computed
  // together in Keccak lanes (crypto::sha3_256_many): a payee serving many
  // streams checks a payment from each at once. A payee listed more than
  // once gets its later payments checked after the earlier ones, as
  // accept() would. invalid_argument, with nothing checked, unless the two
  // spans have the same size; no entry of payees may be null.
  static base::Status accept_in_lanes(std::span<StreamPayee* const> payees, std::span<const Payment> payments,
                                      PaymentVerdict* out);

  std::uint32_t accepted() const noexcept { return record_.accepted; }
  const PayeeRecord& record() const noexcept { return record_; }
  // What the accepted payments are worth, from index `settled` on.
  Amount owed_since(std::uint32_t settled) const noexcept;

  // A settlement of everything accepted, by checkpoint: at most c - 1 steps
  // and one path. invalid_argument when nothing was accepted.
  base::Result<SettleStream> settle_by_checkpoint() const;
  // A walked settlement from the stream's settled index and element (read
  // from the ledger): accepted - settled steps.
  base::Result<SettleStream> settle_walked(std::uint32_t settled) const;

 private:
  StreamPayee() = default;
  // accept()'s checks before the hash, in its order: the refusal, or
  // nullopt when the payment is the next one and the deposit covers it.
  std::optional<PaymentVerdict> check_place(const Payment& payment) const;
  // accept()'s checks after the hash, given chain_step(payment.element);
  // a payment that passes them is accepted.
  PaymentVerdict take(const Payment& payment, const Hash& stepped);

  PayeeRecord record_;
  std::uint32_t spacing_ = 1;
};

}  // namespace sion::streams
