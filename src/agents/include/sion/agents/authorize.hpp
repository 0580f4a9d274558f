#pragma once
// Authorizing a transaction whose sender is an agent: signed by the agent's
// own keys, or a member of a batch its controller opened (docs/agents.md,
// "Authorization of an agent's transaction"). It replaces steps 2, 4, 5 and
// 7 of ledger::authorize; the fee comes out of the agent's allotment.

#include <cstdint>
#include <functional>
#include <optional>

#include "sion/agents/lineage.hpp"
#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/ledger/authorize.hpp"
#include "sion/ledger/fees.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/params.hpp"

namespace sion::agents {

struct AgentAuthRequest {
  // What every transaction gives (fee_coin_id unused: the allotment pays;
  // keys_id and the signature only for a signed agent).
  ledger::AuthRequest common;
  // A batch member's auth (its place), or nullptr for a signed transaction.
  const crypto::SignatureBundle* member_auth = nullptr;
  // encode(payload): the item a member's place proves.
  std::function<base::Bytes()> payload_encoding;
};

// Whether a transaction from `sender` is an agent's: its keys have no parts
// (a batch member), or a charter is stored under `sender`.
base::Result<bool> sent_by_agent(const ledger::Overlay& state, const Id& sender, bool batch_member);

// The steps in order; the first that fails decides (a rejection: nothing
// written). Authorized, the agent's allotment is written with the nonce
// advanced and the fee taken; Authorized::fee_coin is nullopt. An error is
// a read failure or a corrupt store.
base::Result<ledger::Authorization> authorize_agent(ledger::Overlay& state, const AgentAuthRequest& request,
                                                    const ledger::ChainParams& params, ledger::PulseUsage& usage);

}  // namespace sion::agents
