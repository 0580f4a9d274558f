#pragma once
// The client side of agents (docs/agents.md, docs/wallet.md "Agents"): what
// a wallet reads of an agent, and how it builds, signs, submits and follows
// the transactions of agents' kinds. The rules stay in the agents layer;
// this only assembles bodies and picks the coins that pay for them.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <span>

#include "sion/agents/objects.hpp"
#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/wallet/node_api.hpp"

namespace sion::wallet {

// An agent as the state holds it (GET /v1/objects of its charter and
// allotment ids).
struct AgentState {
  exec::Id id{};
  agents::Charter charter;
  agents::Allotment allotment;
};
// nullopt when no charter is stored under `agent` (nothing, or another
// kind of object); invalid_value when the charter does not decode or has
// no allotment.
base::Result<std::optional<AgentState>> fetch_agent(NodeApi& api, const exec::Id& agent);

// Who sends a transaction: the account of `signer`, or the keyed agent
// `agent` whose key bundle `signer` holds.
struct Sender {
  crypto::SigningBundle signer;
  std::optional<exec::Id> agent;
  exec::Id id() const;
};

// Builds the body for a list of coins: an account's kinds list the coins
// that pay `spend` and the fee; an agent's list none.
using BodyForCoins = std::function<exec::TxBody(std::span<const exec::Id> coins)>;

// Signs the transaction `make_body` builds, from the sender's next nonce:
// an account takes its largest coins until they hold `spend` plus the fee
// (which grows with each coin); an agent pays from its allotment, whose
// balance must hold `spend` plus the fee. invalid_argument when the sender
// does not exist or cannot pay.
base::Result<exec::Transaction> sign_from(NodeApi& api, const Sender& sender, const exec::ChainParams& params,
                                          exec::Amount spend, const BodyForCoins& make_body);

// Where the sender's children go: below its account (depth 1), or one
// level below its agent.
struct ParentPlace {
  exec::Id root{};                  // the lineage root account
  std::optional<AgentState> agent;  // the sending agent; nullopt for an account
  // nullopt past the deepest level (agents::kMaxDepth).
  std::optional<agents::Lineage> child(std::uint32_t index) const;
};
// invalid_argument when the sending agent does not exist.
base::Result<ParentPlace> parent_place(NodeApi& api, const Sender& sender);

// The first index whose child of `parent` has no charter yet.
base::Result<std::uint32_t> first_free_index(NodeApi& api, const ParentPlace& parent);

// Waits until the node executed `tx_id` (polling GET /v1/transactions),
// showing progress on `err`; io_error after `timeout`, invalid_value when the
// mempool dropped it.
base::Result<TxState> wait_for_execution(NodeApi& api, const exec::Id& tx_id, std::chrono::seconds timeout,
                                         std::FILE* err);

// Submits `tx`: invalid_argument with the node's reason when it is refused.
base::Status submit_or_fail(NodeApi& api, const exec::Transaction& tx);

}  // namespace sion::wallet
