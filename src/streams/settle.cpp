// SettleStream and CloseStream (docs/streams.md): both pay their fee out of
// the stream, so their rules run at step 7 and a settlement or close that
// does not hold is rejected, having written nothing.
#include <algorithm>

#include "sion/base/checked.hpp"
#include "sion/streams/kinds.hpp"

namespace sion::streams {

using ledger::BodyFee;
using ledger::Receipt;
using ledger::TxStatus;

namespace {

BodyFee reject(TxStatus status) { return BodyFee{status, 0}; }

// Whether the element walks down to the element the settlement starts from:
// the settled element (walked), or a checkpoint its path proves.
// `walked` is the walk's end when computed before the Pulse (in lanes).
TxStatus check_element(const Stream& stream, const SettleStream& body, const std::optional<Hash>& walked) {
  const std::uint32_t spacing = checkpoint_spacing(stream.length);
  const std::uint32_t start = body.path ? checkpoint_below(body.index, spacing) : stream.settled;
  if (body.from != start) return TxStatus::wrong_walk_start;
  const Hash reached = walked ? *walked : walk(body.element, walk_steps(body));
  if (!body.path) return reached == stream.settled_element ? TxStatus::success : TxStatus::bad_stream_element;
  if (body.from == 0) {
    return body.path->empty() && reached == stream.anchor ? TxStatus::success : TxStatus::bad_checkpoint_path;
  }
  const bool proven =
      proves_checkpoint(reached, body.from / spacing, checkpoint_count(stream.length), *body.path, stream.checkpoints);
  return proven ? TxStatus::success : TxStatus::bad_checkpoint_path;
}

// Deletes a stream whose deposit or chain is used up, returning what is
// left of the deposit to the payer at `refund_id`; returns the coins made.
std::uint32_t finish(ledger::Overlay& state, const Id& id, const Stream& stream, const Id& refund_id) {
  state.erase(id);
  if (stream.deposit == 0) return 0;
  state.put(refund_id, ledger::to_object(ledger::Coin{stream.payer, stream.deposit}, 1));
  return 1;
}

}  // namespace

std::uint64_t work_units(const SettleStream& body) noexcept {
  const std::uint64_t steps = body.index > body.from ? body.index - body.from : 0;
  const std::uint64_t tree = body.path ? 1 + body.path->size() : 0;
  return steps + tree;
}

base::Result<BodyFee> pay_fee_from_body(ledger::Overlay& state, const SettleStream& body,
                                        const ledger::BodyFeeRequest& request) {
  SION_TRY(auto stored, read_stream(state, body.stream));
  if (!stored) return reject(TxStatus::unknown_stream);
  Stream& stream = stored->stream;
  if (request.sender != stream.payee) return reject(TxStatus::not_stream_payee);
  if (request.height > stream.expiry_height) return reject(TxStatus::stream_expired);
  if (body.index <= stream.settled) return reject(TxStatus::index_not_above_settled);
  if (body.index > stream.length) return reject(TxStatus::index_past_end);
  const auto owed = base::checked_mul(body.index - stream.settled, stream.price);
  if (!owed || *owed > stream.deposit) return reject(TxStatus::beyond_deposit);
  if (const TxStatus status = check_element(stream, body, request.body_digest); status != TxStatus::success)
    return reject(status);
  if (*owed <= request.fee) return reject(TxStatus::fee_unpayable);

  stream.deposit -= *owed;
  stream.settled = body.index;
  stream.settled_element = body.element;
  state.put(request.new_ids[0], ledger::to_object(ledger::Coin{stream.payee, *owed - request.fee}, 1));
  // Used up: no step left to pay, or too little deposit to pay one.
  if (stream.settled == stream.length || stream.deposit < stream.price) {
    return BodyFee{TxStatus::success, 1 + finish(state, body.stream, stream, request.new_ids[1])};
  }
  state.put(body.stream, to_object(stream, stored->version + 1));
  return BodyFee{TxStatus::success, 1};
}

base::Result<BodyFee> pay_fee_from_body(ledger::Overlay& state, const CloseStream& body,
                                        const ledger::BodyFeeRequest& request) {
  SION_TRY(auto stored, read_stream(state, body.stream));
  if (!stored) return reject(TxStatus::unknown_stream);
  Stream& stream = stored->stream;
  if (request.sender != stream.payer) return reject(TxStatus::not_stream_payer);
  if (request.height <= stream.expiry_height) return reject(TxStatus::stream_not_expired);
  if (stream.deposit <= request.fee) return reject(TxStatus::fee_unpayable);
  stream.deposit -= request.fee;
  return BodyFee{TxStatus::success, finish(state, body.stream, stream, request.new_ids[0])};
}

base::Result<Receipt> apply_body(ledger::Overlay&, const SettleStream&, const ledger::Authorized& tx,
                                 std::span<const Id>) {
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, tx.coins_created};
}

base::Result<Receipt> apply_body(ledger::Overlay&, const CloseStream&, const ledger::Authorized& tx,
                                 std::span<const Id>) {
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, tx.coins_created};
}

}  // namespace sion::streams
