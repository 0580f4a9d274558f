#include "sion/base/json.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace sion::base {
namespace {

// nlohmann's own messages start with "[json.exception.parse_error.101] ".
std::string without_json_tag(std::string text) {
  const auto end = text.find("] ");
  if (text.rfind("[json.exception.", 0) == 0 && end != std::string::npos) text.erase(0, end + 2);
  return text;
}

Failure invalid_at(std::string_view path, std::string_view why) {
  std::string reason;
  reason.reserve(path.size() + 2 + why.size());
  reason.append(path).append(": ").append(why);
  return fail(Errc::invalid_value, std::move(reason));
}

// A number json::parse could not hold exactly, kept as its source text in a
// binary value (which JSON text itself can never produce).
bool is_number_text(const JsonValue& value) { return value.is_binary(); }

std::string number_text(const JsonValue& value) {
  const auto& text = value.get_binary();
  constexpr std::size_t kShown = 40;
  if (text.size() <= kShown) return std::string(text.begin(), text.end());
  return std::string(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(kShown)) + "...";
}

// An integer beyond 64 bits: digits only, after an optional minus sign.
bool is_integer_text(const JsonValue& value) {
  const auto& text = value.get_binary();
  auto begin = text.begin();
  if (begin != text.end() && *begin == '-') ++begin;
  return begin != text.end() && std::all_of(begin, text.end(), [](std::uint8_t c) { return c >= '0' && c <= '9'; });
}

// Builds a DOM like json::parse, but (1) keeps every number that is not an
// integer nlohmann holds exactly as its source text (see is_number_text);
// (2) refuses duplicate keys; (3) bounds the nesting depth.
class DomBuilder {
 public:
  explicit DomBuilder(std::size_t max_depth) : max_depth_(max_depth) {}

  bool null() { return add(JsonValue(nullptr)); }
  bool boolean(bool value) { return add(JsonValue(value)); }
  bool number_integer(JsonValue::number_integer_t value) { return add(JsonValue(value)); }
  bool number_unsigned(JsonValue::number_unsigned_t value) { return add(JsonValue(value)); }
  bool number_float(JsonValue::number_float_t /*rounded*/, const JsonValue::string_t& text) {
    return add(JsonValue::binary(JsonValue::binary_t::container_type(text.begin(), text.end())));
  }
  bool string(JsonValue::string_t& value) { return add(JsonValue(std::move(value))); }
  bool binary(JsonValue::binary_t& /*value*/) { return stop("$", "binary values are not JSON"); }
  bool start_object(std::size_t /*size*/) { return open(JsonValue::object()); }
  bool key(JsonValue::string_t& name) {
    const Frame& top = stack_.back();
    if (top.value->contains(name)) return stop(top.path, "duplicate field " + json_quoted(name));
    key_ = std::move(name);
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*size*/) { return open(JsonValue::array()); }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/, const JsonValue::exception& error) {
    if (!error_) error_ = Error{Errc::invalid_value, "not JSON: " + without_json_tag(error.what())};
    return false;
  }

  JsonValue& root() { return root_; }
  const std::optional<Error>& error() const { return error_; }

 private:
  struct Frame {
    JsonValue* value;
    std::string path;
  };

  bool stop(std::string_view path, std::string_view why) {
    if (!error_) error_ = invalid_at(path, why).error;
    return false;
  }

  // Puts `value` where the parser is (the root, the next array item, or the
  // field of the last key) and returns it with its path. An enclosing
  // container gains nothing while a child is open, so pointers into it stay
  // valid for as long as they are on the stack.
  std::pair<JsonValue*, std::string> place(JsonValue&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return {&root_, "$"};
    }
    Frame& top = stack_.back();
    if (top.value->is_array()) {
      std::string path = json_item_path(top.path, top.value->size());
      top.value->push_back(std::move(value));
      return {&top.value->back(), std::move(path)};
    }
    JsonValue& slot = (*top.value)[key_];
    slot = std::move(value);
    return {&slot, json_member_path(top.path, key_)};
  }

  bool add(JsonValue&& value) {
    place(std::move(value));
    return true;
  }

  bool open(JsonValue&& container) {
    if (stack_.size() >= max_depth_) {
      return stop(stack_.back().path, "nested more than " + std::to_string(max_depth_) + " levels deep");
    }
    auto [value, path] = place(std::move(container));
    stack_.push_back({value, std::move(path)});
    return true;
  }

  std::size_t max_depth_;
  JsonValue root_;
  std::vector<Frame> stack_;
  std::string key_;
  std::optional<Error> error_;
};

