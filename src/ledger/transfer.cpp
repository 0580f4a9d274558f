#include "sion/ledger/transfer.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "sion/base/checked.hpp"
#include "sion/ledger/coins.hpp"

namespace sion::ledger {

namespace {

struct BodyCheck {
  TxStatus status = TxStatus::success;
  Amount change = 0;  // on success
};

// Step 8 of docs/ledger.md, "Applying a transaction": each check runs over
// the whole list before the next, so the first failing kind decides.
base::Result<BodyCheck> check_transfer(const Overlay& state, const Transfer& transfer, const Authorized& tx) {
  SION_TRY(const auto inputs, check_coins(state, transfer.inputs, tx.sender));
  if (inputs.status != TxStatus::success) return BodyCheck{inputs.status};
  for (const Output& output : transfer.outputs) {
    if (output.amount == 0) return BodyCheck{TxStatus::zero_amount};
  }
  const std::optional<Amount>& in = inputs.total;
  std::optional<Amount> out = tx.fee;
  for (const Output& output : transfer.outputs) out = out ? base::checked_add(*out, output.amount) : std::nullopt;
  if (!in || !out) return BodyCheck{TxStatus::amount_overflow};
  if (*in < *out) return BodyCheck{TxStatus::insufficient_funds};
  return BodyCheck{TxStatus::success, *in - *out};
}

}  // namespace

std::optional<Id> fee_coin(const Transfer& transfer) noexcept {
  if (transfer.inputs.empty()) return std::nullopt;
  return transfer.inputs[0];
}

std::uint32_t max_created_objects(const Transfer& transfer) noexcept {
  return static_cast<std::uint32_t>(transfer.outputs.size() + 1);
}

base::Result<Receipt> apply_body(Overlay& state, const Transfer& transfer, const Authorized& tx,
                                 std::span<const Id> new_ids) {
  SION_TRY(const auto body, check_transfer(state, transfer, tx));
  if (body.status != TxStatus::success) return fail_transaction(state, tx, body.status, new_ids[0]);

  std::uint32_t created = 0;
  for (const Output& output : transfer.outputs) {
    state.put(new_ids[created++], to_object(Coin{output.owner, output.amount}, 1));
  }
  created += spend_coins(state, transfer.inputs, tx.sender, body.change, new_ids[created]);
  return Receipt{tx.tx_id, TxStatus::success, tx.fee, created};
}

}  // namespace sion::ledger
