// Ids, objects and receipt statuses (docs/ledger.md, "Identifiers",
// "Objects", "Receipts").
#include "sion/ledger/objects.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>

#include "sion/crypto/keccak.hpp"
#include "sion/ledger/receipt.hpp"

namespace sion::ledger {
namespace {

crypto::SigningBundle test_bundle(std::uint8_t seed_byte) {
  crypto::KeySeed seed{};
  seed.fill(seed_byte);
  return crypto::SigningBundle::from_seed(crypto::Profile::dual, seed).value();
}

TEST(Ledger, IdsFollowTheirDefinitions) {
  const auto bundle = test_bundle(1);
  std::vector<std::uint8_t> account_input = {0x42};
  const auto bid = crypto::bundle_id(bundle.public_bundle());
  account_input.insert(account_input.end(), bid.begin(), bid.end());
  EXPECT_EQ(account_id(bundle.public_bundle()), crypto::sha3_256(account_input));

  Id tx{};
  tx.fill(7);
  std::vector<std::uint8_t> coin_input = {0x43};
  coin_input.insert(coin_input.end(), tx.begin(), tx.end());
  for (std::uint8_t b : {std::uint8_t{4}, std::uint8_t{3}, std::uint8_t{2}, std::uint8_t{1}}) coin_input.push_back(b);
  EXPECT_EQ(coin_id(tx, 0x01020304u), crypto::sha3_256(coin_input));
  EXPECT_NE(coin_id(tx, 0), coin_id(tx, 1));
}

TEST(Ledger, ObjectsRoundTripAndWrongTypesAreCorrupt) {
  const auto bundle = test_bundle(2);
  const Account account{bundle.id(), 3};
  const Coin coin{account_id(bundle.public_bundle()), 1234};
  const auto account_object = to_object(account, 5);
  const auto coin_object = to_object(coin, 6);
  EXPECT_EQ(account_object.type, 1u);
  EXPECT_EQ(coin_object.type, 2u);
  EXPECT_EQ(account_object.data.size(), 40u);  // keys_id and nonce: small in every witness
  EXPECT_EQ(account_from(account_object).value(), account);
  EXPECT_EQ(coin_from(coin_object).value(), coin);
  EXPECT_EQ(account_from(coin_object).error().code, base::Errc::corrupt_store);
  EXPECT_EQ(coin_from(account_object).error().code, base::Errc::corrupt_store);
  auto truncated = coin_object;
  truncated.data.pop_back();
  const auto bad = coin_from(truncated);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, base::Errc::corrupt_store);
  EXPECT_NE(bad.error().reason.find("Coin"), std::string::npos) << bad.error().reason;
}

TEST(Ledger, StatusNamesAndClasses) {
  EXPECT_EQ(status_name(TxStatus::insufficient_funds), "insufficient_funds");
  // Wire values (docs/ledger.md, "Receipts").
  EXPECT_EQ(static_cast<int>(TxStatus::wrong_chain), 1);
  EXPECT_EQ(static_cast<int>(TxStatus::wrong_keys), 2);
  EXPECT_EQ(static_cast<int>(TxStatus::budget_exceeded), 3);
  EXPECT_EQ(static_cast<int>(TxStatus::bad_signature), 4);
  EXPECT_EQ(static_cast<int>(TxStatus::fee_unpayable), 7);
  EXPECT_EQ(status_name(TxStatus::wrong_keys), "wrong_keys");
  EXPECT_EQ(status_name(TxStatus::budget_exceeded), "budget_exceeded");
  EXPECT_TRUE(is_rejection(TxStatus::wrong_keys));
  EXPECT_TRUE(is_rejection(TxStatus::bad_signature));
  EXPECT_FALSE(is_rejection(TxStatus::success));
  EXPECT_FALSE(is_rejection(TxStatus::unknown_coin));
  EXPECT_EQ(static_cast<int>(TxStatus::unknown_stream), 13);
  EXPECT_EQ(static_cast<int>(TxStatus::bad_checkpoint_path), 23);
  EXPECT_EQ(static_cast<int>(TxStatus::stream_malformed), 89);
  EXPECT_TRUE(is_rejection(TxStatus::bad_checkpoint_path));
  EXPECT_FALSE(is_rejection(TxStatus::stream_malformed));
  EXPECT_FALSE(codec::decode<TxStatus>(base::Bytes{90}).ok());
}

// Every enum the codec decodes takes exactly its assigned values: a value in
// a gap of the numbering (a receipt status of 30, between the rejections
// and the failures) is refused like one above the largest.
template <class E>
void expect_only_assigned_values_decode(std::initializer_list<unsigned> assigned) {
  for (unsigned raw = 0; raw < 256; ++raw) {
    const bool valid = std::find(assigned.begin(), assigned.end(), raw) != assigned.end();
    const auto decoded = codec::decode<E>(base::Bytes{static_cast<std::uint8_t>(raw)});
    EXPECT_EQ(decoded.ok(), valid) << raw;
    if (!decoded) {
      EXPECT_EQ(decoded.error().code, base::Errc::invalid_value);
    } else {
      EXPECT_EQ(static_cast<unsigned>(*decoded), raw);
    }
  }
}

TEST(Ledger, EnumsDecodeOnlyTheirAssignedValues) {
  expect_only_assigned_values_decode<TxStatus>({0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                                17, 18, 19, 20, 21, 22, 23, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73,
                                                74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89});
  expect_only_assigned_values_decode<crypto::Scheme>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  expect_only_assigned_values_decode<crypto::Profile>({0, 1, 2, 3, 4});

  // A receipt whose status is 30.
  Receipt receipt;
  receipt.status = TxStatus::success;
  base::Bytes bytes = codec::encode(receipt);
  ASSERT_TRUE(codec::decode<Receipt>(bytes).ok());
  bytes.at(32) = 30;  // after tx_id
  const auto decoded = codec::decode<Receipt>(bytes);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code, base::Errc::invalid_value);
  EXPECT_EQ(decoded.error().reason.rfind("Receipt.status: enum value 30 is not an assigned value", 0), 0u)
      << decoded.error().reason;
}

}  // namespace
}  // namespace sion::ledger
