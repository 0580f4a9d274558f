#include "sion/node/json_views.hpp"

#include "sion/base/bytes.hpp"
#include "sion/ledger/objects.hpp"

namespace sion::node {

Json header_json(const exec::PulseHeader& header) {
  return Json{{"height", header.height},
              {"parent", base::to_hex(header.parent)},
              {"time_ms", header.time_ms},
              {"proposer", base::to_hex(header.proposer)},
              {"transactions_root", base::to_hex(header.transactions_root)},
              {"receipts_root", base::to_hex(header.receipts_root)},
              {"state_root", base::to_hex(header.state_root)},
              {"data", Json{{"original_width", header.data.original_width},
                            {"data_bytes", header.data.data_bytes},
                            {"data_root", base::to_hex(header.data.data_root)}}},
              {"params_hash", base::to_hex(header.params_hash)}};
}

Json receipt_json(const exec::Receipt& receipt) {
  Json coin_ids = Json::array();
  for (const exec::Id& id : exec::coin_ids(receipt.tx_id, receipt.coins_created)) coin_ids.push_back(base::to_hex(id));
  return Json{{"tx_id", base::to_hex(receipt.tx_id)},
              {"status", std::string(exec::status_name(receipt.status))},
              {"status_code", static_cast<unsigned>(receipt.status)},
              {"fee_paid", receipt.fee_paid},
              {"coins_created", receipt.coins_created},
              {"coin_ids", std::move(coin_ids)}};
}

Json object_json(const state::Object& object) {
  std::string type_name = "unknown";
  if (object.type == static_cast<std::uint32_t>(ledger::ObjectType::account)) type_name = "account";
  if (object.type == static_cast<std::uint32_t>(ledger::ObjectType::coin)) type_name = "coin";
  return Json{{"type", object.type},
              {"type_name", type_name},
              {"version", object.version},
              {"data_hex", base::to_hex(object.data)}};
}

std::string pulse_event_json(const exec::PulseHeader& header, std::size_t transactions) {
  return Json{{"height", header.height},
              {"hash", base::to_hex(exec::pulse_hash(header))},
              {"transactions", transactions},
              {"state_root", base::to_hex(header.state_root)},
              {"time_ms", header.time_ms}}
      .dump();
}

std::string executed_event_json(const exec::Receipt& receipt, std::uint64_t height, std::uint32_t index) {
  return Json{{"tx_id", base::to_hex(receipt.tx_id)},
              {"status", "executed"},
              {"height", height},
              {"index", index},
              {"receipt", receipt_json(receipt)}}
      .dump();
}

std::string removal_status(policy::RemovalReason reason) {
  const bool dropped = reason == policy::RemovalReason::stale_nonce || reason == policy::RemovalReason::inputs_spent;
  return dropped ? std::string("dropped") : std::string(policy::removal_reason_name(reason));
}

std::string removed_event_json(const policy::Removed& removed) {
  return Json{{"tx_id", base::to_hex(removed.tx_id)},
              {"status", removal_status(removed.reason)},
              {"reason", std::string(policy::removal_reason_name(removed.reason))}}
      .dump();
}

}  // namespace sion::node
