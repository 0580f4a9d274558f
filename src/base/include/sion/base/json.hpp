#pragma once
// Strict JSON reading (RFC 8259) for everything that arrives as JSON: genesis
// and key files, test-vector files, and the node's configuration and API.
//
// parse_json() builds a DOM (nlohmann::json) but refuses what json::parse would
// quietly resolve: a key twice in one object (RFC 8259 §4 leaves it to the
// reader; we refuse it so that two readers cannot see two different
// documents), and nesting deeper than a limit. A number that is not an integer
// a 64-bit word holds exactly (a fraction, an exponent, an integer past 64
// bits) is never rounded into a double: it is kept as its source text, so a
// reader asking for an integer refuses it and quotes it as written.
//
// JsonView, JsonObject and JsonArray read typed values out of the DOM. Every
// error is Errc::invalid_value and starts with the JSON path of what was wrong,
// "$.accounts[3].coins[0]: expected an unsigned integer, got -5". A JsonObject
// records which fields were read: finish() refuses any other field ("unknown
// field"), unless the caller declared it with ignore().

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::base {

using JsonValue = nlohmann::json;

inline constexpr std::size_t kDefaultJsonDepth = 32;

// Parses a whole JSON text (nothing may follow the value but white space).
// Errors: "not JSON: <where and why>", "<path>: duplicate field \"k\"",
// "<path>: nested more than <max_depth> levels deep".
Result<JsonValue> parse_json(std::string_view text, std::size_t max_depth = kDefaultJsonDepth);

// A string as JSON writes it, cut after 40 characters (for messages).
std::string json_quoted(std::string_view text);

// `path` + ".key", or + "[\"key\"]" when the key is not a plain identifier.
std::string json_member_path(std::string_view path, std::string_view key);
// `path` + "[index]".
std::string json_item_path(std::string_view path, std::size_t index);

// How a hex string must be written.
struct HexRule {
  std::size_t size = 0;    // bytes it must decode to; 0: any
  bool lower_case = true;  // only 0-9 a-f (the one form Sion writes)
  bool allow_empty = false;
};

class JsonObject;
class JsonArray;

// A value of the DOM and its path; reads it as one type or fails naming both.
class JsonView {
 public:
  explicit JsonView(const JsonValue& value, std::string path = "$") : value_(&value), path_(std::move(path)) {}

  const JsonValue& value() const noexcept { return *value_; }
  const std::string& path() const noexcept { return path_; }
  bool is_null() const noexcept { return value_->is_null(); }

  // invalid_value, "<path>: <why>".
  Failure invalid(std::string_view why) const;
  // The value for a message: "5", "1e3", "null", "the string \"x\"", "an array".
  std::string describe() const;

  // An integer written without fraction or exponent, in 0 ..= max.
  Result<std::uint64_t> as_u64(std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  // An integer written without fraction or exponent, in min ..= max.
  Result<std::int64_t> as_i64(std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                              std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  Result<bool> as_bool() const;
  Result<std::string> as_string() const;
  // A string of hex digits as `rule` says, decoded.
  Result<Bytes> as_hex(const HexRule& rule = {}) const;
  Result<JsonObject> as_object() const;
  Result<JsonArray> as_array() const;

 private:
  const JsonValue* value_;
  std::string path_;
};

class JsonArray {
 public:
  JsonArray(const JsonValue& value, std::string path) : value_(&value), path_(std::move(path)) {}
  std::size_t size() const noexcept { return value_->size(); }
  bool empty() const noexcept { return value_->empty(); }
  // Item i (< size()), its path "<path>[i]".
  JsonView operator[](std::size_t index) const;
  const std::string& path() const noexcept { return path_; }

 private:
  const JsonValue* value_;
  std::string path_;
};

// An object whose fields are read one by one; finish() then refuses the
// fields nobody read or declared.
class JsonObject {
 public:
  JsonObject(const JsonValue& value, std::string path) : value_(&value), path_(std::move(path)) {}

  const std::string& path() const noexcept { return path_; }
  // Whether the field is present (null counts as present); reads nothing.
  bool has(std::string_view key) const;

  // A required field: "<path>: missing field \"key\"" when absent.
  Result<JsonView> field(std::string_view key);
  // An optional field: nullopt when absent.
  std::optional<JsonView> optional_field(std::string_view key);
  // Fields the caller knows and leaves unread (e.g. comments in a vector file).
  void ignore(std::initializer_list<std::string_view> keys);
  // "<path>: unknown field \"k\"" for the first field (in key order) that was
  // neither read nor ignored.
  Status finish() const;

  // field(key) read as one type.
  Result<std::uint64_t> u64(std::string_view key, std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
  Result<std::int64_t> i64(std::string_view key, std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                           std::int64_t max = std::numeric_limits<std::int64_t>::max());
  Result<bool> boolean(std::string_view key);
  Result<std::string> string(std::string_view key);
  Result<Bytes> hex(std::string_view key, const HexRule& rule = {});
  Result<JsonObject> object(std::string_view key);
  Result<JsonArray> array(std::string_view key);

 private:
  const JsonValue* value_;
  std::string path_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace sion::base
