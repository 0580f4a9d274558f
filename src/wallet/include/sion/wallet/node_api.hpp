#pragma once
// A typed client of the node's HTTP API (docs/api.md) over an HttpCall: each
// call sends its request and reads the reply with its parser in
// sion/wallet/api_replies.hpp (the strict reading and the checks that tie a
// reply to its request are described there).
//
// Errors name the route ("GET /v1/log/head: ..."). A reply with a 4xx or 5xx
// status is an error whose reason carries the status, the error code and the
// node's message: not_found for 404, io_error for 429 and 5xx (retry
// later), invalid_argument for other 4xx (this client asked wrongly) — except
// for submit(), where a refusal is an answer (Submission::refusal). A reply
// that breaks docs/api.md is invalid_value; a transport failure is whatever
// the HttpCall returned.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/json.hpp"
#include "sion/base/result.hpp"
#include "sion/wallet/api_replies.hpp"
#include "sion/wallet/http_call.hpp"

namespace sion::wallet {

class NodeApi {
 public:
  explicit NodeApi(HttpCall call) : call_(std::move(call)) {}

  // POST /v1/transactions with the canonical encoding (octet-stream). An
  // admitted transaction's tx_id must equal exec::tx_id(tx.payload).
  base::Result<Submission> submit(const exec::Transaction& tx);
  // The same for an encoding; the reply's tx_id is checked against
  // `expected_id` when given.
  base::Result<Submission> submit_encoded(base::ByteView encoding,
                                          const std::optional<exec::Id>& expected_id = std::nullopt);

  // POST /v1/transactions/batch with the encodings as one octet-stream body
  // (sion/wallet/tx_batch.hpp; 1 ..= kMaxBatchTransactions of them, else
  // invalid_argument): one Submission per encoding, in order. A refusal of
  // the whole request (a 4xx or 5xx status: busy, too large, ...) is every
  // item's refusal. When `expected_ids` is given (one per encoding), each
  // tx_id the node names must equal its own.
  base::Result<std::vector<Submission>> submit_batch(std::span<const base::ByteView> encodings,
                                                     std::span<const exec::Id> expected_ids = {});

  base::Result<TxState> tx_status(const exec::Id& id);
  base::Result<NodeStatus> status();
  base::Result<AccountInfo> account(const exec::Id& id);
  // GET /v1/agents/{id}: the node's view of an agent (informational: shown,
  // not verified); the reply must name `id`. not_found when no charter is
  // stored there.
  base::Result<base::JsonValue> agent_view(const exec::Id& id);
  // GET /v1/objects/{id}[?proof=true][&height=H]; the reply must name `id`
  // (and `height` when given) and carry a proof when asked for one.
  base::Result<ObjectReply> object(const exec::Id& id, bool with_proof = true,
                                   std::optional<std::uint64_t> height = std::nullopt);
  // GET /v1/pulses/{height}, or /v1/pulses/latest for nullopt.
  base::Result<PulseReply> pulse(std::optional<std::uint64_t> height);
  base::Result<AvailabilityReply> availability(std::uint64_t height);
  // The share proof at (row, column); the reply's row and column must be
  // those asked for (the proof's own coordinate is da::verify_share's).
  base::Result<da::ShareProof> share(std::uint64_t height, std::uint32_t row, std::uint32_t column);
  base::Result<LogHeadReply> log_head();
  // GET /v1/log/inclusion/{height}[?size=N]; height 0 is the genesis
  // header's entry.
  base::Result<InclusionReply> inclusion(std::uint64_t height, std::optional<std::uint64_t> size = std::nullopt);
  // GET /v1/log/consistency?from=A&to=B; the proof must repeat both sizes.
  base::Result<commit::ConsistencyProof> consistency(std::uint64_t from, std::uint64_t to);

 private:
  HttpCall call_;
};

}  // namespace sion::wallet
