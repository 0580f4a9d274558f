#pragma once
// The bodies of POST /v1/transactions and POST /v1/transactions/batch
// (docs/api.md) read into transaction bytes before anything is decoded:
// what the content type says, the JSON's shape, the hex, the batch's
// framing. Free functions of the request's Content-Type and body, so a
// fuzzer reaches them without a node.

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sion/base/bytes.hpp"

namespace sion::node {

// Why a body was refused whole: the status and stable error code the route
// answers, and the message.
struct BodyRefusal {
  unsigned status = 400;
  std::string_view code;
  std::string message;
};

// POST /v1/transactions: the transaction's bytes. For JSON, everything about
// the document's shape (not JSON, not an object, a missing or unknown field,
// a value that is not a string) is bad_json; a string that is not lower-case
// hex of at least one byte is bad_hex. `content_type` is the field's value
// (nullptr when absent).
std::variant<base::Bytes, BodyRefusal> submitted_bytes(const std::string* content_type, std::string_view body);

// One element of a batch: its bytes, or why it has none (bad_hex: its JSON
// string is not lower-case hex of at least one byte). Decoding the bytes as
// a transaction is the caller's.
struct BatchElement {
  base::Bytes bytes;
  std::string bad_hex;  // non-empty: the element is refused with this reason
};

// POST /v1/transactions/batch: the elements in request order. JSON
// {"transactions": ["<hex>", ...]} (a shape error, an element included, is
// bad_json) or octet-stream wallet::TxBatchBody (broken framing or trailing
// bytes are bad_encoding); no element or more than
// wallet::kMaxBatchTransactions is bad_request naming the count and limit.
std::variant<std::vector<BatchElement>, BodyRefusal> submitted_batch(const std::string* content_type,
                                                                     std::string_view body);

}  // namespace sion::node
