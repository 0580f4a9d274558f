#include "sion/wallet/agent_client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "sion/agents/lineage.hpp"
#include "sion/base/bytes.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/wallet/address.hpp"

namespace sion::wallet {

using base::Errc;

namespace {

// The object stored at `id` at the latest height, without a proof (the
// wallet trusts its node for what it builds; the ledger checks again):
// the reply's `object`, absent when nothing is stored there.
base::Result<ObjectReply> latest_object(NodeApi& api, const exec::Id& id) {
  return api.object(id, /*with_proof=*/false);
}

}  // namespace

base::Result<std::optional<AgentState>> fetch_agent(NodeApi& api, const exec::Id& agent) {
  SION_TRY(const ObjectReply charter_reply, latest_object(api, agent));
  const std::optional<state::Object>& charter_object = charter_reply.object;
  // Absent, or another kind of object (an account, a coin): no agent.
  if (!charter_object || charter_object->type != static_cast<std::uint32_t>(ledger::ObjectType::charter)) {
    return std::optional<AgentState>{};
  }
  SION_TRY(const ObjectReply allotment_reply, latest_object(api, agents::allotment_id(agent)));
  const std::optional<state::Object>& allotment_object = allotment_reply.object;
  const auto charter = agents::charter_from(*charter_object);
  if (!charter || !allotment_object) {
    return base::fail(Errc::invalid_value, "object " + base::to_hex(agent) + " is not an agent's charter");
  }
  const auto allotment = agents::allotment_from(*allotment_object);
  if (!allotment) return base::fail(Errc::invalid_value, "agent " + base::to_hex(agent) + ": its allotment is corrupt");
  return std::optional<AgentState>{AgentState{agent, *charter, *allotment}};
}

exec::Id Sender::id() const { return agent ? *agent : exec::account_id(signer.public_bundle()); }

base::Result<exec::Transaction> sign_from(NodeApi& api, const Sender& sender, const exec::ChainParams& params,
                                          exec::Amount spend, const BodyForCoins& make_body) {
  const exec::Id id = sender.id();
  const crypto::KeyBundle& keys = sender.signer.public_bundle();
  // The fee is known before signing, so coins are chosen by it and the
  // (slow, post-quantum) signature is made once.
  const auto sign = [&](std::uint64_t nonce, std::span<const exec::Id> coins, exec::Amount fee) {
    return exec::make_signed(sender.signer, params, id, nonce, make_body(coins), fee);
  };
  if (sender.agent) {
    SION_TRY(const std::optional<AgentState> agent, fetch_agent(api, id));
    if (!agent) return base::fail(Errc::invalid_argument, "agent " + base::to_hex(id) + " does not exist");
    const std::uint64_t nonce = agent->allotment.nonce;
    SION_TRY(const exec::Amount fee, exec::signed_fee(keys, params, id, nonce, make_body({})));
    const exec::Amount balance = agent->allotment.balance;
    if (balance < spend || balance - spend < fee) {
      return base::fail(Errc::invalid_argument,
                        fmt::format("agent {} holds {} in its allotment: not enough for {} and the fee {}",
                                    base::to_hex(id), balance, spend, fee));
    }
    return sign(nonce, {}, fee);
  }

  SION_TRY(const AccountInfo account, api.account(id));
  if (!account.exists) {
    return base::fail(Errc::invalid_argument,
                      "account " + address_to_text(id) + " does not exist on this chain (no coins)");
  }
  // The largest coins first, until they pay `spend` and the fee.
  std::vector<CoinInfo> coins = account.coins;
  std::sort(coins.begin(), coins.end(), [](const auto& a, const auto& b) { return a.amount > b.amount; });
  std::vector<exec::Id> inputs;
  exec::Amount held = 0;
  for (const CoinInfo& coin : coins) {
    if (inputs.size() == agents::kMaxKindCoins) break;
    inputs.push_back(coin.id);
    held += coin.amount;
    SION_TRY(const exec::Amount fee, exec::signed_fee(keys, params, id, account.nonce, make_body(inputs)));
    if (held >= spend && held - spend >= fee) return sign(account.nonce, inputs, fee);
  }
  return base::fail(Errc::invalid_argument,
                    fmt::format("the account holds {} in {} coins: not enough to pay {} and the fee", account.balance,
                                coins.size(), spend));
}

std::optional<agents::Lineage> ParentPlace::child(std::uint32_t index) const {
  if (agent) return agents::child_lineage(agent->charter.lineage, index);
  return agents::child_of_account(root, index);
}

base::Result<ParentPlace> parent_place(NodeApi& api, const Sender& sender) {
  if (!sender.agent) return ParentPlace{sender.id(), std::nullopt};
  SION_TRY(std::optional<AgentState> agent, fetch_agent(api, *sender.agent));
  if (!agent) return base::fail(Errc::invalid_argument, "agent " + base::to_hex(*sender.agent) + " does not exist");
  const exec::Id root = agent->charter.lineage.root;
  return ParentPlace{root, std::move(agent)};
}

base::Result<std::uint32_t> first_free_index(NodeApi& api, const ParentPlace& parent) {
  for (std::uint64_t index = 0; index <= UINT32_MAX; ++index) {
    const std::optional<agents::Lineage> child = parent.child(static_cast<std::uint32_t>(index));
    if (!child) return base::fail(Errc::invalid_argument, "the sending agent is at the deepest level: no children");
    SION_TRY(const ObjectReply reply, latest_object(api, agents::lineage_id(*child)));
    if (!reply.object) return static_cast<std::uint32_t>(index);
  }
  return base::fail(Errc::invalid_argument, "every child index is taken");
}

base::Result<TxState> wait_for_execution(NodeApi& api, const exec::Id& tx_id, std::chrono::seconds timeout,
                                         std::FILE* err) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    SION_TRY(TxState state, api.tx_status(tx_id));
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (state.executed()) {
      std::fputs("\n", err);
      return state;
    }
    if (state.status != "pending" && state.status != "held") {
      std::fputs("\n", err);
      return base::fail(Errc::invalid_value, fmt::format("the transaction was {}{}", state.status,
                                                         state.reason ? " (" + *state.reason + ")" : ""));
    }
    std::fputs(
        fmt::format("\rwaiting for execution: {}, {:.1f} s", state.status, static_cast<double>(waited.count()) / 1000.0)
            .c_str(),
        err);
    std::fflush(err);
    if (waited > timeout) {
      std::fputs("\n", err);
      return base::fail(Errc::io_error, fmt::format("not executed within {} s; `sion tx status {}` tells later",
                                                    timeout.count(), base::to_hex(tx_id)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

base::Status submit_or_fail(NodeApi& api, const exec::Transaction& tx) {
  SION_TRY(const Submission submission, api.submit(tx));
  if (!submission.admitted()) {
    return base::fail(Errc::invalid_argument, "the node refused the transaction: " + submission.refusal->to_string());
  }
  return {};
}

}  // namespace sion::wallet
