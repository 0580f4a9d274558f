// OpenStream (docs/streams.md, "OpenStream"): the deposit leaves the payer,
// an account's coins or an agent's allotment, and the stream is stored.
#include "sion/agents/payer.hpp"
#include "sion/base/checked.hpp"
#include "sion/streams/kinds.hpp"

namespace sion::streams {

using ledger::Receipt;
using ledger::TxStatus;

namespace {

// Price, length, deposit and expiry within their ranges: at least one step
// paid for, no more deposit than the whole chain costs, and an expiry still
// ahead.
bool well_formed(const OpenStream& body, std::uint64_t height) {
  if (body.price == 0 || body.length == 0 || body.deposit < body.price) return false;
  const auto whole = base::checked_mul(body.price, body.length);
  if (whole && body.deposit > *whole) return false;
  return body.expiry_height > height;
}

}  // namespace

std::optional<Id> fee_coin(const OpenStream& body) noexcept {
  if (body.coins.empty()) return std::nullopt;
  return body.coins[0];
}

base::Result<Receipt> apply_body(ledger::Overlay& state, const OpenStream& body, const ledger::Authorized& tx,
                                 std::span<const Id> new_ids) {
  using agents::detail::fail;
  const agents::Coins& coins = body.coins;
  SION_TRY(auto loaded, agents::detail::load_payer(state, tx, coins, agents::Action::pay));
  if (loaded.status != TxStatus::success) return fail(state, tx, loaded.status, new_ids);
  if (!well_formed(body, tx.height)) return fail(state, tx, TxStatus::stream_malformed, new_ids);
  // An agent streams within its caveats: the payee allowed, each step a
  // payment under the per-payment cap, the deposit moved in its period.
  if (loaded.payer.agent) {
    const agents::EffectiveCaveats& caveats = loaded.payer.caveats;
    if (!caveats.allows_payee(body.payee)) return fail(state, tx, TxStatus::payee_not_allowed, new_ids);
    if (body.price > caveats.per_payment()) return fail(state, tx, TxStatus::above_per_payment, new_ids);
  }
  SION_TRY(const auto funds, agents::detail::check_funds(state, loaded.payer, coins, body.deposit, tx));
  if (funds.status != TxStatus::success) return fail(state, tx, funds.status, new_ids);

  const std::uint32_t created =
      agents::detail::take_funds(state, loaded.payer, coins, body.deposit, funds, tx, new_ids[0]);
  const Stream stream{.payer = tx.sender,
                      .payee = body.payee,
                      .price = body.price,
                      .length = body.length,
                      .anchor = body.anchor,
                      .checkpoints = body.checkpoints,
                      .deposit = body.deposit,
                      .expiry_height = body.expiry_height,
                      .settled = 0,
                      .settled_element = body.anchor};
  state.put(stream_id(tx.tx_id), to_object(stream, 1));
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, created};
}

}  // namespace sion::streams
