#pragma once
// The JSON the node's API and events send (docs/api.md): headers,
// receipts, objects and events, built in one place so routes and events
// show the same thing the same way. Hashes and bytes are lower-case hex;
// what a client verifies is also sent as the hex of its encoding.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sion/agents/standing.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/policy/tx_pool.hpp"
#include "sion/state/object_store.hpp"
#include "sion/streams/objects.hpp"

namespace sion::node {

using Json = nlohmann::ordered_json;

Json header_json(const exec::PulseHeader& header);
// {"tx_id", "status", "status_code", "fee_paid", "coins_created", "coin_ids"}.
Json receipt_json(const exec::Receipt& receipt);
// {"type", "type_name", "version", "data_hex"}.
Json object_json(const state::Object& object);

// Agents (docs/agents.md): caveats and narrowings field by field, an
// authority as {"keyed": keys id} or {"keyless_controller": id}, and an
// agent with its allotment and its standing at `height` (docs/api.md,
// "GET /v1/agents/{id}").
Json caveats_json(const agents::Caveats& caveats);
Json narrowing_json(const agents::Narrowing& narrowing);
Json authority_json(const agents::Authority& authority);
Json agent_json(const agents::AgentState& agent, const agents::Standing& standing, std::uint64_t height);

// A payment stream (docs/streams.md) under `id` as the state holds it at
// `height`, with its checkpoint spacing and whether it is expired for the
// next Pulse, height + 1 (docs/api.md, "GET /v1/streams/{id}").
Json stream_json(const ledger::Id& id, const streams::Stream& stream, std::uint64_t height);

// The status the API shows for a transaction removed from the mempool
// (docs/api.md): the reason's name, except that a transaction whose nonce or
// coins another transaction used is "dropped".
std::string removal_status(policy::RemovalReason reason);

// Event data, one line each (docs/api.md, "Events").
std::string pulse_event_json(const exec::PulseHeader& header, std::size_t transactions);
std::string executed_event_json(const exec::Receipt& receipt, std::uint64_t height, std::uint32_t index);
std::string removed_event_json(const policy::Removed& removed);

}  // namespace sion::node
