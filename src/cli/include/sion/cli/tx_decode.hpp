#pragma once
// `sion tx decode FILE|HEX`: a transaction's encoding (docs/ledger.md,
// "Transactions") shown as JSON, with its id and the ids of the coins it may
// create, so that anyone can check a transaction by hand.

#include <cstdio>
#include <string>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::cli {

// The bytes `input` names: the file at that path if there is one (a file
// holding only hex digits and white space is read as hex, anything else as
// the raw encoding), else `input` itself as hex. invalid_argument, naming
// why, when neither works; io_error when the file cannot be read.
base::Result<base::Bytes> read_transaction_input(const std::string& input);

// The JSON description of an encoded transaction: tx_id, encoded size,
// every payload field, the key bundle (ids, schemes, key lengths and hex),
// the signature bundle's lengths, whether it verifies, and the coin ids it
// may create. Fails with the codec's error (naming the field) when `bytes`
// is not the canonical encoding of a Transaction.
base::Result<std::string> describe_transaction(base::ByteView bytes);

// Both, printed to `out`. Every error but io_error blames the input.
base::Status run_tx_decode(const std::string& input, std::FILE* out);

}  // namespace sion::cli
