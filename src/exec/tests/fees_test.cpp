// Fees of a transaction and the transaction builder (docs/ledger.md,
// "Fees and budgets", "Building a transaction").
#include "sion/exec/transaction.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "ledger_fixture.hpp"
#include "sion/crypto/verify_units.hpp"

namespace sion::exec {
namespace {

using testing::id_of;
using testing::signer;

constexpr Amount kMax = std::numeric_limits<Amount>::max();

TEST(Fees, RequiredFeeOfATransactionIsItsBytesAndUnits) {
  const auto s = signer(1, crypto::Profile::dual);
  const auto tx =
      make_transfer(s, testing::test_params(), 0, std::vector<Id>{Id{}}, std::vector<Output>{{Id{}, 5}}, Amount{0})
          .value();
  const std::uint64_t bytes = codec::encode(tx).size();
  EXPECT_EQ(crypto::verify_units(s.public_bundle()), 3000u);  // ML-DSA-44 100 + SLH-DSA-SHA2-128f 2900
  EXPECT_EQ(required_fee(tx, {3, 7}).value(), 3 * bytes + 7 * 3000);
}

TEST(Fees, TxUsageCountsAuthorizationBytes) {
  const auto s = signer(3);
  const auto tx = make_transfer(s, testing::test_params(), 0, std::vector<Id>{Id{}}, {}).value();
  const auto key_bytes = codec::encode(s.public_bundle()).size();
  EXPECT_EQ(auth_bytes(tx), key_bytes + codec::encode(tx.auth).size());
  EXPECT_EQ(tx_usage(tx),
            (PulseUsage{1, codec::encode(tx).size(), auth_bytes(tx), 850}));  // Ed25519 750 + ML-DSA-44 100
  // The verify units are those of the keys the transaction carries.
  auto dual = tx;
  dual.keys = signer(3, crypto::Profile::dual).public_bundle();
  EXPECT_EQ(tx_usage(dual).verify_units, 3000u);
  EXPECT_EQ(auth_bytes(dual), codec::encode(dual.keys).size() + codec::encode(dual.auth).size());
}

TEST(TxBuilder, PaysExactlyTheRequiredFeeForEveryShape) {
  const auto params = testing::test_params();
  for (const auto profile : {crypto::Profile::dual, crypto::Profile::hybrid, crypto::Profile::classic}) {
    const auto s = signer(4, profile);
    for (const std::size_t outputs_count : {std::size_t{0}, std::size_t{5}}) {
      const std::vector<Id> inputs(3, Id{});
      const std::vector<Output> outputs(outputs_count, Output{Id{}, 77});
      const auto tx = make_transfer(s, params, 9, inputs, outputs).value();
      EXPECT_EQ(tx.payload.fee, required_fee(tx, params.fees).value())
          << crypto::profile_name(profile) << " outputs " << outputs_count;
      EXPECT_EQ(tx.payload.sender, id_of(s));
      EXPECT_EQ(tx.payload.nonce, 9u);
      EXPECT_EQ(tx.keys, s.public_bundle());
      EXPECT_TRUE(crypto::verify_bundle(s.public_bundle(), codec::encode(tx.payload),
                                        base::as_bytes(kTxSignatureContext), tx.auth));
    }
  }
}

TEST(TxBuilder, KeepsAGivenFeeAndSignsDeterministicallyOnRequest) {
  const auto s = signer(5);
  const auto params = testing::test_params();
  const std::vector<Id> inputs{Id{}};
  const auto a = make_transfer(s, params, 0, inputs, {}, Amount{12345}, crypto::Hedging::deterministic);
  const auto b = make_transfer(s, params, 0, inputs, {}, Amount{12345}, crypto::Hedging::deterministic);
  EXPECT_EQ(a->payload.fee, 12345u);
  EXPECT_EQ(a.value(), b.value());
}

TEST(TxBuilder, RefusesTooManyInputsOrOutputsAndFeeOverflow) {
  const auto s = signer(6);
  auto params = testing::test_params();
  const std::vector<Id> many_inputs(kMaxTransferInputs + 1, Id{});
  EXPECT_EQ(make_transfer(s, params, 0, many_inputs, {}).error().code, base::Errc::invalid_argument);
  const std::vector<Output> many_outputs(kMaxTransferOutputs + 1, Output{Id{}, 1});
  EXPECT_EQ(make_transfer(s, params, 0, {}, many_outputs).error().code, base::Errc::invalid_argument);
  params.fees.per_byte = kMax;
  EXPECT_EQ(make_transfer(s, params, 0, {}, {}).error().code, base::Errc::invalid_argument);
}

}  // namespace
}  // namespace sion::exec
