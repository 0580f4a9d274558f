#pragma once
// What each transaction kind adds to the mempool's stateless checks,
// reached by one std::visit over exec::TxBody (mempool.cpp). A kind with
// no rules of its own takes the generic overload: the checks every
// transaction gets are enough for it.

#include <span>

#include "sion/base/result.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/ledger/transfer.hpp"
#include "sion/policy/mempool.hpp"
#include "sion/policy/verdict.hpp"

namespace sion::policy {

template <class Kind>
PolicyVerdict check_kind(const Kind& /*body*/, const MempoolPolicy& /*policy*/) {
  return {};
}

// Dust: every output pays at least policy.dust_threshold.
PolicyVerdict check_kind(const ledger::Transfer& transfer, const MempoolPolicy& policy);

// The coins a kind spends, which the pool checks exist and belong to the
// sender (docs/mempool.md, "Admission"); the fee coin is checked apart.
template <class Kind>
std::span<const ledger::Id> spent_coins(const Kind& /*body*/) {
  return {};
}
std::span<const ledger::Id> spent_coins(const ledger::Transfer& transfer);
// The kinds of agents an account sends spend `coins` (docs/agents.md,
// "Paying with coins"); an agent's list none.
template <class Kind>
requires requires(const Kind& body) { body.coins; }
std::span<const ledger::Id> spent_coins(const Kind& body) { return body.coins; }

// A transaction whose body names no fee coin: a settlement or close pays
// out of the stream it names, so it is admitted only if the ledger's rules
// for it hold on `view` (the expiry aside, which execution checks at its
// height); otherwise fee_unpayable naming the rejection it would get. Any
// other kind is refused as fee_unpayable. An error is a read failure of the
// state.
base::Result<PolicyVerdict> check_fee_from_body(const exec::TxPayload& payload, const ledger::StateView& view);

}  // namespace sion::policy
