// Request parsing, query and path decoding, routing, event framing, URLs:
// everything below the sockets.

#include <gtest/gtest.h>

#include "sion/base/json.hpp"
#include "sion/http/client.hpp"
#include "sion/http/event_stream.hpp"
#include "sion/http/parse.hpp"
#include "sion/http/query.hpp"
#include "sion/http/router.hpp"
#include "sion/http/sse_reader.hpp"

namespace sion::http {
namespace {

base::Result<Request> parse(std::string_view text, ServerOptions options = {}) {
  return parse_request(base::as_bytes(text), options);
}

TEST(ParseRequest, ReadsMethodTargetQueryHeadersAndBody) {
  auto request = parse(
      "POST /v1/tx?fee=10&note=a%20b+c HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 4\r\n\r\n{\"a\"");
  ASSERT_TRUE(request) << request.error().to_string();
  EXPECT_EQ(request->method, "POST");
  EXPECT_EQ(request->target, "/v1/tx?fee=10&note=a%20b+c");
  EXPECT_EQ(request->path, "/v1/tx");
  EXPECT_EQ(request->query.at("fee"), "10");
  EXPECT_EQ(request->query.at("note"), "a b c");
  ASSERT_NE(request->header("content-type"), nullptr);
  EXPECT_EQ(*request->header("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(request->body, "{\"a\"");
  EXPECT_FALSE(request->last_event_id());
}

TEST(ParseRequest, ReadsChunkedBodies) {
  auto request =
      parse("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
  ASSERT_TRUE(request) << request.error().to_string();
  EXPECT_EQ(request->body, "abcde");
}

TEST(ParseRequest, RefusesMalformedInputWithReasons) {
  const auto code_of = [](std::string_view text, ServerOptions options = {}) {
    auto request = parse(text, options);
    EXPECT_FALSE(request) << text;
    if (request) return base::Errc::internal;
    EXPECT_FALSE(request.error().reason.empty());
    return request.error().code;
  };
  EXPECT_EQ(code_of(""), base::Errc::truncated);
  EXPECT_EQ(code_of("GET / HTTP/1.1\r\nHost: x\r\n"), base::Errc::truncated);
  EXPECT_EQ(code_of("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"), base::Errc::truncated);
  EXPECT_EQ(code_of("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n"), base::Errc::trailing_bytes);
  EXPECT_EQ(code_of("G\x01T / HTTP/1.1\r\n\r\n"), base::Errc::invalid_value);
  EXPECT_EQ(code_of("GET / HTTP/x.1\r\n\r\n"), base::Errc::invalid_value);
  EXPECT_EQ(code_of("GET / HTTP/2.0\r\n\r\n"), base::Errc::invalid_value);
  EXPECT_EQ(code_of("GET http://a/ HTTP/1.1\r\n\r\n"), base::Errc::invalid_value);
  EXPECT_EQ(code_of("GET /?a=1&a=2 HTTP/1.1\r\n\r\n"), base::Errc::invalid_value);
  EXPECT_EQ(code_of("GET /?a=%zz HTTP/1.1\r\n\r\n"), base::Errc::invalid_value);
  EXPECT_EQ(code_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
            base::Errc::invalid_value);
  EXPECT_EQ(code_of("POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n"), base::Errc::invalid_value);
  ServerOptions small;
  small.max_header_bytes = 64;
  small.max_body_bytes = 8;
  EXPECT_EQ(code_of("GET / HTTP/1.1\r\nX: " + std::string(100, 'a') + "\r\n\r\n", small), base::Errc::length_over_max);
  EXPECT_EQ(code_of("POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\n123456789", small), base::Errc::length_over_max);
}

TEST(Query, DecodesAndRefusesDuplicatesAndBadEscapes) {
  auto query = parse_query("a=1&&b=%41%2f&flag&c=x+y");
  ASSERT_TRUE(query);
  EXPECT_EQ(query->at("a"), "1");
  EXPECT_EQ(query->at("b"), "A/");
  EXPECT_EQ(query->at("flag"), "");
  EXPECT_EQ(query->at("c"), "x y");
  EXPECT_FALSE(parse_query("a=1&a=1"));
  EXPECT_FALSE(parse_query("a=%4"));
  EXPECT_FALSE(parse_query("a%=1"));
  EXPECT_EQ(percent_decode("a+b").value(), "a+b");
}

TEST(Router, MatchesParametersAndReportsNotFoundAndAllow) {
  Router<int> router;
  ASSERT_TRUE(router.add("GET", "/v1/pulses/{height}/shares/{row}/{col}", 1));
  ASSERT_TRUE(router.add("POST", "/v1/pulses/{h}/shares/{r}/{c}", 2));
  ASSERT_TRUE(router.add("GET", "/v1/status", 3));
  EXPECT_FALSE(router.add("GET", "/v1/pulses/{x}/shares/{y}/{z}", 4));  // same shape and method
  EXPECT_FALSE(router.add("GET", "v1", 4));
  EXPECT_FALSE(router.add("GET", "/{a}/{a}", 4));
  EXPECT_FALSE(router.add("GET", "/{a-b}", 4));

  auto segments = split_path("/v1/pulses/7/shares/1/a%2Fb");
  ASSERT_TRUE(segments);
  auto found = router.match("GET", *segments);
  ASSERT_EQ(found.kind, MatchKind::found);
  EXPECT_EQ(*found.value, 1);
  EXPECT_EQ(found.params.at("height"), "7");
  EXPECT_EQ(found.params.at("col"), "a/b");

  auto wrong = router.match("DELETE", *segments);
  EXPECT_EQ(wrong.kind, MatchKind::method_not_allowed);
  EXPECT_EQ(wrong.allow, "GET, POST");
  EXPECT_EQ(router.match("GET", split_path("/v1/pulses/7").value()).kind, MatchKind::not_found);
  EXPECT_EQ(router.match("GET", split_path("/v1/status/").value()).kind, MatchKind::not_found);
  EXPECT_EQ(router.match("GET", split_path("/v1/pulses//shares/1/2").value()).kind, MatchKind::not_found);
  EXPECT_FALSE(split_path("/a%"));
}

TEST(JsonError, HasTheOneShape) {
  const Response response = json_error(404, "not_found", "no route for /x\xff");
  EXPECT_EQ(response.status, 404u);
  EXPECT_EQ(response.content_type, "application/json");
  auto json = base::parse_json(response.body);
  ASSERT_TRUE(json) << response.body;
  EXPECT_EQ((*json)["error"]["code"], "not_found");
  EXPECT_EQ(json->size(), 1u);
  EXPECT_EQ((*json)["error"].size(), 2u);
}

TEST(Events, FramesAndParsesBack) {
  EXPECT_EQ(format_event({"7", "executed", "a\nb"}), "id: 7\nevent: executed\ndata: a\ndata: b\n\n");
  EXPECT_EQ(format_event({"", "", ""}), "data: \n\n");
  EXPECT_EQ(format_event({"1\n2", "x\ry", "p\r\nq\rr"}), "id: 12\nevent: xy\ndata: p\ndata: q\ndata: r\n\n");
  EXPECT_EQ(format_comment("keep-alive"), ": keep-alive\n\n");

  SseParser parser;
  const std::string wire = format_event({"1", "a", "x\ny"}) + format_comment("keep-alive") + "data: z\r\n\r\n" +
                           "id: 5\rdata:w\r\r" + "event: only-type\n\n";
  // Byte by byte: frames may arrive split anywhere.
  for (const char c : wire) parser.feed(std::string_view(&c, 1));
  EXPECT_EQ(parser.next(), (Event{"1", "a", "x\ny"}));
  EXPECT_EQ(parser.next(), (Event{"1", "message", "z"}));  // the last event id carries over
  EXPECT_EQ(parser.next(), (Event{"5", "message", "w"}));
  EXPECT_FALSE(parser.next());  // no data: nothing dispatched
  EXPECT_EQ(parser.last_event_id(), "5");
}

TEST(EventStream, LagsPastItsBoundAndRefusesLaterPushes) {
  EventStream stream(EventStreamLimits{1024, 3});
  int wakes = 0;
  stream.attach([&] { ++wakes; });
  EXPECT_TRUE(stream.push({"1", "", "a"}));
  EXPECT_TRUE(stream.push({"2", "", "b"}));
  EXPECT_EQ(wakes, 1);  // one wake until the writer takes
  auto batch = stream.take();
  EXPECT_EQ(batch.events, 2u);
  EXPECT_FALSE(batch.finish);
  EXPECT_TRUE(stream.push({"3", "", "c"}));
  EXPECT_EQ(wakes, 2);
  // Two taken but unwritten plus one queued: the fourth is past the bound.
  EXPECT_FALSE(stream.push({"4", "", "d"}));
  EXPECT_TRUE(stream.lagged());
  EXPECT_TRUE(stream.closed());
  EXPECT_FALSE(stream.push({"5", "", "e"}));
  batch = stream.take();
  EXPECT_TRUE(batch.finish);
  EXPECT_EQ(batch.bytes.find("data: c"), std::string::npos);
  EXPECT_NE(batch.bytes.find("event: lagged\n"), std::string::npos);
}

TEST(EventStream, WrittenFreesTheBound) {
  EventStream stream(EventStreamLimits{1 << 20, 2});
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(stream.push({std::to_string(i), "", "x"}));
    const auto batch = stream.take();
    stream.written(batch.bytes.size(), batch.events);
  }
  stream.detach();
  EXPECT_TRUE(stream.closed());
  EXPECT_FALSE(stream.lagged());
  EXPECT_FALSE(stream.push({"x", "", "x"}));
}

TEST(BaseUrl, ParsesHttpAndRefusesOthers) {
  EXPECT_EQ(parse_base_url("http://127.0.0.1:8730").value(), (BaseUrl{"127.0.0.1", 8730, ""}));
  EXPECT_EQ(parse_base_url("HTTP://node.example/api/").value(), (BaseUrl{"node.example", 80, "/api"}));
  EXPECT_EQ(parse_base_url("http://[::1]:9000").value(), (BaseUrl{"::1", 9000, ""}));
  auto https = parse_base_url("https://node.example");
  ASSERT_FALSE(https);
  EXPECT_NE(https.error().reason.find("\"https\" is not supported"), std::string::npos);
  EXPECT_FALSE(parse_base_url("node.example:80"));
  EXPECT_FALSE(parse_base_url("http://:80"));
  EXPECT_FALSE(parse_base_url("http://a:0"));
  EXPECT_FALSE(parse_base_url("http://a:65536"));
  EXPECT_FALSE(parse_base_url("http://a:x"));
  EXPECT_FALSE(parse_base_url("http://a:"));
  EXPECT_FALSE(parse_base_url("http://u@a:1"));
  EXPECT_FALSE(parse_base_url("http://a/?q"));
}

}  // namespace
}  // namespace sion::http
