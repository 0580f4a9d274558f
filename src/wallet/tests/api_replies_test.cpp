// The reply parsers on their own (sion/wallet/api_replies.hpp): the ones no
// NodeApi call covers (a transaction event, the error body of any content
// type), and errors that carry no route (NodeApi adds it; node_api_test
// checks the replies of every route through it).

#include "sion/wallet/api_replies.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fake_node.hpp"

namespace sion::wallet {
namespace {

using testing::contains;
using testing::hash_of_byte;
using testing::Json;

Json receipt(const exec::Id& tx) {
  return {{"tx_id", base::to_hex(tx)}, {"status", "success"}, {"status_code", 0},
          {"fee_paid", 2841},          {"coins_created", 1},  {"coin_ids", {base::to_hex(hash_of_byte(0xc0))}}};
}

TEST(ApiReplies, ReadsTransactionEvents) {
  const exec::Id tx = hash_of_byte(0x1d);
  // As the node writes them (src/node/json_views.cpp): executed, and removed.
  auto executed = parse_tx_event_reply(
      Json{{"tx_id", base::to_hex(tx)}, {"status", "executed"}, {"height", 4}, {"index", 2}, {"receipt", receipt(tx)}}
          .dump());
  ASSERT_TRUE(executed) << executed.error().to_string();
  EXPECT_EQ(executed->tx_id, tx);
  EXPECT_TRUE(executed->state.executed());
  EXPECT_EQ(executed->state.height, 4u);
  EXPECT_EQ(executed->state.index, 2u);
  ASSERT_TRUE(executed->state.receipt);
  EXPECT_EQ(executed->state.receipt->fee_paid, 2841u);

  auto dropped = parse_tx_event_reply(
      Json{{"tx_id", base::to_hex(tx)}, {"status", "dropped"}, {"reason", "inputs_spent"}, {"later", true}}.dump());
  ASSERT_TRUE(dropped) << dropped.error().to_string();  // informational: unknown fields are ignored
  EXPECT_EQ(dropped->state.status, "dropped");
  EXPECT_EQ(dropped->state.reason, "inputs_spent");

  const std::pair<Json, const char*> refused[] = {
      {Json{{"tx_id", base::to_hex(tx)}, {"status", "executed"}, {"height", 4}, {"index", 2}},
       "$: an executed transaction needs height, index and receipt"},
      {Json{{"tx_id", base::to_hex(tx)},
            {"status", "executed"},
            {"height", 4},
            {"index", 2},
            {"receipt", receipt(hash_of_byte(0x1e))}},
       "$.receipt.tx_id: another transaction's"},
      {Json{{"tx_id", "1D" + std::string(62, '1')}, {"status", "dropped"}}, "$.tx_id: expected lower-case hex"},
      {Json{{"status", "dropped"}}, "$: missing field \"tx_id\""},
  };
  for (const auto& [data, expected] : refused) {
    auto result = parse_tx_event_reply(data.dump());
    ASSERT_FALSE(result) << data.dump();
    EXPECT_EQ(result.error().code, base::Errc::invalid_value);
    EXPECT_TRUE(contains(result.error().reason, expected)) << result.error().reason;
  }
  auto not_json = parse_tx_event_reply("{\"tx_id\":");
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().code, base::Errc::invalid_value);
  EXPECT_FALSE(not_json.error().reason.empty());
}

TEST(ApiReplies, ReadsErrorBodiesOfAnyShape) {
  const ApiError documented =
      parse_api_error(422, "application/json; charset=utf-8", R"({"error":{"code":"duplicate","message":"pooled"}})");
  EXPECT_EQ(documented.code, "duplicate");
  EXPECT_EQ(documented.to_string(), "422 duplicate: pooled");
  // Anything else is kept, cut short, as the message.
  const std::string page = "<html>" + std::string(300, 'x') + "</html>";
  const ApiError proxy = parse_api_error(502, "text/html", page);
  EXPECT_TRUE(proxy.code.empty());
  EXPECT_EQ(proxy.message, page.substr(0, 200) + "...");
  EXPECT_TRUE(parse_api_error(400, "text/plain", R"({"error":{"code":"x","message":"y"}})").code.empty());
  EXPECT_TRUE(parse_api_error(400, "application/json", R"({"error":{"code":"x","message":"y","z":1}})").code.empty());

  EXPECT_TRUE(is_json_content_type("Application/JSON"));
  EXPECT_TRUE(is_json_content_type("application/json;charset=utf-8"));
  EXPECT_FALSE(is_json_content_type("application/jsonx"));
  EXPECT_FALSE(is_json_content_type("application/js"));
}

TEST(ApiReplies, ErrorsNameThePathButNotTheRoute) {
  const exec::Id account = hash_of_byte(0xac);
  auto result = parse_account_reply(Json{{"id", base::to_hex(hash_of_byte(0xad))}}.dump(), account);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason.rfind("$: the reply names account ", 0), 0u) << result.error().reason;
  auto submission = parse_submission_reply(Json{{"tx_id", base::to_hex(account)}, {"status", "evicted"}}.dump());
  ASSERT_FALSE(submission);
  EXPECT_EQ(submission.error().reason, "$.status: expected \"pending\" or \"held\", got the string \"evicted\"");
}

}  // namespace
}  // namespace sion::wallet
