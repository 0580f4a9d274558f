// docs/ledger.md, "Known answers": one transaction written out in full, its
// ids, the receipts of a Pulse and receipts roots. The values are read from
// the page (and the transaction from docs/known-transaction.hex), so an edit
// that breaks one fails here.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "sion/base/testing/doc_values.hpp"
#include "sion/commit/hash.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/exec/tx_builder.hpp"

namespace sion::exec {
namespace {

const std::string kSource = SION_SOURCE_DIR;

const base::testing::DocValues& doc() {
  static const base::testing::DocValues values(kSource + "/docs/ledger.md");
  return values;
}

base::Bytes bytes_value(const std::string& label) {
  auto bytes = doc().bytes(label);
  if (!bytes) ADD_FAILURE() << "docs/ledger.md has no hex value '" << label << "'";
  return bytes.value_or(base::Bytes{});
}

Id id_value(const std::string& label) {
  const base::Bytes bytes = bytes_value(label);
  Id out{};
  if (bytes.size() != out.size()) {
    ADD_FAILURE() << "'" << label << "' is " << bytes.size() << " bytes, not 32";
    return out;
  }
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

std::uint64_t number_value(const std::string& label) {
  const std::string text = doc().hex(label);
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    ADD_FAILURE() << "docs/ledger.md has no decimal value '" << label << "'";
    return 0;
  }
  return std::stoull(text);
}

// docs/known-transaction.hex: the whole encoding, hex with line breaks.
base::Bytes transaction_file() {
  std::ifstream in(kSource + "/docs/known-transaction.hex");
  std::string hex;
  for (char c; in.get(c);) {
    if (c != '\n') hex += c;
  }
  auto bytes = base::from_hex(hex);
  if (!bytes) ADD_FAILURE() << "docs/known-transaction.hex: " << bytes.error().reason;
  return bytes.value_or(base::Bytes{});
}

crypto::SigningBundle documented_signer() {
  crypto::KeySeed seed{};
  const base::Bytes bytes = bytes_value("key seed");
  EXPECT_EQ(bytes.size(), seed.size());
  std::copy_n(bytes.begin(), std::min(bytes.size(), seed.size()), seed.begin());
  return crypto::SigningBundle::from_seed(crypto::Profile::dual, seed).value();
}

// The documented transaction, built as docs/ledger.md says: the payload
// signed deterministically by the bundle of the seed.
Transaction documented_transaction() {
  const auto payload = codec::decode<TxPayload>(bytes_value("payload"));
  EXPECT_TRUE(payload.ok()) << payload.error().reason;
  return sign_transaction(documented_signer(), payload.value_or(TxPayload{}), crypto::Hedging::deterministic).value();
}

base::Bytes sha3(base::ByteView bytes) {
  const crypto::Hash256 digest = crypto::sha3_256(bytes);
  return base::Bytes(digest.begin(), digest.end());
}

ChainParams documented_params() {
  ChainParams params;  // default fees and limits
  params.chain_id = 1;
  return params;
}

// The pre-state of the documented Pulse: the two input coins, the sender's.
MemoryState documented_pre_state(const TxPayload& payload) {
  MemoryState state;
  const auto& transfer = std::get<Transfer>(payload.body);
  std::vector<state::ObjectWrite> writes;
  for (std::size_t i = 0; i < transfer.inputs.size(); ++i) {
    writes.push_back(
        {transfer.inputs[i], to_object(Coin{payload.sender, number_value("input amount " + std::to_string(i))}, 1)});
  }
  std::sort(writes.begin(), writes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  EXPECT_TRUE(state.apply(writes).ok());
  return state;
}

// The page's receipt 2 is not of a transaction executed here: a failed
// one, for the receipts root of three.
std::vector<Receipt> documented_receipts() {
  std::vector<Receipt> receipts;
  for (int i = 0; i < 3; ++i) {
    const auto receipt = codec::decode<Receipt>(bytes_value("receipt " + std::to_string(i)));
    EXPECT_TRUE(receipt.ok()) << i << ": " << receipt.error().reason;
    receipts.push_back(receipt.value_or(Receipt{}));
  }
  return receipts;
}

TEST(KnownAnswers, PageParses) {
  EXPECT_TRUE(doc().problems().empty()) << doc().problems().front();
  // Keys 7, payload 2, ids 4, transaction 2, Pulse 3 + 3 receipts + 3
  // leaves + 4 roots, write set 6 ids + 4 objects + the post-state root,
  // the Pulse header 10: nothing stray, nothing lost.
  EXPECT_EQ(doc().labels().size(), 49u);
}

// docs/known-transaction.hex is the documented payload signed by the
// documented seed's bundle, deterministically, and decodes to it.
TEST(KnownAnswers, TransactionEncoding) {
  const Transaction tx = documented_transaction();
  const base::Bytes file = transaction_file();
  EXPECT_EQ(file, codec::encode(tx));
  EXPECT_EQ(file.size(), number_value("transaction bytes"));
  EXPECT_EQ(sha3(file), bytes_value("transaction sha3-256"));
  const auto decoded = codec::decode<Transaction>(file);
  ASSERT_TRUE(decoded.ok()) << decoded.error().reason;
  EXPECT_EQ(*decoded, tx);
  EXPECT_TRUE(crypto::verify_bundle(tx.keys, codec::encode(tx.payload), base::as_bytes(kTxSignatureContext), tx.auth));
}

TEST(KnownAnswers, KeysPayloadAndIds) {
  const Transaction tx = documented_transaction();
  const base::Bytes keys = codec::encode(tx.keys);
  EXPECT_EQ(keys.size(), number_value("key bundle bytes"));
  EXPECT_EQ(sha3(keys), bytes_value("key bundle sha3-256"));
  EXPECT_EQ(crypto::bundle_id(tx.keys), id_value("key bundle id"));
  EXPECT_EQ(account_id(tx.keys), id_value("account id"));
  const base::Bytes auth = codec::encode(tx.auth);
  EXPECT_EQ(auth.size(), number_value("signature bundle bytes"));
  EXPECT_EQ(sha3(auth), bytes_value("signature bundle sha3-256"));

  const base::Bytes payload = codec::encode(tx.payload);
  EXPECT_EQ(payload.size(), number_value("payload bytes"));
  EXPECT_EQ(tx.payload.sender, id_value("account id"));
  EXPECT_EQ(tx.payload.chain_id, documented_params().chain_id);
  EXPECT_EQ(tx.payload.fee, required_fee(tx, documented_params().fees).value());

  const Id id = tx_id(tx.payload);
  EXPECT_EQ(id, id_value("tx id"));
  const auto& transfer = std::get<Transfer>(tx.payload.body);
  const std::vector<Id> coins = coin_ids(id, static_cast<std::uint32_t>(transfer.outputs.size() + 1));
  ASSERT_EQ(coins.size(), 3u);
  for (std::uint32_t i = 0; i < coins.size(); ++i) {
    EXPECT_EQ(coins[i], id_value("coin id " + std::to_string(i))) << i;
    EXPECT_EQ(coin_id(id, i), coins[i]) << i;
  }
}

// The Pulse of the page: the transaction, then the same again (a replay,
// rejected for its nonce), on a pre-state of its two input coins.
TEST(KnownAnswers, PulseReceiptsAndRoots) {
  const Transaction tx = documented_transaction();
  MemoryState state = documented_pre_state(tx.payload);
  EXPECT_EQ(state.root(), id_value("pre-state root"));
  const std::vector<Transaction> pulse = {tx, tx};
  const auto outcome = execute_pulse(state, pulse, documented_params(), 1);
  ASSERT_TRUE(outcome.ok()) << outcome.error().reason;
  const std::vector<Receipt> receipts = documented_receipts();
  ASSERT_EQ(outcome->receipts.size(), 2u);
  for (std::size_t i = 0; i < receipts.size(); ++i) {
    const base::Bytes encoding = codec::encode(receipts[i]);
    EXPECT_EQ(encoding, bytes_value("receipt " + std::to_string(i))) << i;  // canonical
    if (i < outcome->receipts.size()) {
      EXPECT_EQ(outcome->receipts[i], receipts[i]) << i;
    }
    EXPECT_EQ(commit::tagged_hash(commit::Domain::receipt_leaf, encoding),
              id_value("receipt leaf " + std::to_string(i)));
  }
  EXPECT_EQ(outcome->receipts_root, id_value("receipts root 2"));
  for (std::size_t n = 0; n <= receipts.size(); ++n) {
    EXPECT_EQ(receipts_root(std::span(receipts.data(), n)), id_value("receipts root " + std::to_string(n))) << n;
  }
  ASSERT_EQ(outcome->writes.size(), 6u);
  for (std::size_t i = 0; i < outcome->writes.size(); ++i) {
    const state::ObjectWrite& write = outcome->writes[i];
    const std::string label = "write " + std::to_string(i);
    EXPECT_EQ(write.id, id_value(label)) << i;
    EXPECT_EQ(write.object ? codec::encode(*write.object) : base::Bytes{},
              doc().bytes(label + " object").value_or(base::Bytes{}))
        << i;
  }
  EXPECT_EQ(state.apply(outcome->writes).value(), id_value("post-state root"));
}

// docs/ledger.md, "Pulses": the header of the Pulse at height 1 that
// executes the documented transaction on the documented pre-state.
TEST(KnownAnswers, PulseHeader) {
  const Transaction tx = documented_transaction();
  const MemoryState pre = documented_pre_state(tx.payload);
  const ChainParams params = documented_params();
  EXPECT_EQ(codec::encode(params), bytes_value("params"));
  EXPECT_EQ(params_hash(params), id_value("params hash"));
  const PulseHeader genesis = genesis_header(pre.root(), params);
  EXPECT_EQ(base::to_hex(codec::encode(genesis)), doc().hex("genesis header"));
  EXPECT_EQ(pulse_hash(genesis), id_value("genesis hash"));

  const std::vector<Transaction> body = {tx};
  EXPECT_EQ(transactions_root(body), id_value("transactions root"));
  auto proposed =
      propose_pulse(MemoryPreState(pre), genesis, body, number_value("pulse time"), id_value("proposer"), params);
  ASSERT_TRUE(proposed.ok()) << proposed.error().to_string();
  const PulseHeader& header = proposed->pulse.header;
  EXPECT_EQ(header.receipts_root, id_value("receipts root 1"));
  EXPECT_EQ(header.state_root, id_value("post-state root"));
  const base::Bytes encoded = codec::encode(header);
  EXPECT_EQ(encoded.size(), number_value("header bytes"));
  EXPECT_EQ(base::to_hex(encoded), doc().hex("header"));
  EXPECT_EQ(base::to_hex(pulse_hash(header)), doc().hex("pulse hash"));
  EXPECT_EQ(codec::decode<PulseHeader>(encoded).value(), header);
  EXPECT_TRUE(check_pulse(MemoryPreState(pre), genesis, proposed->pulse, params).ok());
}

}  // namespace
}  // namespace sion::exec
