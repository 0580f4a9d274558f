#pragma once
// What each transaction kind adds to the mempool's stateless checks,
// reached by one std::visit over exec::TxBody (mempool.cpp). A kind with
// no rules of its own takes the generic overload: the checks every
// transaction gets are enough for it.

#include <span>

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

}  // namespace sion::policy
