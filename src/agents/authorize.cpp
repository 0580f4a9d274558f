#include "sion/agents/authorize.hpp"

#include <variant>

#include "sion/agents/batch.hpp"
#include "sion/agents/standing.hpp"

namespace sion::agents {

using ledger::Authorization;
using ledger::ObjectType;
using ledger::TxStatus;

base::Result<bool> sent_by_agent(const ledger::Overlay& state, const Id& sender, bool batch_member) {
  if (batch_member) return true;
  SION_TRY(const auto object, state.find(sender));
  return object != nullptr && object->type == static_cast<std::uint32_t>(ObjectType::charter);
}

namespace {

// Step 2 for a member: its place proves its payload in a live batch of
// its controller.
base::Result<TxStatus> check_member(const ledger::Overlay& state, const AgentAuthRequest& request,
                                    const Keyless& authority) {
  const auto place = member_place(*request.member_auth);
  if (!place) return TxStatus::bad_batch_path;
  SION_TRY(const auto object, state.find(place->batch));
  if (object == nullptr || object->type != static_cast<std::uint32_t>(ObjectType::batch)) {
    return TxStatus::unknown_batch;
  }
  SION_TRY(const auto batch, batch_from(*object));
  if (batch.controller != authority.controller) return TxStatus::wrong_controller;
  if (request.common.height > batch.expiry_height) return TxStatus::batch_expired;
  if (!proves_member(*place, request.payload_encoding(), batch)) return TxStatus::bad_batch_path;
  return TxStatus::success;
}

}  // namespace

base::Result<Authorization> authorize_agent(ledger::Overlay& state, const AgentAuthRequest& agent_request,
                                            const ledger::ChainParams& params, ledger::PulseUsage& usage) {
  const ledger::AuthRequest& request = agent_request.common;
  const auto reject = [](TxStatus status) { return Authorization{status, {}}; };

  // 1. Chain.
  if (request.chain_id != params.chain_id) return reject(TxStatus::wrong_chain);

  // 2. Sender: an agent that may act, and the keys or the batch place its
  // authority asks for.
  SION_TRY(auto agent, read_agent(state, request.sender));
  if (!agent || agent->charter.cohort) return reject(TxStatus::not_an_agent);
  const bool member = agent_request.member_auth != nullptr;
  if (member) {
    const auto* keyless = std::get_if<Keyless>(&agent->charter.authority);
    if (keyless == nullptr) return reject(TxStatus::wrong_keys);
    SION_TRY(const TxStatus placed, check_member(state, agent_request, *keyless));
    if (placed != TxStatus::success) return reject(placed);
  } else {
    const auto* keyed = std::get_if<Keyed>(&agent->charter.authority);
    if (keyed == nullptr || !request.keys_id || *request.keys_id != keyed->keys_id) {
      return reject(TxStatus::wrong_keys);
    }
  }

  // 3. Budget: from here on the transaction counts.
  if (!usage.fits(request.usage, params.limits)) return reject(TxStatus::budget_exceeded);
  usage.add(request.usage);

  // 4. A signed agent's signature; a member's place was step 2.
  if (!member) {
    const bool verified = request.signature_ok ? *request.signature_ok
                                               : request.verify_signature && request.verify_signature(*request.keys_id);
    if (!verified) return reject(TxStatus::bad_signature);
  }

  // 5. Nonce. 6. Fee. 7. The allotment pays it.
  Allotment& allotment = agent->allotment;
  if (request.nonce != allotment.nonce) return reject(TxStatus::wrong_nonce);
  const auto required = ledger::required_fee(request.usage.bytes, request.usage.verify_units, params.fees);
  if (!required || request.fee < *required) return reject(TxStatus::fee_too_low);
  if (allotment.balance < request.fee) return reject(TxStatus::fee_unpayable);

  allotment.nonce += 1;
  allotment.balance -= request.fee;
  write_allotment(state, *agent);
  return Authorization{TxStatus::success,
                       ledger::Authorized{request.tx_id, request.sender, request.fee, std::nullopt, request.height, 0}};
}

}  // namespace sion::agents
