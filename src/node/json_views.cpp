#include "sion/node/json_views.hpp"

#include <span>
#include <variant>
#include <vector>

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
  if (object.type == static_cast<std::uint32_t>(ledger::ObjectType::charter)) type_name = "charter";
  if (object.type == static_cast<std::uint32_t>(ledger::ObjectType::allotment)) type_name = "allotment";
  if (object.type == static_cast<std::uint32_t>(ledger::ObjectType::overlay)) type_name = "overlay";
  if (object.type == static_cast<std::uint32_t>(ledger::ObjectType::batch)) type_name = "batch";
  if (object.type == static_cast<std::uint32_t>(ledger::ObjectType::stream)) type_name = "stream";
  return Json{{"type", object.type},
              {"type_name", type_name},
              {"version", object.version},
              {"data_hex", base::to_hex(object.data)}};
}

namespace {

Json ids_json(std::span<const exec::Id> ids) {
  Json out = Json::array();
  for (const exec::Id& id : ids) out.push_back(base::to_hex(id));
  return out;
}

}  // namespace

Json caveats_json(const agents::Caveats& c) {
  return Json{{"expiry_height", c.expiry_height}, {"per_payment", c.per_payment}, {"period_cap", c.period_cap},
              {"period_length", c.period_length}, {"actions", c.actions},         {"payee_classes", c.payee_classes},
              {"payees", ids_json(c.payees)}};
}

Json narrowing_json(const agents::Narrowing& n) {
  return Json{{"expiry_height", n.expiry_height}, {"per_payment", n.per_payment},
              {"period_cap", n.period_cap},       {"actions", n.actions},
              {"payee_classes", n.payee_classes}, {"payees", ids_json(n.payees)}};
}

Json authority_json(const agents::Authority& authority) {
  if (const auto* keyed = std::get_if<agents::Keyed>(&authority)) return Json{{"keyed", base::to_hex(keyed->keys_id)}};
  return Json{{"keyless_controller", base::to_hex(std::get<agents::Keyless>(authority).controller)}};
}

Json agent_json(const agents::AgentState& agent, const agents::Standing& standing, std::uint64_t height) {
  const agents::Charter& charter = agent.charter;
  const agents::EffectiveCaveats& effective = standing.caveats;
  Json narrowings = Json::array();
  for (const agents::Narrowing& n : effective.narrowings) narrowings.push_back(narrowing_json(n));
  Json cohort = nullptr;
  if (charter.cohort) {
    cohort = Json{{"root", base::to_hex(charter.cohort->root)},
                  {"total", charter.cohort->total},
                  {"count", charter.cohort->count}};
  }
  const std::uint64_t period_length = charter.caveats.period_length;
  return Json{
      {"id", base::to_hex(agent.id)},
      {"lineage",
       Json{{"root", base::to_hex(charter.lineage.root)},
            {"path", Json(std::vector<std::uint32_t>(charter.lineage.path.begin(), charter.lineage.path.end()))},
            {"depth", charter.lineage.depth()}}},
      {"authority", authority_json(charter.authority)},
      {"caveats", caveats_json(charter.caveats)},
      {"cohort", std::move(cohort)},
      {"allotment", Json{{"balance", agent.allotment.balance},
                         {"nonce", agent.allotment.nonce},
                         {"moved_this_period", agent.allotment.moved_at(height, period_length)},
                         {"period", height / period_length}}},
      {"standing", Json{{"height", height},
                        {"status", std::string(ledger::status_name(standing.status))},
                        {"expiry_height", effective.expiry_height()},
                        {"per_payment", effective.per_payment()},
                        {"period_cap", effective.period_cap()},
                        {"actions", effective.actions()},
                        {"narrowings", std::move(narrowings)}}}};
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

Json stream_json(const ledger::Id& id, const streams::Stream& stream, std::uint64_t height) {
  const std::uint64_t next = height + 1;
  return Json{{"id", base::to_hex(id)},
              {"height", height},
              {"payer", base::to_hex(stream.payer)},
              {"payee", base::to_hex(stream.payee)},
              {"price", stream.price},
              {"length", stream.length},
              {"anchor", base::to_hex(stream.anchor)},
              {"checkpoint_root", base::to_hex(stream.checkpoints)},
              {"checkpoint_spacing", streams::checkpoint_spacing(stream.length)},
              {"deposit", stream.deposit},
              {"expiry_height", stream.expiry_height},
              {"settled", stream.settled},
              {"settled_element", base::to_hex(stream.settled_element)},
              // A settlement in the next Pulse is rejected, and a close
              // accepted, past the expiry height.
              {"expired", next > stream.expiry_height}};
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