bool is_identifier(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

}  // namespace

Result<JsonValue> parse_json(std::string_view text, std::size_t max_depth) {
  DomBuilder builder(max_depth);
  try {
    const bool parsed = JsonValue::sax_parse(text.begin(), text.end(), &builder);
    if (builder.error()) return fail(*builder.error());
    if (!parsed) return fail(Errc::invalid_value, "not JSON");
  } catch (const JsonValue::exception& e) {
    return fail(Errc::invalid_value, "not JSON: " + without_json_tag(e.what()));
  }
  return std::move(builder.root());
}

std::string json_quoted(std::string_view text) {
  constexpr std::size_t kShown = 40;
  std::string shown = JsonValue(std::string(text)).dump(-1, ' ', true, JsonValue::error_handler_t::replace);
  if (shown.size() > kShown + 2) shown = shown.substr(0, kShown + 1) + "...\"";
  return shown;
}

std::string json_member_path(std::string_view path, std::string_view key) {
  std::string out(path);
  if (is_identifier(key)) {
    out.push_back('.');
    out.append(key);
  } else {
    out.push_back('[');
    out.append(json_quoted(key));
    out.push_back(']');
  }
  return out;
}

std::string json_item_path(std::string_view path, std::size_t index) {
  std::string out(path);
  out.push_back('[');
  out.append(std::to_string(index));
  out.push_back(']');
  return out;
}

// ---- JsonView -----------------------------------------------------------------

Failure JsonView::invalid(std::string_view why) const { return invalid_at(path_, why); }

std::string JsonView::describe() const {
  const JsonValue& value = *value_;
  switch (value.type()) {
    case JsonValue::value_t::null: return "null";
    case JsonValue::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case JsonValue::value_t::number_integer: return std::to_string(value.get<std::int64_t>());
    case JsonValue::value_t::number_unsigned: return std::to_string(value.get<std::uint64_t>());
    case JsonValue::value_t::binary: return number_text(value);
    case JsonValue::value_t::string: return "the string " + json_quoted(value.get_ref<const std::string&>());
    case JsonValue::value_t::array: return "an array";
    case JsonValue::value_t::object: return "an object";
    default: return "an unknown value";
  }
}

Result<std::uint64_t> JsonView::as_u64(std::uint64_t max) const {
  const JsonValue& value = *value_;
  std::uint64_t number = 0;
  if (value.is_number_unsigned()) {
    number = value.get<std::uint64_t>();
  } else if (value.is_number_integer() && value.get<std::int64_t>() == 0) {
    number = 0;  // written "-0"
  } else if (is_number_text(value) && is_integer_text(value) && value.get_binary().front() != '-') {
    return invalid("value " + describe() + " is over the maximum " + std::to_string(max));
  } else {
    return invalid("expected an unsigned integer, got " + describe());
  }
  if (number > max) return invalid("value " + std::to_string(number) + " is over the maximum " + std::to_string(max));
  return number;
}

Result<std::int64_t> JsonView::as_i64(std::int64_t min, std::int64_t max) const {
  const JsonValue& value = *value_;
  const auto out_of_range = [&] {
    return invalid("value " + describe() + " is outside " + std::to_string(min) + " ..= " + std::to_string(max));
  };
  if (value.is_number_unsigned()) {
    const std::uint64_t number = value.get<std::uint64_t>();
    if (max < 0 || number > static_cast<std::uint64_t>(max)) return out_of_range();
    return static_cast<std::int64_t>(number);
  }
  if (value.is_number_integer()) {
    const std::int64_t number = value.get<std::int64_t>();
    if (number < min || number > max) return out_of_range();
    return number;
  }
  if (is_number_text(value) && is_integer_text(value)) return out_of_range();
  return invalid("expected an integer, got " + describe());
}

