#pragma once
// The node's replies (docs/api.md) read into typed values: one function per
// route, from the body of a reply that has the route's success status and a
// JSON content type, and what was asked (an id, a height, a row and column,
// log sizes), since a reply must be the answer to its request. NodeApi
// fetches and calls these; an event stream's reader calls
// parse_tx_event_reply; a fuzzer calls them all.
//
// Every reply is read with the strict JSON reader (sion/base/json.hpp): the
// fields used must be present, of their type, ids and hashes exactly 32
// bytes of lower-case hex, and every `*_hex` encoding must decode with the
// codec to exactly one value of its type (no trailing bytes).
//
// Unknown fields: refused in the replies a client verifies, whose shape
// docs/api.md fixes completely (a Pulse and its header, availability, a
// share, an object and its proof, the log head, inclusion and consistency
// proofs, a submission, an error body): a field there that this client does
// not know means the node speaks another version of the format, and the
// bytes it would check could mean something else. Ignored in the
// informational replies (status, account, transaction status and its
// receipt, a transaction event), which a node may extend and which nothing
// verifies.
//
// Errors are invalid_value, the reason starting with the JSON path of what
// was wrong ("$.header.height: ..."); the caller adds the route.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/commit/merkle_log.hpp"
#include "sion/commit/smt_proof.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/sampling.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/state/object_store.hpp"

