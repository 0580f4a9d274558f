#include "sion/base/json.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sion::base {
namespace {

// The reason of a failed result (an empty string if it did not fail).
template <class T>
std::string reason_of(const Result<T>& result) {
  if (result.ok()) return "";
  EXPECT_EQ(result.error().code, Errc::invalid_value);
  return result.error().reason;
}

JsonValue parsed(std::string_view text) {
  auto value = parse_json(text);
  EXPECT_TRUE(value.ok()) << value.error().reason;
  return value.ok() ? std::move(value).value() : JsonValue();
}

TEST(Json, ParsesPlainDocuments) {
  const JsonValue value = parsed(R"({"a": [1, -2, "x", true, null, {"b": {}}]})");
  EXPECT_EQ(value.at("a").size(), 6u);
  EXPECT_EQ(value.at("a")[1].get<std::int64_t>(), -2);
}

TEST(Json, RefusesDuplicateKeysNamingTheObject) {
  EXPECT_EQ(reason_of(parse_json(R"({"a": 1, "a": 2})")), "$: duplicate field \"a\"");
  EXPECT_EQ(reason_of(parse_json(R"({"x": [{"k": 1}, {"k": 1, "k": 1}]})")), "$.x[1]: duplicate field \"k\"");
  // Same key in sibling objects is fine.
  EXPECT_TRUE(parse_json(R"([{"k": 1}, {"k": 2}])").ok());
}

TEST(Json, RefusesDeepNestingAndNonJson) {
  EXPECT_TRUE(parse_json(std::string(32, '[') + std::string(32, ']')).ok());
  std::string deepest = "$";  // the 32nd array, which may not open a 33rd
  for (int i = 0; i < 31; ++i) deepest += "[0]";
  EXPECT_EQ(reason_of(parse_json(std::string(33, '[') + std::string(33, ']'))),
            deepest + ": nested more than 32 levels deep");
  EXPECT_EQ(reason_of(parse_json("")).rfind("not JSON: ", 0), 0u);
  EXPECT_EQ(reason_of(parse_json("{} x")).rfind("not JSON: ", 0), 0u);
  EXPECT_EQ(reason_of(parse_json("{\"a\": 1,}")).rfind("not JSON: ", 0), 0u);
  EXPECT_TRUE(parse_json("[1, 2]", 1).ok());
  EXPECT_EQ(reason_of(parse_json("[[1]]", 1)), "$: nested more than 1 levels deep");
}

TEST(Json, UnsignedIntegersAreExactAndInRange) {
  const JsonValue value = parsed(
      R"({"ok": 18446744073709551615, "zero": -0, "big": 18446744073709551616, "neg": -5, "frac": 2.5,
          "exp": 1e3, "whole": 1.0, "text": "7", "small": 300})");
  JsonView root(value);
  auto object = root.as_object();
  ASSERT_TRUE(object.ok());
  EXPECT_EQ(*object->u64("ok"), 18446744073709551615ull);
  EXPECT_EQ(*object->u64("zero"), 0u);
  EXPECT_EQ(reason_of(object->u64("big")),
            "$.big: value 18446744073709551616 is over the maximum 18446744073709551615");
  EXPECT_EQ(reason_of(object->u64("neg")), "$.neg: expected an unsigned integer, got -5");
  EXPECT_EQ(reason_of(object->u64("frac")), "$.frac: expected an unsigned integer, got 2.5");
  EXPECT_EQ(reason_of(object->u64("exp")), "$.exp: expected an unsigned integer, got 1e3");
  EXPECT_EQ(reason_of(object->u64("whole")), "$.whole: expected an unsigned integer, got 1.0");
  EXPECT_EQ(reason_of(object->u64("text")), "$.text: expected an unsigned integer, got the string \"7\"");
  EXPECT_EQ(reason_of(object->u64("small", 255)), "$.small: value 300 is over the maximum 255");
  EXPECT_EQ(reason_of(object->u64("absent")), "$: missing field \"absent\"");
}