Result<bool> JsonView::as_bool() const {
  if (!value_->is_boolean()) return invalid("expected true or false, got " + describe());
  return value_->get<bool>();
}

Result<std::string> JsonView::as_string() const {
  if (!value_->is_string()) return invalid("expected a string, got " + describe());
  return value_->get_ref<const std::string&>();
}

Result<Bytes> JsonView::as_hex(const HexRule& rule) const {
  if (!value_->is_string()) return invalid("expected a string of hex digits, got " + describe());
  const std::string& text = value_->get_ref<const std::string&>();
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (!rule.lower_case && c >= 'A' && c <= 'F');
    if (!digit) {
      return invalid(std::string(rule.lower_case ? "expected lower-case hex digits, found a character other than "
                                                   "0-9, a-f at offset "
                                                 : "expected hex digits, found a character other than 0-9, a-f, "
                                                   "A-F at offset ") +
                     std::to_string(i));
    }
  }
  if (text.size() % 2 != 0) return invalid("an odd number of hex digits");
  if (rule.size != 0 && text.size() != 2 * rule.size) {
    return invalid("expected " + std::to_string(2 * rule.size) + " hex digits, got " + std::to_string(text.size()));
  }
  if (text.empty() && !rule.allow_empty) return invalid("empty");
  auto bytes = from_hex(text);
  if (!bytes) return invalid(bytes.error().reason);
  return std::move(bytes).value();
}

Result<JsonObject> JsonView::as_object() const {
  if (!value_->is_object()) return invalid("expected an object, got " + describe());
  return JsonObject(*value_, path_);
}

Result<JsonArray> JsonView::as_array() const {
  if (!value_->is_array()) return invalid("expected an array, got " + describe());
  return JsonArray(*value_, path_);
}

JsonView JsonArray::operator[](std::size_t index) const {
  return JsonView((*value_)[index], json_item_path(path_, index));
}

// ---- JsonObject ----------------------------------------------------------------

bool JsonObject::has(std::string_view key) const { return value_->contains(key); }

Result<JsonView> JsonObject::field(std::string_view key) {
  auto found = optional_field(key);
  if (!found) return invalid_at(path_, "missing field " + json_quoted(key));
  return std::move(*found);
}

std::optional<JsonView> JsonObject::optional_field(std::string_view key) {
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  read_.emplace(key);
  return JsonView(*it, json_member_path(path_, key));
}

void JsonObject::ignore(std::initializer_list<std::string_view> keys) {
  for (const std::string_view key : keys) read_.emplace(key);
}

Status JsonObject::finish() const {
  for (const auto& item : value_->items()) {
    if (read_.find(item.key()) == read_.end()) return invalid_at(path_, "unknown field " + json_quoted(item.key()));
  }
  return {};
}

Result<std::uint64_t> JsonObject::u64(std::string_view key, std::uint64_t max) {
  SION_TRY(const JsonView view, field(key));
  return view.as_u64(max);
}

Result<std::int64_t> JsonObject::i64(std::string_view key, std::int64_t min, std::int64_t max) {
  SION_TRY(const JsonView view, field(key));
  return view.as_i64(min, max);
}

Result<bool> JsonObject::boolean(std::string_view key) {
  SION_TRY(const JsonView view, field(key));
  return view.as_bool();
}

Result<std::string> JsonObject::string(std::string_view key) {
  SION_TRY(const JsonView view, field(key));
  return view.as_string();
}

Result<Bytes> JsonObject::hex(std::string_view key, const HexRule& rule) {
  SION_TRY(const JsonView view, field(key));
  return view.as_hex(rule);
}

Result<JsonObject> JsonObject::object(std::string_view key) {
  SION_TRY(const JsonView view, field(key));
  return view.as_object();
}

Result<JsonArray> JsonObject::array(std::string_view key) {
  SION_TRY(const JsonView view, field(key));
  return view.as_array();
}

}  // namespace sion::base
