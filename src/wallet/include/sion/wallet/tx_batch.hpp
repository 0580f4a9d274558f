#pragma once
// The octet-stream body of POST /v1/transactions/batch (docs/api.md):
// the canonical encoding (docs/codec.md) of list<bytes<=2^32 - 1, 256>, each
// element one transaction's canonical encoding. Elements are byte strings,
// not decoded transactions, so the node answers an element that does not
// decode on its own (bad_encoding in its result) while a body whose framing
// is broken is refused whole.

#include <cstddef>
#include <span>

#include "sion/base/bytes.hpp"
#include "sion/codec/codec.hpp"

namespace sion::wallet {

// The most transactions one batch request carries; more, or none, is refused
// with 400 bad_request.
inline constexpr std::size_t kMaxBatchTransactions = 256;

using TxBatchBody = codec::List<codec::VarBytes<codec::kMaxLength>, kMaxBatchTransactions>;

// The body for these encodings. Precondition: at most kMaxBatchTransactions.
base::Bytes encode_tx_batch(std::span<const base::ByteView> encodings);

}  // namespace sion::wallet