namespace sion::wallet {

// The error body {"error": {"code", "message"}} with the reply's status.
struct ApiError {
  unsigned status = 0;
  std::string code;     // stable: programs branch on it (docs/api.md)
  std::string message;  // for people
  // "<status> <code>: <message>".
  std::string to_string() const;
};

// What POST /v1/transactions answered.
struct Submission {
  exec::Id tx_id{};                 // admitted: the id the node computed (checked against ours)
  bool held = false;                // admitted with status "held" (its nonce is ahead)
  std::optional<ApiError> refusal;  // refused (4xx/5xx): why
  bool admitted() const noexcept { return !refusal.has_value(); }
};

// receipt of an executed transaction (docs/api.md, GET /v1/transactions/{id}).
struct ReceiptInfo {
  exec::Id tx_id{};
  std::string status;  // "success" or the TxStatus name
  std::uint64_t status_code = 0;
  exec::Amount fee_paid = 0;
  std::uint64_t coins_created = 0;
  std::vector<exec::Id> coin_ids;
};

struct TxState {
  std::string status;                   // pending, held, executed, evicted, expired, replaced, dropped
  std::optional<std::uint64_t> height;  // executed
  std::optional<std::uint64_t> index;   // executed
  std::optional<commit::Hash> pulse_hash;
  std::optional<ReceiptInfo> receipt;
  std::optional<std::string> reason;    // removed from the mempool
  std::optional<exec::Id> replaced_by;  // replaced
  bool executed() const noexcept { return status == "executed"; }
};

// A `transaction` event of GET /v1/events (docs/api.md, "Events"): an
// executed transaction (height, index and receipt), or one the mempool
// removed (reason).
struct TxEvent {
  exec::Id tx_id{};
  TxState state;  // without pulse_hash, which events do not carry
};

struct NodeStatus {
  std::uint64_t chain_id = 0;
  std::uint64_t height = 0;
  std::optional<commit::Hash> pulse_hash;  // none (null) at height 0
  commit::Hash state_root{};
  commit::Hash genesis_state_root{};
  std::string validator;
  bool producing = false;
  std::optional<std::string> error;
  std::uint64_t mempool_transactions = 0;
  std::uint64_t mempool_bytes = 0;
  std::uint64_t mempool_held = 0;
  exec::ChainParams params;  // what a wallet computes fees with
  std::string version;
  std::uint64_t uptime_s = 0;
};

struct CoinInfo {
  exec::Id id{};
  exec::Amount amount = 0;
};

struct AccountInfo {
  exec::Id id{};
  std::uint64_t height = 0;
  bool exists = false;
  std::uint64_t nonce = 0;
  std::optional<commit::Hash> keys_id;  // null for an account that does not exist
  std::vector<CoinInfo> coins;
  exec::Amount balance = 0;
};

struct ObjectReply {
  exec::Id id{};
  std::uint64_t height = 0;
  commit::Hash state_root{};
  // False at an older height, whose object bytes the node no longer keeps
  // (docs/api.md): the reply then has no `object`, and its proof alone
  // says what the object was (present with the leaf's value hash, or
  // absent).
  bool object_served = true;
  std::optional<state::Object> object;      // nullopt: absent (or not served)
  std::optional<commit::StateProof> proof;  // when asked for, and always when the object is not served
};

// GET /v1/pulses/{height}: the header decoded from header_hex (exactly one
// exec::PulseHeader encoding), whose JSON `header` fields must equal it
// field by field (a node whose JSON disagrees with its bytes is refused),
// and whose height must be the reply's.
struct PulseReply {
  std::uint64_t height = 0;
  commit::Hash hash{};  // the node's claim of exec::pulse_hash(header), checked by a light client
  exec::PulseHeader header;
  std::vector<exec::Id> transactions;
};

struct AvailabilityReply {
  std::uint64_t height = 0;
  da::DataCommitment data;
  da::AvailabilityHeader availability;
};

struct LogHeadReply {
  commit::TreeHead head;              // decoded from head_hex, equal to size and root
  crypto::SignatureBundle signature;  // decoded from signature_hex
  exec::Id signer{};                  // the signing validator's id, account_id(its keys)
};

// GET /v1/log/inclusion/{height}: entry `height` of the header log (entry
// h is Pulse h's header, entry 0 the genesis header; docs/api.md, "The
// header log").
struct InclusionReply {
  std::uint64_t height = 0;
  std::uint64_t size = 0;        // the tree the proof is in (= proof.tree_size)
  commit::Hash pulse_hash{};     // the node's entry `height`: a header's pulse_hash
  commit::InclusionProof proof;  // leaf_index = height, tree_size = size (as asked)
};

// "application/json", in any case, optionally with parameters ("; charset=utf-8").
bool is_json_content_type(std::string_view content_type) noexcept;

// The error body of a 4xx/5xx reply. Never fails: a body that is not the
// documented one (a proxy's page, say) is kept, cut to 200 characters, as
// the message, with no code.
ApiError parse_api_error(unsigned status, std::string_view content_type, std::string_view body);

// POST /v1/transactions, 202: {"tx_id", "status": "pending" | "held"}.
base::Result<Submission> parse_submission_reply(std::string_view body);
// POST /v1/transactions/batch, 200: {"results": [...]} with exactly `count`
// items in request order, each {"tx_id", "status": "pending" | "held"} or
// {"tx_id"? , "error": {"code", "message"}}. A refused item's ApiError has
// the reply's status (200): the batch answers each item in its body.
base::Result<std::vector<Submission>> parse_batch_submission_reply(std::string_view body, std::size_t count);
// GET /v1/transactions/{id}: a receipt must name `id`; an executed
// transaction needs height, index, pulse_hash and receipt.
base::Result<TxState> parse_tx_state_reply(std::string_view body, const exec::Id& id);
// The data of a `transaction` event; an executed one needs height, index and
// a receipt naming the event's tx_id.
base::Result<TxEvent> parse_tx_event_reply(std::string_view data);
// The data of a `certificate` event, {"height": h}: the height.
base::Result<std::uint64_t> parse_certificate_event(std::string_view data);
// GET /v1/status: params.chain_id must equal chain_id.
base::Result<NodeStatus> parse_status_reply(std::string_view body);
// GET /v1/accounts/{id}: the reply must name `id`.
base::Result<AccountInfo> parse_account_reply(std::string_view body, const exec::Id& id);
// GET /v1/objects/{id}[?proof=true][&height=H]: the reply must name `id`
// (and `height` when given) and carry a proof when asked for one or when it
// leaves the object out.
base::Result<ObjectReply> parse_object_reply(std::string_view body, const exec::Id& id, bool with_proof,
                                             std::optional<std::uint64_t> height);
// GET /v1/pulses/{height} (nullopt: /v1/pulses/latest).
base::Result<PulseReply> parse_pulse_reply(std::string_view body, std::optional<std::uint64_t> height);
base::Result<AvailabilityReply> parse_availability_reply(std::string_view body, std::uint64_t height);
// GET /v1/pulses/{height}/shares/{row}/{col}: the reply's row and column
// must be those asked for (the proof's own coordinate is da::verify_share's).
base::Result<da::ShareProof> parse_share_reply(std::string_view body, std::uint32_t row, std::uint32_t column);
// GET /v1/log/head: head_hex must be the head of size and root.
base::Result<LogHeadReply> parse_log_head_reply(std::string_view body);
// GET /v1/log/inclusion/{height}[?size=N]: the proof must be of entry
// `height` in the tree of the reply's size (N when given).
base::Result<InclusionReply> parse_inclusion_reply(std::string_view body, std::uint64_t height,
                                                   std::optional<std::uint64_t> size);
// GET /v1/log/consistency?from=A&to=B: the proof must repeat both sizes.
base::Result<commit::ConsistencyProof> parse_consistency_reply(std::string_view body, std::uint64_t from,
                                                               std::uint64_t to);

}  // namespace sion::wallet
