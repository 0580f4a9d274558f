// Transactions and their ids (docs/ledger.md, "Transactions").
#include "sion/exec/transaction.hpp"

#include <gtest/gtest.h>

#include "ledger_fixture.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::exec {
namespace {

TEST(Transaction, TxIdCoversThePayloadButNotTheSignature) {
  Transaction tx;
  tx.payload.chain_id = 9;
  tx.payload.fee = 100;
  Transfer transfer;
  transfer.inputs.push_back(Id{});
  transfer.outputs.push_back({Id{}, 5});
  tx.payload.body = transfer;
  const Id id = tx_id(tx.payload);
  std::vector<std::uint8_t> input = {0x41};
  const auto encoded = codec::encode(tx.payload);
  input.insert(input.end(), encoded.begin(), encoded.end());
  EXPECT_EQ(id, crypto::sha3_256(input));
  tx.auth.parts.push_back(codec::VarBytes<crypto::kMaxSignatureBytes>(base::Bytes{1, 2, 3}));
  EXPECT_EQ(tx_id(tx.payload), id);
  tx.payload.fee = 101;
  EXPECT_NE(tx_id(tx.payload), id);
}

TEST(Transaction, TransactionLayoutIsPayloadKeysAuth) {
  const auto bundle = testing::signer(3, crypto::Profile::dual);
  Transaction tx;
  tx.payload.chain_id = 4;
  tx.payload.body = Transfer{{Id{}}, {}};
  tx.keys = bundle.public_bundle();
  tx.auth.parts.push_back(codec::VarBytes<crypto::kMaxSignatureBytes>(base::Bytes{9, 9}));
  base::Bytes expected = codec::encode(tx.payload);
  for (const auto& part : {codec::encode(tx.keys), codec::encode(tx.auth)}) {
    expected.insert(expected.end(), part.begin(), part.end());
  }
  EXPECT_EQ(codec::encode(tx), expected);
  EXPECT_EQ(codec::encoded_size(tx), expected.size());
  EXPECT_EQ(codec::decode<Transaction>(expected).value(), tx);
  // The id covers the payload alone: other keys leave it as it is.
  const Id id = tx_id(tx.payload);
  tx.keys = testing::signer(4, crypto::Profile::dual).public_bundle();
  EXPECT_EQ(tx_id(tx.payload), id);
  EXPECT_EQ(account_id_from_keys_id(crypto::bundle_id(tx.keys)), account_id(tx.keys));
}

}  // namespace
}  // namespace sion::exec