TEST(Json, SignedIntegers) {
  const JsonValue value = parsed(R"([-9223372036854775808, 9223372036854775808, -9223372036854775809, 5, 0.5])");
  auto array = JsonView(value).as_array();
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(*(*array)[0].as_i64(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(reason_of((*array)[1].as_i64()),
            "$[1]: value 9223372036854775808 is outside -9223372036854775808 ..= 9223372036854775807");
  EXPECT_EQ(reason_of((*array)[2].as_i64()),
            "$[2]: value -9223372036854775809 is outside -9223372036854775808 ..= 9223372036854775807");
  EXPECT_EQ(reason_of((*array)[3].as_i64(0, 4)), "$[3]: value 5 is outside 0 ..= 4");
  EXPECT_EQ(reason_of((*array)[4].as_i64()), "$[4]: expected an integer, got 0.5");
}

TEST(Json, WrongTypesNameThePathAndWhatWasFound) {
  const JsonValue value = parsed(R"({"accounts": [{"amount": 1}, {"amount": 2}, {"amount": 3}, {"amount": "x"}],
      "flag": 1, "name": 5, "list": {}, "obj": [], "weird key": null})");
  JsonView root(value);
  auto object = root.as_object();
  ASSERT_TRUE(object.ok());
  auto accounts = object->array("accounts");
  ASSERT_TRUE(accounts.ok());
  auto fourth = (*accounts)[3].as_object();
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ(reason_of(fourth->u64("amount")),
            "$.accounts[3].amount: expected an unsigned integer, got the string \"x\"");
  EXPECT_EQ(reason_of(object->boolean("flag")), "$.flag: expected true or false, got 1");
  EXPECT_EQ(reason_of(object->string("name")), "$.name: expected a string, got 5");
  EXPECT_EQ(reason_of(object->array("list")), "$.list: expected an array, got an object");
  EXPECT_EQ(reason_of(object->object("obj")), "$.obj: expected an object, got an array");
  EXPECT_EQ(reason_of(object->string("weird key")), "$[\"weird key\"]: expected a string, got null");
  EXPECT_EQ(reason_of(JsonView(value).as_array()), "$: expected an array, got an object");
}

TEST(Json, UnknownFieldsAreRefusedUnlessReadOrIgnored) {
  const JsonValue value = parsed(R"({"a": 1, "b": 2, "comment": "x", "z": {"inner": 1, "extra": 2}})");
  auto object = JsonView(value).as_object();
  ASSERT_TRUE(object.ok());
  EXPECT_TRUE(object->u64("a").ok());
  EXPECT_EQ(reason_of(object->finish()), "$: unknown field \"b\"");
  EXPECT_TRUE(object->u64("b").ok());
  EXPECT_EQ(reason_of(object->finish()), "$: unknown field \"comment\"");
  object->ignore({"comment"});
  EXPECT_EQ(reason_of(object->finish()), "$: unknown field \"z\"");
  auto inner = object->object("z");
  ASSERT_TRUE(inner.ok());
  EXPECT_TRUE(object->finish().ok());
  EXPECT_TRUE(inner->u64("inner").ok());
  EXPECT_EQ(reason_of(inner->finish()), "$.z: unknown field \"extra\"");
  // An optional field that is absent reads nothing; present, it counts as read.
  EXPECT_FALSE(inner->optional_field("missing").has_value());
  ASSERT_TRUE(inner->optional_field("extra").has_value());
  EXPECT_TRUE(inner->finish().ok());
}

TEST(Json, Hex) {
  const JsonValue value = parsed(R"({"ok": "00ff", "upper": "00FF", "odd": "abc", "empty": "", "num": 5})");
  auto object = JsonView(value).as_object();
  ASSERT_TRUE(object.ok());
  EXPECT_EQ(*object->hex("ok"), (Bytes{0x00, 0xff}));
  EXPECT_EQ(reason_of(object->hex("ok", {.size = 3})), "$.ok: expected 6 hex digits, got 4");
  EXPECT_EQ(reason_of(object->hex("upper")),
            "$.upper: expected lower-case hex digits, found a character other than 0-9, a-f at offset 2");
  EXPECT_EQ(*object->hex("upper", {.lower_case = false}), (Bytes{0x00, 0xff}));
  EXPECT_EQ(reason_of(object->hex("odd")), "$.odd: an odd number of hex digits");
  EXPECT_EQ(reason_of(object->hex("empty")), "$.empty: empty");
  EXPECT_TRUE(object->hex("empty", {.allow_empty = true})->empty());
  EXPECT_EQ(reason_of(object->hex("num")), "$.num: expected a string of hex digits, got 5");
}

TEST(Json, MessagesShortenLongValues) {
  const std::string long_number(60, '9');
  const JsonValue value = parsed("{\"n\": " + long_number + ", \"s\": \"" + std::string(60, 'a') + "\"}");
  auto object = JsonView(value).as_object();
  ASSERT_TRUE(object.ok());
  EXPECT_EQ(reason_of(object->u64("n")),
            "$.n: value " + std::string(40, '9') + "... is over the maximum 18446744073709551615");
  EXPECT_EQ(reason_of(object->u64("s")),
            "$.s: expected an unsigned integer, got the string \"" + std::string(40, 'a') + "...\"");
}

}  // namespace
}  // namespace sion::base
