#include "sion/wallet/stream_client.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "fake_node.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/streams/chain.hpp"
#include "sion/streams/payee.hpp"

namespace sion::wallet {
namespace {

using testing::contains;
using testing::FakeNode;
using testing::hash_of_byte;
using testing::Json;
using testing::seed_of;

// Ed25519 + ECDSA keys sign in microseconds; the rules read no signature.
crypto::SigningBundle signer_of(std::uint8_t byte) {
  return crypto::SigningBundle::from_seed(crypto::Profile::classic, seed_of(byte)).value();
}

constexpr exec::Amount kPrice = 1'000'000;
constexpr std::uint32_t kLength = 16;  // spacing 4, checkpoints x[4], x[8], x[12], x[16]

// A stream of kLength payments from `payer` to `payee`, as OpenStream
// leaves it, with its chain.
struct Opened {
  streams::StreamPayer chain;
  streams::Stream stream;
  exec::Id id{};
};

Opened open_stream(const exec::Id& payer, const exec::Id& payee, exec::Amount deposit, std::uint64_t expiry) {
  Opened out{streams::StreamPayer::create(hash_of_byte(0x51), kLength).value(), {}, hash_of_byte(0x5e)};
  out.stream =
      streams::Stream{payer,   payee,  kPrice, kLength,           out.chain.anchor(), out.chain.checkpoint_root(),
                      deposit, expiry, 0,      out.chain.anchor()};
  return out;
}

// The payee, having accepted the first `count` payments.
streams::StreamPayee paid(const Opened& opened, std::uint32_t count) {
  auto payee = streams::StreamPayee::open(opened.id, opened.stream, opened.chain.checkpoints()).value();
  streams::StreamPayer payer = opened.chain;
  for (std::uint32_t i = 0; i < count; ++i) EXPECT_TRUE(payee.accept(payer.next().value()));
  return payee;
}

// GET /v1/accounts/{id} as the node answers it: `coins` of the account, or
// an account that does not exist when there are none.
void serve_account(FakeNode& node, const exec::Id& id, std::uint64_t nonce, std::vector<exec::Amount> coins) {
  node.intercept = [&node, id, nonce, coins](std::string_view method, const std::string& path,
                                             std::string_view) -> std::optional<HttpReply> {
    if (method != "GET" || path != "/v1/accounts/" + base::to_hex(id)) return std::nullopt;
    Json list = Json::array();
    exec::Amount balance = 0;
    for (std::size_t i = 0; i < coins.size(); ++i) {
      list.push_back({{"id", base::to_hex(hash_of_byte(static_cast<std::uint8_t>(0xc0 + i)))}, {"amount", coins[i]}});
      balance += coins[i];
    }
    const bool exists = !coins.empty() || nonce != 0;
    return testing::json_reply(200, Json{{"id", base::to_hex(id)},
                                         {"height", node.height()},
                                         {"exists", exists},
                                         {"nonce", nonce},
                                         {"keys_id", exists ? Json(base::to_hex(hash_of_byte(0x77))) : Json(nullptr)},
                                         {"coins", list},
                                         {"balance", balance}});
  };
}

exec::Transaction signed_by(FakeNode& node, const crypto::SigningBundle& signer, exec::TxBody body) {
  serve_account(node, exec::account_id(signer.public_bundle()), 0, {});
  NodeApi api(node.call());
  auto tx = sign_paid_by_stream(api, signer, node.genesis().params, std::move(body));
  EXPECT_TRUE(tx) << tx.error().to_string();
  return *tx;
}

StreamPreview preview(FakeNode& node, const exec::Transaction& tx) {
  NodeApi api(node.call());
  auto result = preview_stream_tx(api, tx);
  EXPECT_TRUE(result) << result.error().to_string();
  return result ? *result : StreamPreview{};
}

TEST(StreamClient, FetchesTheStoredStreamAndNothingElse) {
  const auto payer = exec::account_id(signer_of(1).public_bundle());
  const auto payee = exec::account_id(signer_of(2).public_bundle());
  const Opened opened = open_stream(payer, payee, 10 * kPrice, 50);
  FakeNode node;
  node.add_pulse(10, {{opened.id, streams::to_object(opened.stream, 1)},
                      {hash_of_byte(0x01),
                       state::Object{static_cast<std::uint32_t>(ledger::ObjectType::coin), 1, base::Bytes(40, 1)}},
                      {hash_of_byte(0x02),
                       state::Object{static_cast<std::uint32_t>(ledger::ObjectType::stream), 1, base::Bytes{1, 2}}}});
  node.add_pulse(10, {});
  NodeApi api(node.call());

  const auto fetched = fetch_stream(api, opened.id);
  ASSERT_TRUE(fetched) << fetched.error().to_string();
  ASSERT_TRUE(*fetched);
  EXPECT_EQ((*fetched)->stream, opened.stream);
  EXPECT_EQ((*fetched)->height, 2u);
  EXPECT_EQ(node.requests.back(), "GET /v1/objects/" + base::to_hex(opened.id));

  const auto absent = fetch_stream(api, hash_of_byte(0x03));
  ASSERT_TRUE(absent) << absent.error().to_string();
  EXPECT_FALSE(*absent);
  const auto coin = fetch_stream(api, hash_of_byte(0x01));
  ASSERT_TRUE(coin) << coin.error().to_string();
  EXPECT_FALSE(*coin);
  const auto corrupt = fetch_stream(api, hash_of_byte(0x02));
  ASSERT_FALSE(corrupt);
  EXPECT_EQ(corrupt.error().code, base::Errc::invalid_value);
  EXPECT_TRUE(contains(corrupt.error().reason, "stream " + base::to_hex(hash_of_byte(0x02)))) << corrupt.error().reason;
}

TEST(StreamClient, ShowsTheNodesViewOfTheStreamNamed) {
  const exec::Id id = hash_of_byte(0x5e);
  const std::string path = "/v1/streams/" + base::to_hex(id);
  HttpReply reply = testing::json_reply(200, Json{{"id", base::to_hex(id)}, {"settled", 3}});
  std::string asked;
  const HttpCall call = [&](std::string_view method, std::string_view p, std::string_view,
                            std::string_view) -> base::Result<HttpReply> {
    asked = std::string(method) + " " + std::string(p);
    return reply;
  };
  const auto view = fetch_stream_view(call, id);
  ASSERT_TRUE(view) << view.error().to_string();
  EXPECT_EQ(asked, "GET " + path);
  EXPECT_EQ((*view)["settled"], 3);

  reply = testing::json_reply(200, Json{{"id", base::to_hex(hash_of_byte(1))}});
  EXPECT_TRUE(contains(fetch_stream_view(call, id).error().reason, "GET " + path + ": $.id: expected"));
  reply = testing::error_reply(404, "not_found", "no stream is stored under it");
  const auto missing = fetch_stream_view(call, id);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, base::Errc::not_found);
  EXPECT_TRUE(contains(missing.error().reason, "404 not_found: no stream is stored under it"));
  reply = testing::error_reply(503, "busy", "later");
  EXPECT_EQ(fetch_stream_view(call, id).error().code, base::Errc::io_error);
  reply = {200, "text/plain", "{}"};
  EXPECT_TRUE(contains(fetch_stream_view(call, id).error().reason, "expected application/json"));
  reply = {200, "application/json", "[1"};
  EXPECT_FALSE(fetch_stream_view(call, id));
  EXPECT_EQ(fetch_stream_view(HttpCall{}, id).error().code, base::Errc::internal);
}

TEST(StreamClient, OpensWithThePayersChainAndCoinsThatCoverDepositAndFee) {
  const Sender sender{signer_of(1), std::nullopt};
  const exec::Id payer_id = exec::account_id(sender.signer.public_bundle());
  const exec::Id payee = hash_of_byte(0x33);
  const auto chain = streams::StreamPayer::create(hash_of_byte(0x51), 300).value();
  const StreamTerms terms{payee, 7, 2'000, 90};
  FakeNode node;
  node.add_pulse(10, {});
  // Coins are taken largest first until they hold the deposit and the fee.
  serve_account(node, payer_id, 4, {1'500, 100, 1'000'000});
  NodeApi api(node.call());
  const auto tx = sign_open_stream(api, sender, node.genesis().params, terms, chain);
  ASSERT_TRUE(tx) << tx.error().to_string();
  EXPECT_EQ(tx->payload.sender, payer_id);
  EXPECT_EQ(tx->payload.nonce, 4u);
  EXPECT_EQ(tx->payload.fee, exec::required_fee(*tx, node.genesis().params.fees).value());
  const auto* body = std::get_if<exec::OpenStream>(&tx->payload.body);
  ASSERT_NE(body, nullptr);
  const exec::OpenStream expected{
      payee, 7, 300, chain.anchor(), chain.checkpoint_root(), 2'000, 90, {hash_of_byte(0xc2)}};
  EXPECT_EQ(*body, expected);

  // Coins that do not hold the deposit and the fee; an account that does
  // not exist.
  serve_account(node, payer_id, 4, {1'500, 100});
  const auto poor = sign_open_stream(api, sender, node.genesis().params, terms, chain);
  ASSERT_FALSE(poor);
  EXPECT_EQ(poor.error().code, base::Errc::invalid_argument);
  EXPECT_TRUE(contains(poor.error().reason, "not enough to pay 2000 and the fee")) << poor.error().reason;
  serve_account(node, payer_id, 0, {});
  EXPECT_TRUE(contains(sign_open_stream(api, sender, node.genesis().params, terms, chain).error().reason,
                       "does not exist on this chain"));
}

TEST(StreamClient, PaysByTheStreamAtTheSignersNextNonce) {
  const crypto::SigningBundle payee = signer_of(2);
  const exec::Id payee_id = exec::account_id(payee.public_bundle());
  FakeNode node;
  node.add_pulse(10, {});
  NodeApi api(node.call());
  const exec::SettleStream body{hash_of_byte(0x5e), 4, 6, hash_of_byte(0x66), streams::CheckpointPath{}};

  // A payee with no account yet signs at nonce 0; its settlement names no coin.
  serve_account(node, payee_id, 0, {});
  const auto first = sign_paid_by_stream(api, payee, node.genesis().params, body);
  ASSERT_TRUE(first) << first.error().to_string();
  EXPECT_EQ(first->payload.nonce, 0u);
  EXPECT_EQ(first->payload.sender, payee_id);
  EXPECT_EQ(std::get<exec::SettleStream>(first->payload.body), body);
  EXPECT_EQ(first->payload.fee, exec::required_fee(*first, node.genesis().params.fees).value());

  serve_account(node, payee_id, 9, {});
  const auto later = sign_paid_by_stream(api, payee, node.genesis().params, body);
  ASSERT_TRUE(later) << later.error().to_string();
  EXPECT_EQ(later->payload.nonce, 9u);

  // The fee covers the settlement's hashing (docs/streams.md, "Fees"): one
  // verify unit a step walked, one for the checkpoint leaf and one a path
  // node. Six steps walked cost four units more than two; a path of one
  // node two more than none.
  const auto units = [&](const exec::SettleStream& settlement) {
    const auto tx = sign_paid_by_stream(api, payee, node.genesis().params, settlement);
    EXPECT_TRUE(tx) << tx.error().to_string();
    EXPECT_EQ(tx->payload.fee, exec::required_fee(*tx, node.genesis().params.fees).value());
    return exec::tx_usage(*tx).verify_units;
  };
  const exec::Id stream = hash_of_byte(0x5e);
  const streams::Hash element = hash_of_byte(0x66);
  const std::uint64_t two_steps = units(exec::SettleStream{stream, 4, 6, element, std::nullopt});
  EXPECT_EQ(units(exec::SettleStream{stream, 0, 6, element, std::nullopt}), two_steps + 4);
  EXPECT_EQ(units(exec::SettleStream{stream, 4, 6, element, streams::CheckpointPath{hash_of_byte(1)}}), two_steps + 2);
}

TEST(StreamClient, PreviewsASettlementAsTheLedgerWouldRunIt) {
  const crypto::SigningBundle payer = signer_of(1);
  const crypto::SigningBundle payee = signer_of(2);
  const Opened opened =
      open_stream(exec::account_id(payer.public_bundle()), exec::account_id(payee.public_bundle()), 10 * kPrice, 50);
  FakeNode node;
  node.add_pulse(10, {{opened.id, streams::to_object(opened.stream, 1)}});
  const streams::StreamPayee six = paid(opened, 6);

  // By checkpoint: from x[4], two steps and a path.
  const exec::SettleStream by_checkpoint = six.settle_by_checkpoint().value();
  EXPECT_EQ(by_checkpoint.from, 4u);
  const exec::Transaction settle = signed_by(node, payee, by_checkpoint);
  const StreamPreview checked = preview(node, settle);
  EXPECT_EQ(checked.status, exec::TxStatus::success);
  EXPECT_EQ(checked.height, 2u);
  ASSERT_EQ(checked.coins.size(), 1u);
  EXPECT_EQ(checked.coins[0], 6 * kPrice - settle.payload.fee);
  EXPECT_EQ(node.requests.back(), "GET /v1/objects/" + base::to_hex(opened.id));

  // Walked from the settled index: six steps down to the anchor.
  const exec::SettleStream walk = six.settle_walked(0).value();
  EXPECT_EQ(walk.from, 0u);
  EXPECT_FALSE(walk.path);
  const exec::Transaction walked = signed_by(node, payee, walk);
  const StreamPreview walked_preview = preview(node, walked);
  EXPECT_EQ(walked_preview.status, exec::TxStatus::success);
  ASSERT_EQ(walked_preview.coins.size(), 1u);
  EXPECT_EQ(walked_preview.coins[0], 6 * kPrice - walked.payload.fee);

  // What the ledger rejects, each for its reason.
  EXPECT_EQ(preview(node, signed_by(node, payer, by_checkpoint)).status, exec::TxStatus::not_stream_payee);
  exec::SettleStream forged = by_checkpoint;
  forged.element[0] ^= 1;
  EXPECT_EQ(preview(node, signed_by(node, payee, forged)).status, exec::TxStatus::bad_checkpoint_path);
  exec::SettleStream forged_walk = walk;
  forged_walk.element[31] ^= 1;
  EXPECT_EQ(preview(node, signed_by(node, payee, forged_walk)).status, exec::TxStatus::bad_stream_element);
  exec::SettleStream wrong_start = walk;
  wrong_start.from = 1;
  EXPECT_EQ(preview(node, signed_by(node, payee, wrong_start)).status, exec::TxStatus::wrong_walk_start);
  exec::SettleStream elsewhere = by_checkpoint;
  elsewhere.stream = hash_of_byte(0x99);
  EXPECT_EQ(preview(node, signed_by(node, payee, elsewhere)).status, exec::TxStatus::unknown_stream);

  // Settled to 6 on the chain: the same claim is nothing new.
  streams::Stream settled = opened.stream;
  settled.settled = 6;
  settled.settled_element = by_checkpoint.element;
  settled.deposit -= 6 * kPrice;
  node.add_pulse(10, {{opened.id, streams::to_object(settled, 2)}});
  EXPECT_EQ(preview(node, settle).status, exec::TxStatus::index_not_above_settled);
  // A walk from the new settled index to 9 passes.
  const exec::SettleStream more = paid(opened, 9).settle_walked(6).value();
  const exec::Transaction settle_more = signed_by(node, payee, more);
  const StreamPreview more_preview = preview(node, settle_more);
  EXPECT_EQ(more_preview.status, exec::TxStatus::success);
  ASSERT_EQ(more_preview.coins.size(), 1u);
  EXPECT_EQ(more_preview.coins[0], 3 * kPrice - settle_more.payload.fee);
  // Past the expiry height, no settlement runs.
  while (node.height() < 50) node.add_pulse(1, {});
  EXPECT_EQ(preview(node, settle_more).status, exec::TxStatus::stream_expired);
}

TEST(StreamClient, PreviewsTheSettlementThatUsesUpTheDeposit) {
  const crypto::SigningBundle payer = signer_of(1);
  const crypto::SigningBundle payee = signer_of(2);
  // Ten payments and a half covered: the tenth leaves less than a price.
  const Opened opened = open_stream(exec::account_id(payer.public_bundle()), exec::account_id(payee.public_bundle()),
                                    10 * kPrice + kPrice / 2, 50);
  FakeNode node;
  node.add_pulse(10, {{opened.id, streams::to_object(opened.stream, 1)}});
  streams::StreamPayee ten = paid(opened, 10);
  streams::StreamPayer payer_chain = opened.chain;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(payer_chain.next());
  EXPECT_EQ(ten.accept(payer_chain.next().value()).refusal, streams::Refusal::beyond_deposit);

  const exec::Transaction settle = signed_by(node, payee, ten.settle_by_checkpoint().value());
  const StreamPreview used_up = preview(node, settle);
  EXPECT_EQ(used_up.status, exec::TxStatus::success);
  ASSERT_EQ(used_up.coins.size(), 2u);
  EXPECT_EQ(used_up.coins[0], 10 * kPrice - settle.payload.fee);
  EXPECT_EQ(used_up.coins[1], kPrice / 2);

  // A price that does not cover the fee: nothing is paid.
  Opened cheap = open_stream(opened.stream.payer, opened.stream.payee, 16, 50);
  cheap.stream.price = 1;
  cheap.id = hash_of_byte(0x5f);
  node.add_pulse(10, {{cheap.id, streams::to_object(cheap.stream, 1)}});
  EXPECT_EQ(preview(node, signed_by(node, payee, paid(cheap, 1).settle_walked(0).value())).status,
            exec::TxStatus::fee_unpayable);
}

TEST(StreamClient, PreviewsACloseOnlyAfterTheExpiryAndOnlyByThePayer) {
  const crypto::SigningBundle payer = signer_of(1);
  const crypto::SigningBundle payee = signer_of(2);
  const Opened opened =
      open_stream(exec::account_id(payer.public_bundle()), exec::account_id(payee.public_bundle()), 10 * kPrice, 3);
  FakeNode node;
  node.add_pulse(10, {{opened.id, streams::to_object(opened.stream, 1)}});
  const exec::Transaction close = signed_by(node, payer, exec::CloseStream{opened.id});
  // Heights 2 and 3 are still within the expiry height 3.
  EXPECT_EQ(preview(node, close).status, exec::TxStatus::stream_not_expired);
  node.add_pulse(1, {});
  EXPECT_EQ(preview(node, close).status, exec::TxStatus::stream_not_expired);
  node.add_pulse(1, {});
  const StreamPreview closed = preview(node, close);
  EXPECT_EQ(closed.status, exec::TxStatus::success);
  EXPECT_EQ(closed.height, 4u);
  ASSERT_EQ(closed.coins.size(), 1u);
  EXPECT_EQ(closed.coins[0], 10 * kPrice - close.payload.fee);
  EXPECT_EQ(preview(node, signed_by(node, payee, exec::CloseStream{opened.id})).status,
            exec::TxStatus::not_stream_payer);
  EXPECT_EQ(preview(node, signed_by(node, payer, exec::CloseStream{hash_of_byte(0x99)})).status,
            exec::TxStatus::unknown_stream);

  // Another kind is not previewed.
  exec::Transaction transfer = close;
  transfer.payload.body = exec::Transfer{{hash_of_byte(1)}, {exec::Output{hash_of_byte(2), 1000}}};
  NodeApi api(node.call());
  const auto refused = preview_stream_tx(api, transfer);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, base::Errc::invalid_argument);
}

}  // namespace
}  // namespace sion::wallet
