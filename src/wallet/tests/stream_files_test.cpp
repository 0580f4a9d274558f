#include "sion/wallet/stream_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "sion/base/file.hpp"
#include "sion/base/json.hpp"
#include "sion/base/testing/temp_dir.hpp"

namespace sion::wallet {
namespace {

using base::testing::TempDir;

streams::Hash filled(std::uint8_t byte) {
  streams::Hash hash{};
  hash.fill(byte);
  return hash;
}

PayerFile payer_sample() {
  const streams::StreamPayer payer = streams::StreamPayer::create(filled(0x11), 300).value();
  PayerFile file;
  file.stream = filled(0x22);
  file.payee = filled(0x33);
  file.price = 1'000;
  file.deposit = 300'000;
  file.expiry_height = 90;
  file.record = payer.record();
  file.record.revealed = 17;
  return file;
}

streams::PayeeRecord payee_sample() {
  const PayerFile payer = payer_sample();
  const streams::StreamPayer chain = streams::StreamPayer::create(payer.record.seed, payer.record.length).value();
  streams::Stream terms;
  terms.payer = filled(0x44);
  terms.payee = payer.payee;
  terms.price = payer.price;
  terms.length = payer.record.length;
  terms.anchor = chain.anchor();
  terms.checkpoints = chain.checkpoint_root();
  terms.deposit = payer.deposit;
  terms.expiry_height = payer.expiry_height;
  terms.settled = 0;
  terms.settled_element = chain.anchor();
  auto payee = streams::StreamPayee::open(payer.stream, terms, chain.checkpoints()).value();
  streams::StreamPayer paying = chain;
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(payee.accept(paying.next().value()));
  return payee.record();
}

// The text with `edit` applied to its JSON document.
template <class Edit>
std::string edited(const std::string& text, const Edit& edit) {
  base::JsonValue json = base::parse_json(text).value();
  edit(json);
  return json.dump();
}

void expect_refused(const base::Result<PayerFile>& parsed, const std::string& part) {
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().reason.find(part), std::string::npos) << parsed.error().reason;
}

TEST(StreamFiles, EachRoundTripsThroughItsText) {
  const PayerFile payer = payer_sample();
  const auto payer_back = parse_payer_file(payer_file_to_json(payer));
  ASSERT_TRUE(payer_back) << payer_back.error().reason;
  EXPECT_EQ(*payer_back, payer);
  EXPECT_EQ(payer_back->record.checkpoints.size(), streams::checkpoint_count(300));

  const OfferFile offer{payer.stream, payer.record.length, payer.record.checkpoints};
  const auto offer_back = parse_offer_file(offer_file_to_json(offer));
  ASSERT_TRUE(offer_back) << offer_back.error().reason;
  EXPECT_EQ(*offer_back, offer);

  const streams::PayeeRecord payee = payee_sample();
  const auto payee_back = parse_payee_file(payee_file_to_json(payee));
  ASSERT_TRUE(payee_back) << payee_back.error().reason;
  EXPECT_EQ(*payee_back, payee);
  EXPECT_EQ(payee_back->accepted, 5u);
}

TEST(StreamFiles, EveryMalformedFieldIsRefusedWithItsPath) {
  const std::string text = payer_file_to_json(payer_sample());
  using Json = base::JsonValue;
  expect_refused(parse_payer_file("[]"), "payer file: $: expected an object");
  expect_refused(parse_payer_file("{"), "payer file: not JSON");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j.erase("seed"); })), "$: missing field \"seed\"");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["extra"] = 1; })), "$: unknown field \"extra\"");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["seed"] = "ab"; })), "$.seed: expected 64 hex digits");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["stream"] = std::string(64, 'A'); })),
                 "$.stream: expected lower-case hex digits");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["price"] = 0; })), "$.price: a stream's price");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["price"] = -1; })), "$.price");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["deposit"] = "5"; })), "$.deposit");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["length"] = 0; })), "$.length: a stream's length");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["length"] = 4294967296ULL; })), "$.length");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["revealed"] = 301; })), "$.revealed");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["checkpoints"].erase(0); })),
                 "$.checkpoints: a chain of 300 has 9 checkpoints, the file lists 8");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["checkpoints"][3] = 7; })), "$.checkpoints[3]");
  expect_refused(parse_payer_file(edited(text, [](Json& j) { j["checkpoints"] = Json::object(); })), "$.checkpoints");

  const std::string payee = payee_file_to_json(payee_sample());
  const auto refused = [](const base::Result<streams::PayeeRecord>& parsed, const std::string& part) {
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().reason.find(part), std::string::npos) << parsed.error().reason;
  };
  refused(parse_payee_file(edited(payee, [](Json& j) { j["terms"].erase("anchor"); })),
          "payee file: $.terms: missing field \"anchor\"");
  refused(parse_payee_file(edited(payee, [](Json& j) { j["terms"]["settled"] = 301; })), "$.terms.settled");
  refused(parse_payee_file(edited(payee, [](Json& j) { j["terms"]["extra"] = true; })),
          "$.terms: unknown field \"extra\"");
  refused(parse_payee_file(edited(payee, [](Json& j) { j["accepted"] = 400; })), "$.accepted");
  refused(parse_payee_file(edited(payee,
                                  [](Json& j) {
                                    j["terms"]["settled"] = 6;
                                    j["accepted"] = 5;
                                  })),
          "$.accepted: below the settled index 6");
  const std::string offer = offer_file_to_json(OfferFile{filled(1), 300, payer_sample().record.checkpoints});
  const auto offer_refused = parse_offer_file(edited(offer, [](Json& j) { j["length"] = 1000; }));
  ASSERT_FALSE(offer_refused);
  EXPECT_NE(offer_refused.error().reason.find("offer file: $.checkpoints: a chain of 1000 has 31"), std::string::npos)
      << offer_refused.error().reason;
}

TEST(StreamFiles, NewFilesAreWrittenOnceAndSavesReplaceAtomically) {
  TempDir dir;
  const std::string path = dir / "payer.json";
  PayerFile file = payer_sample();
  ASSERT_TRUE(write_new_payer_file(path, file));
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);  // it holds the seed
  const auto again = write_new_payer_file(path, file);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().reason.find("already exists"), std::string::npos) << again.error().reason;

  file.record.revealed = 200;
  ASSERT_TRUE(save_payer_file(path, file));
  const auto read = read_payer_file(path);
  ASSERT_TRUE(read) << read.error().reason;
  EXPECT_EQ(read->record.revealed, 200u);

  // Others may read it: refused, as a key file would be.
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  EXPECT_FALSE(read_payer_file(path));

  const std::string payee_path = dir / "payee.json";
  streams::PayeeRecord record = payee_sample();
  ASSERT_TRUE(write_new_payee_file(payee_path, record));
  EXPECT_FALSE(write_new_payee_file(payee_path, record));
  record.accepted = 0;
  record.element = record.terms.anchor;
  ASSERT_TRUE(save_payee_file(payee_path, record));
  EXPECT_EQ(read_payee_file(payee_path).value(), record);

  // A broken file names itself and the field.
  const std::string broken = dir / "offer.json";
  ASSERT_TRUE(base::write_new_file(broken, "{\"stream\": 5}", {}));
  const auto offer = read_offer_file(broken);
  ASSERT_FALSE(offer);
  EXPECT_NE(offer.error().reason.find("offer.json"), std::string::npos) << offer.error().reason;
  EXPECT_NE(offer.error().reason.find("$.stream"), std::string::npos) << offer.error().reason;
}

}  // namespace
}  // namespace sion::wallet
