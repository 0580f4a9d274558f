// Admission of the kinds that pay their fee out of a stream (docs/streams.md,
// "Mempool admission"; docs/mempool.md, "Admission").
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>

#include "sion/base/bytes.hpp"
#include "sion/ledger/receipt.hpp"
#include "sion/policy/kind_rules.hpp"
#include "sion/streams/kinds.hpp"

namespace sion::policy {

base::Result<PolicyVerdict> check_fee_from_body(const exec::TxPayload& payload, const ledger::StateView& view) {
  return std::visit(
      [&](const auto& body) -> base::Result<PolicyVerdict> {
        using Kind = std::decay_t<decltype(body)>;
        constexpr bool settle = std::is_same_v<Kind, streams::SettleStream>;
        constexpr bool close = std::is_same_v<Kind, streams::CloseStream>;
        if constexpr (!settle && !close) {
          return refuse(PolicyCode::fee_unpayable, "the transaction names no fee coin");
        } else {
          // The ledger's own rules, on a scratch overlay that is dropped: a
          // claim the ledger would reject pays no fee, so it is refused here
          // rather than costing every validator its walk for nothing. The
          // pool does not know the height it will run at, so the expiry is
          // left to execution: a settlement is checked as if at height 0
          // (never expired), a close as if at the last height (always).
          ledger::Overlay scratch(view);
          const exec::Id id = exec::tx_id(payload);
          const auto new_ids = exec::coin_ids(id, streams::max_created_objects(body));
          const ledger::BodyFeeRequest request{
              .tx_id = id,
              .sender = payload.sender,
              .fee = payload.fee,
              .height = settle ? 0 : std::numeric_limits<std::uint64_t>::max(),
              .new_ids = new_ids,
              .body_digest = std::nullopt,
          };
          SION_TRY(const ledger::BodyFee paid, streams::pay_fee_from_body(scratch, body, request));
          if (paid.status != ledger::TxStatus::success) {
            return refuse(PolicyCode::fee_unpayable, std::string(settle ? "settlement" : "close") + " of stream " +
                                                         base::to_hex(base::ByteView(body.stream.data(), 8)) +
                                                         " pays no fee: the ledger would reject it as " +
                                                         std::string(ledger::status_name(paid.status)) +
                                                         " (docs/streams.md)");
          }
          return PolicyVerdict{};
        }
      },
      payload.body);
}

}  // namespace sion::policy
