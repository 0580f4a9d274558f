#include "sion/streams/payee.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "sion/base/checked.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::streams {

std::string_view refusal_name(Refusal refusal) noexcept {
  switch (refusal) {
    case Refusal::replayed: return "replayed";
    case Refusal::out_of_order: return "out_of_order";
    case Refusal::forged: return "forged";
    case Refusal::past_end: return "past_end";
    case Refusal::beyond_deposit: return "beyond_deposit";
    case Refusal::checkpoint_mismatch: return "checkpoint_mismatch";
  }
  return "unknown";
}

namespace {

PaymentVerdict refuse(Refusal refusal, std::string reason) { return PaymentVerdict{refusal, std::move(reason)}; }

}  // namespace

base::Result<StreamPayee> StreamPayee::open(const Id& stream_id, const Stream& opened, Checkpoints checkpoints) {
  PayeeRecord record;
  record.stream_id = stream_id;
  record.terms = opened;
  record.checkpoints = std::move(checkpoints);
  record.accepted = opened.settled;
  record.element = opened.settled_element;
  return resume(std::move(record));
}

base::Result<StreamPayee> StreamPayee::resume(PayeeRecord record) {
  const Stream& terms = record.terms;
  if (terms.length == 0 || terms.price == 0) {
    return base::fail(base::Errc::invalid_argument, "the stream's length and price must be above 0");
  }
  if (record.accepted > terms.length) {
    return base::fail(base::Errc::invalid_argument, "accepted index " + std::to_string(record.accepted) +
                                                        " is past the length " + std::to_string(terms.length));
  }
  if (record.checkpoints.size() != checkpoint_count(terms.length)) {
    return base::fail(base::Errc::invalid_argument, "a stream of length " + std::to_string(terms.length) + " has " +
                                                        std::to_string(checkpoint_count(terms.length)) +
                                                        " checkpoints, " + std::to_string(record.checkpoints.size()) +
                                                        " were given");
  }
  if (checkpoint_root(record.checkpoints) != terms.checkpoints) {
    return base::fail(base::Errc::invalid_argument, "the checkpoints do not hash to the stream's checkpoint root");
  }
  StreamPayee payee;
  payee.spacing_ = checkpoint_spacing(terms.length);
  payee.record_ = std::move(record);
  return payee;
}

std::optional<PaymentVerdict> StreamPayee::check_place(const Payment& payment) const {
  const std::uint32_t last = record_.accepted;
  const Stream& terms = record_.terms;
  if (payment.index <= last) {
    return refuse(Refusal::replayed, "payment " + std::to_string(payment.index) + " is at or below " +
                                         std::to_string(last) + ", the last accepted");
  }
  if (payment.index > terms.length) {
    return refuse(Refusal::past_end, "payment " + std::to_string(payment.index) + " is past the stream's length " +
                                         std::to_string(terms.length));
  }
  if (payment.index != last + 1) {
    return refuse(Refusal::out_of_order, "payment " + std::to_string(payment.index) + " skips ahead of " +
                                             std::to_string(last + 1) + ", the next");
  }
  const auto cost = base::checked_mul(payment.index, terms.price);
  if (!cost || *cost > terms.deposit) {
    return refuse(Refusal::beyond_deposit, "payment " + std::to_string(payment.index) + " at " +
                                               std::to_string(terms.price) + " a step passes the deposit of " +
                                               std::to_string(terms.deposit));
  }
  return std::nullopt;
}

PaymentVerdict StreamPayee::take(const Payment& payment, const Hash& stepped) {
  if (stepped != record_.element) {
    return refuse(Refusal::forged, "element of payment " + std::to_string(payment.index) +
                                       " does not hash to the element of payment " + std::to_string(record_.accepted));
  }
  // The element is on the chain; a checkpoint that differs means the
  // payer's list is wrong and settlements by checkpoint from here fail.
  if (payment.index % spacing_ == 0) {
    const std::uint32_t number = payment.index / spacing_;
    if (number <= record_.checkpoints.size() && record_.checkpoints[number - 1] != payment.element) {
      return refuse(Refusal::checkpoint_mismatch, "payment " + std::to_string(payment.index) +
                                                      " differs from the payer's checkpoint " + std::to_string(number));
    }
  }
  record_.accepted = payment.index;
  record_.element = payment.element;
  return {};
}

