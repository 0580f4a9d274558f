#pragma once
// What a transaction kind provides (docs/architecture.md, "Adding a
// transaction kind"). A kind is a codec struct, the body of a payload,
// with three functions beside it in its own namespace, found by
// argument-dependent lookup from exec's dispatch:
//
//   std::optional<Id> fee_coin(const K&)
//       the coin that pays the fee (step 7); nullopt: none (fee_unpayable);
//   std::uint32_t max_created_objects(const K&)
//       how many ids coin_id(tx_id, 0 ..) the body may create (at least 1:
//       id 0 takes what the fee coin keeps when the body fails); the
//       pre-check hashes them ahead of execution;
//   base::Result<Receipt> apply_body(Overlay&, const K&, const Authorized&, std::span<const Id> new_ids)
//       the kind's own rules (step 8 and on) for an authorized transaction;
//       a failure calls fail_transaction(..., new_ids[0]).
//
// Usage and fees are the same for every kind: they come from the
// transaction's size and keys (fees.hpp).

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>

#include "sion/base/result.hpp"
#include "sion/ledger/authorize.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/receipt.hpp"

namespace sion::ledger {

template <class K>
concept TxKind = requires(const K& body, Overlay& state, const Authorized& tx, std::span<const Id> new_ids) {
  { fee_coin(body) } -> std::same_as<std::optional<Id>>;
  { max_created_objects(body) } -> std::same_as<std::uint32_t>;
  { apply_body(state, body, tx, new_ids) } -> std::same_as<base::Result<Receipt>>;
};

}  // namespace sion::ledger
