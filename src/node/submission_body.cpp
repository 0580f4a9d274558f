#include "sion/node/submission_body.hpp"

#include <fmt/format.h>

#include <utility>

#include "sion/base/json.hpp"
#include "sion/codec/reader.hpp"
#include "sion/codec/writer.hpp"
#include "sion/http/message.hpp"
#include "sion/wallet/tx_batch.hpp"

namespace sion::node {
namespace {

enum class Media { octet_stream, json, other };

// The media type of a Content-Type value, compared without case: before any
// parameters, without the white space RFC 9110 §8.3.1 allows around it
// ("application/json ; charset=utf-8").
Media media_of(const std::string* content_type) {
  std::string_view value = content_type == nullptr ? std::string_view() : std::string_view(*content_type);
  value = value.substr(0, value.find(';'));
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (http::iequals(value, "application/octet-stream")) return Media::octet_stream;
  if (http::iequals(value, "application/json")) return Media::json;
  return Media::other;
}

BodyRefusal bad_json(const base::Error& error) { return BodyRefusal{400, "bad_json", error.reason}; }

BodyRefusal bad_count(std::size_t count) {
  return BodyRefusal{
      400, "bad_request",
      fmt::format("a batch of {} transactions; a batch holds 1 to {}", count, wallet::kMaxBatchTransactions)};
}

// The JSON document's object with its one field `key` (nothing else), or why not.
std::variant<base::JsonView, BodyRefusal> only_field(const base::JsonValue& document, std::string_view key) {
  auto object = base::JsonView(document).as_object();
  if (!object) return bad_json(object.error());
  auto field = object->field(key);
  if (!field) return bad_json(field.error());
  if (auto finished = object->finish(); !finished) return bad_json(finished.error());
  return std::move(field).value();
}

std::variant<std::vector<BatchElement>, BodyRefusal> json_batch(std::string_view body) {
  auto document = base::parse_json(body);
  if (!document) return bad_json(document.error());
  auto field = only_field(*document, "transactions");
  if (auto* refused = std::get_if<BodyRefusal>(&field)) return std::move(*refused);
  auto array = std::get<base::JsonView>(field).as_array();
  if (!array) return bad_json(array.error());
  if (array->empty() || array->size() > wallet::kMaxBatchTransactions) return bad_count(array->size());
  std::vector<BatchElement> out(array->size());
  for (std::size_t i = 0; i < array->size(); ++i) {
    const base::JsonView element = (*array)[i];
    if (!element.value().is_string()) {
      return BodyRefusal{400, "bad_json",
                         element.invalid("expected a string of hex digits, got " + element.describe()).error.reason};
    }
    auto hex = element.as_hex();
    if (hex) {
      out[i].bytes = std::move(hex).value();
    } else {
      out[i].bad_hex = hex.error().reason;
    }
  }
  return out;
}

std::variant<std::vector<BatchElement>, BodyRefusal> octet_batch(std::string_view body) {
  codec::Reader reader(base::as_bytes(body), "TransactionBatch");
  // The count first: a batch too large is refused as the JSON form's is,
  // before any element is read.
  const std::size_t count = reader.length(codec::kMaxLength);
  if (reader.ok() && (count == 0 || count > wallet::kMaxBatchTransactions)) return bad_count(count);
  std::vector<BatchElement> out;
  if (reader.ok()) out.resize(count);
  for (std::size_t i = 0; i < count && reader.ok(); ++i) {
    const auto scope = reader.element(i);
    const base::ByteView bytes = reader.take(reader.length(codec::kMaxLength));
    out[i].bytes.assign(bytes.begin(), bytes.end());
  }
  if (auto finished = reader.finish(); !finished) return BodyRefusal{400, "bad_encoding", finished.error().reason};
  return out;
}

}  // namespace

std::variant<base::Bytes, BodyRefusal> submitted_bytes(const std::string* content_type, std::string_view body) {
  switch (media_of(content_type)) {
    case Media::octet_stream: return base::Bytes(body.begin(), body.end());
    case Media::json: {
      auto document = base::parse_json(body);
      if (!document) return bad_json(document.error());
      auto field = only_field(*document, "transaction");
      if (auto* refused = std::get_if<BodyRefusal>(&field)) return std::move(*refused);
      const base::JsonView& value = std::get<base::JsonView>(field);
      if (!value.value().is_string()) {
        return BodyRefusal{400, "bad_json",
                           value.invalid("expected a string of hex digits, got " + value.describe()).error.reason};
      }
      auto hex = value.as_hex();
      if (!hex) return BodyRefusal{400, "bad_hex", hex.error().reason};
      return std::move(hex).value();
    }
    case Media::other: break;
  }
  return BodyRefusal{415, "unsupported_media_type",
                     "send the transaction as application/octet-stream or as application/json "
                     "{\"transaction\": \"<hex>\"}"};
}

std::variant<std::vector<BatchElement>, BodyRefusal> submitted_batch(const std::string* content_type,
                                                                     std::string_view body) {
  switch (media_of(content_type)) {
    case Media::octet_stream: return octet_batch(body);
    case Media::json: return json_batch(body);
    case Media::other: break;
  }
  return BodyRefusal{415, "unsupported_media_type",
                     "send the batch as application/octet-stream (a canonical list of transaction encodings) or as "
                     "application/json {\"transactions\": [\"<hex>\", ...]}"};
}

}  // namespace sion::node