PaymentVerdict StreamPayee::accept(const Payment& payment) {
  if (auto refused = check_place(payment)) return std::move(*refused);
  return take(payment, chain_step(payment.element));
}

base::Status StreamPayee::accept_in_lanes(std::span<StreamPayee* const> payees, std::span<const Payment> payments,
                                          PaymentVerdict* out) {
  if (payees.size() != payments.size()) {
    return base::fail(base::Errc::invalid_argument, std::to_string(payees.size()) + " payees and " +
                                                        std::to_string(payments.size()) +
                                                        " payments: one payment a payee");
  }
  // Groups of 8, the widest Keccak lanes (AVX-512); the step inputs of a
  // group stay on the stack.
  constexpr std::size_t kGroup = 8;
  std::array<std::array<std::uint8_t, 1 + 32>, kGroup> inputs;
  std::array<const std::uint8_t*, kGroup> pointers;
  std::array<Hash, kGroup> hashed;
  std::array<std::size_t, kGroup> hashing;   // entries whose hash is in the lanes
  std::array<std::size_t, kGroup> deferred;  // entries of a payee listed earlier in the group
  for (std::size_t begin = 0; begin < payees.size(); begin += kGroup) {
    const std::size_t end = std::min(payees.size(), begin + kGroup);
    std::size_t lanes = 0;
    std::size_t later = 0;
    for (std::size_t i = begin; i < end; ++i) {
      bool repeated = false;
      for (std::size_t j = begin; j < i && !repeated; ++j) repeated = payees[j] == payees[i];
      if (repeated) {
        deferred[later++] = i;
        continue;
      }
      if (auto refused = payees[i]->check_place(payments[i])) {
        out[i] = std::move(*refused);
        continue;
      }
      inputs[lanes][0] = static_cast<std::uint8_t>(commit::Domain::stream_step);
      std::memcpy(inputs[lanes].data() + 1, payments[i].element.data(), 32);
      pointers[lanes] = inputs[lanes].data();
      hashing[lanes++] = i;
    }
    crypto::sha3_256_many(pointers.data(), 1 + 32, hashed.data(), lanes);
    for (std::size_t k = 0; k < lanes; ++k) {
      const std::size_t i = hashing[k];
      out[i] = payees[i]->take(payments[i], hashed[k]);
    }
    // After the group's first payment to the same payee, in order.
    for (std::size_t k = 0; k < later; ++k) out[deferred[k]] = payees[deferred[k]]->accept(payments[deferred[k]]);
  }
  return {};
}

Amount StreamPayee::owed_since(std::uint32_t settled) const noexcept {
  if (record_.accepted <= settled) return 0;
  return Amount{record_.accepted - settled} * record_.terms.price;  // within the deposit: accept() checked
}

base::Result<SettleStream> StreamPayee::settle_by_checkpoint() const {
  if (record_.accepted == 0) return base::fail(base::Errc::invalid_argument, "no payment was accepted");
  SettleStream body;
  body.stream = record_.stream_id;
  body.index = record_.accepted;
  body.element = record_.element;
  body.from = checkpoint_below(body.index, spacing_);
  CheckpointPath path;
  if (body.from > 0) {
    SION_TRY(const auto proof, checkpoint_path(record_.checkpoints, body.from / spacing_));
    path.assign(proof.begin(), proof.end());
  }
  body.path = std::move(path);
  return body;
}

base::Result<SettleStream> StreamPayee::settle_walked(std::uint32_t settled) const {
  if (record_.accepted <= settled) {
    return base::fail(base::Errc::invalid_argument, "nothing to settle: accepted " + std::to_string(record_.accepted) +
                                                        ", settled " + std::to_string(settled));
  }
  SettleStream body;
  body.stream = record_.stream_id;
  body.from = settled;
  body.index = record_.accepted;
  body.element = record_.element;
  return body;
}

}  // namespace sion::streams
