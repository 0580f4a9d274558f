#pragma once
// A typed client of the node's HTTP API (docs/api.md) over an HttpCall.
//
// Every reply is read with the strict JSON reader (sion/base/json.hpp): the
// fields this client uses must be present, of their type, ids and hashes
// exactly 32 bytes of lower-case hex, and every `*_hex` encoding must decode
// with the codec to exactly one value of its type (no trailing bytes).
//
// Unknown fields: refused in the replies a client verifies, whose shape
// docs/api.md fixes completely (a Pulse and its header, availability, a
// share, an object and its proof, the log head, inclusion and consistency
// proofs, a submission, an error body): a field there that this client does
// not know means the node speaks another version of the format, and the
// bytes it would check could mean something else. Ignored in the
// informational replies (status, account, transaction status and its
// receipt), which a node may extend and which nothing verifies.
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
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/commit/merkle_log.hpp"
#include "sion/commit/smt_proof.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/sampling.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/state/object_store.hpp"
#include "sion/wallet/http_call.hpp"

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
  std::optional<state::Object> object;      // nullopt: absent
  std::optional<commit::StateProof> proof;  // when asked for
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

  base::Result<TxState> tx_status(const exec::Id& id);
  base::Result<NodeStatus> status();
  base::Result<AccountInfo> account(const exec::Id& id);
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
