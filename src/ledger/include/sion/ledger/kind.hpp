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
// Usage and fees come from the transaction's size and keys (fees.hpp), the
// same for every kind. Two functions are optional:
//
//   std::uint64_t work_units(const K&)
//       verify units the body costs beyond its signatures (hashing it asks
//       of validators, known from the body alone); none: 0;
//   base::Result<BodyFee> pay_fee_from_body(Overlay&, const K&, const BodyFeeRequest&)
//       step 7 for a kind whose body pays its own fee (fee_coin is then
//       nullopt): the body is checked and applied there, and a body that
//       does not hold is rejected, having written nothing.

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

// What a body that pays its own fee is given at step 7.
struct BodyFeeRequest {
  Id tx_id{};
  Id sender{};
  Amount fee = 0;
  std::uint64_t height = 0;
  std::span<const Id> new_ids;  // coin_id(tx_id, 0 .. max_created_objects - 1)
  // A digest of the body alone that its rules need, computed before the
  // Pulse for all its transactions together (a settlement's walk,
  // docs/streams.md, "Walks in lanes"); nullopt: the rules compute it.
  std::optional<Id> body_digest;
};

template <class K>
concept TxKind = requires(const K& body, Overlay& state, const Authorized& tx, std::span<const Id> new_ids) {
  { fee_coin(body) } -> std::same_as<std::optional<Id>>;
  { max_created_objects(body) } -> std::same_as<std::uint32_t>;
  { apply_body(state, body, tx, new_ids) } -> std::same_as<base::Result<Receipt>>;
};

}  // namespace sion::ledger
