// libFuzzer target: a node's HTTP replies as the wallet reads them
// (sion/wallet/api_replies.hpp, docs/api.md). The first byte picks the
// parser (its value modulo 14) and what was asked (the rest: a height given
// or "latest", a proof asked for or not); the other bytes are the reply's
// body. A parser gives a value or refuses with invalid_value and a reason,
// never crashes; a value it gives answers what was asked (the id, the
// height, the row and column, the log sizes) and keeps the rules its
// documentation states (an executed transaction has its receipt, a
// receipt names its transaction). Built with SION_FUZZ_CORPUS_TOOL, the same
// file writes the seed corpus: replies as a node renders them, taken from
// the wallet tests' fake node and from docs/api.md's shapes.

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "sion/wallet/api_replies.hpp"

namespace {

using namespace sion;

enum Kind : std::uint8_t {
  kError,
  kSubmission,
  kTxState,
  kTxEvent,
  kStatus,
  kAccount,
  kObject,
  kPulse,
  kAvailability,
  kShare,
  kLogHead,
  kInclusion,
  kConsistency,
  kBatchSubmission,
  kCertificateEvent,
  kKinds
};

// What the fuzzed replies answer: the seeds' requests.
commit::Hash byte_hash(std::uint8_t byte) {
  commit::Hash hash{};
  hash.fill(byte);
  return hash;
}
const exec::Id kTxId = byte_hash(0x1d);       // GET /v1/transactions/{id}
const exec::Id kAccountId = byte_hash(0xac);  // GET /v1/accounts/{id}
const exec::Id kObjectId = byte_hash(0x0b);   // GET /v1/objects/{id}
constexpr std::uint64_t kHeight = 1;          // the Pulse, its availability and shares, an inclusion proof
constexpr std::uint32_t kRow = 0;
constexpr std::uint32_t kColumn = 1;
constexpr std::uint64_t kLogSize = 3;  // after two Pulses: the genesis entry and theirs
constexpr std::uint64_t kFrom = 1;

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
#include "fake_node.hpp"
#include "sion/codec/testing/fuzzing.hpp"

namespace {

using wallet::testing::FakeNode;
using wallet::testing::Json;

// The first byte for `kind` asked as `variant` says.
std::uint8_t first_byte(Kind kind, std::uint8_t variant) { return static_cast<std::uint8_t>(kind + kKinds * variant); }

std::string receipt_json(const exec::Id& tx) {
  return Json{{"tx_id", base::to_hex(tx)}, {"status", "success"},
              {"status_code", 0},          {"fee_paid", 2'841},
              {"coins_created", 2},        {"coin_ids", {base::to_hex(byte_hash(0xc0)), base::to_hex(byte_hash(0xc1))}}}
      .dump();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  codec::testing::CorpusWriter corpus(argv[1], "reply");
  const auto write = [&](Kind kind, std::uint8_t variant, const std::string& body) {
    corpus.write(first_byte(kind, variant), base::as_bytes(body));
  };

  // The fake node's routes, with real headers, proofs and a signed head.
  FakeNode node;
  state::Object coin{1, 1, base::Bytes(40, 0x5c)};
  node.add_pulse(100, {{kObjectId, coin}});
  node.add_pulse(3'000, {});
  node.sign_head();
  const wallet::HttpCall call = node.call();
  const auto reply = [&](const std::string& path) {
    auto got = call("GET", path, {}, {});
    if (!got || got->status != 200) std::abort();
    return got->body;
  };
  const std::string object = "/v1/objects/" + base::to_hex(kObjectId);
  write(kObject, 2, reply(object + "?proof=true"));
  write(kObject, 3, reply(object + "?proof=true&height=1"));
  write(kObject, 0, reply("/v1/objects/" + base::to_hex(kObjectId) + "?height=2"));
  // At an older height the node leaves the object out (docs/api.md).
  auto older = Json::parse(reply(object + "?proof=true&height=1"));
  older.erase("object");
  write(kObject, 3, older.dump());
  const std::string pulse = "/v1/pulses/" + std::to_string(kHeight);
  write(kPulse, 1, reply(pulse));
  write(kPulse, 0, reply("/v1/pulses/latest"));
  write(kAvailability, 0, reply(pulse + "/availability"));
  write(kShare, 0, reply(pulse + "/shares/" + std::to_string(kRow) + "/" + std::to_string(kColumn)));
  write(kLogHead, 0, reply("/v1/log/head"));
  const std::string inclusion = "/v1/log/inclusion/" + std::to_string(kHeight);
  write(kInclusion, 1, reply(inclusion + "?size=" + std::to_string(kLogSize)));
  write(kInclusion, 0, reply(inclusion));
  write(kConsistency, 0,
        reply("/v1/log/consistency?from=" + std::to_string(kFrom) + "&to=" + std::to_string(kLogSize)));
  write(kStatus, 0, reply("/v1/status"));

  // The routes the fake node leaves out, in the node's shapes (docs/api.md;
  // src/node/api.cpp and json_views.cpp render them).
  write(kError, 0, R"({"error":{"code":"not_found","message":"no route for /v1/nothing"}})");
  write(kError, 0, R"({"error":{"code":"bad_hex","message":"id: expected 64 lower-case hex digits","extra":1}})");
  write(kError, 0, "<html><body>502 Bad Gateway</body></html>");
  write(kSubmission, 0, Json{{"tx_id", base::to_hex(kTxId)}, {"status", "pending"}}.dump());
  write(kSubmission, 0, Json{{"tx_id", base::to_hex(kTxId)}, {"status", "evicted"}}.dump());
  const Json pending{{"tx_id", base::to_hex(kTxId)}, {"status", "pending"}};
  const Json held{{"tx_id", base::to_hex(byte_hash(0x2d))}, {"status", "held"}};
  const Json bad_signature{{"tx_id", base::to_hex(byte_hash(0x3d))},
                           {"error", {{"code", "bad_signature"}, {"message", "the signature bundle does not verify"}}}};
  const Json bad_hex{{"error", {{"code", "bad_hex"}, {"message", "$.transactions[2]: odd length"}}}};
  write(kBatchSubmission, 0, Json{{"results", {pending, held, bad_signature}}}.dump());
  write(kBatchSubmission, 0, Json{{"results", {pending, bad_hex, bad_hex}}}.dump());
  write(kCertificateEvent, 0, R"({"height":12})");
  write(kCertificateEvent, 0, R"({"height":-1})");
  write(kBatchSubmission, 0, Json{{"results", {pending, held}}}.dump());
  write(kBatchSubmission, 0,
        Json{{"results", {pending, held, Json{{"tx_id", nullptr}, {"error", bad_hex["error"]}}}}}.dump());
  const std::string executed = R"({"tx_id":")" + base::to_hex(kTxId) +
                               R"(","status":"executed","height":4,"index":2,)" + R"("pulse_hash":")" +
                               base::to_hex(byte_hash(0x99)) + R"(","receipt":)" + receipt_json(kTxId) + "}";
  write(kTxState, 0, executed);
  write(kTxState, 0, Json{{"tx_id", base::to_hex(kTxId)}, {"status", "pending"}}.dump());
  write(kTxState, 0,
        Json{{"tx_id", base::to_hex(kTxId)}, {"status", "replaced"}, {"reason", "replaced"}, {"height", 3}}.dump());
  write(kTxState, 0, Json{{"tx_id", base::to_hex(kTxId)}, {"status", "executed"}, {"height", 4}}.dump());
  write(kTxEvent, 0,
        R"({"tx_id":")" + base::to_hex(kTxId) + R"(","status":"executed","height":4,"index":2,"receipt":)" +
            receipt_json(kTxId) + "}");
  write(kTxEvent, 0, Json{{"tx_id", base::to_hex(kTxId)}, {"status", "dropped"}, {"reason", "inputs_spent"}}.dump());
  write(kTxEvent, 0,
        R"({"tx_id":")" + base::to_hex(kTxId) + R"(","status":"executed","receipt":)" + receipt_json(byte_hash(0x1e)) +
            "}");
  write(kAccount, 0,
        Json{{"id", base::to_hex(kAccountId)},
             {"height", 4},
             {"exists", true},
             {"nonce", 3},
             {"keys_id", base::to_hex(byte_hash(0x4b))},
             {"coins", {{{"id", base::to_hex(byte_hash(0xc0))}, {"amount", 1'000}}}},
             {"balance", 1'000}}
            .dump());
  write(kAccount, 0,
        Json{{"id", base::to_hex(kAccountId)},
             {"height", 0},
             {"exists", false},
             {"nonce", 0},
             {"keys_id", nullptr},
             {"coins", Json::array()},
             {"balance", 0}}
            .dump());

  // The seeds meant to be valid are: a parser that refuses one has drifted
  // from the shapes the node sends.
  const auto ok = [](const auto& result) { return result.ok(); };
  const bool valid =
      ok(wallet::parse_pulse_reply(reply(pulse), kHeight)) &&
      ok(wallet::parse_object_reply(older.dump(), kObjectId, true, kHeight)) &&
      ok(wallet::parse_share_reply(reply(pulse + "/shares/" + std::to_string(kRow) + "/" + std::to_string(kColumn)),
                                   kRow, kColumn)) &&
      ok(wallet::parse_log_head_reply(reply("/v1/log/head"))) &&
      ok(wallet::parse_inclusion_reply(reply(inclusion + "?size=" + std::to_string(kLogSize)), kHeight, kLogSize)) &&
      ok(wallet::parse_status_reply(reply("/v1/status"))) && ok(wallet::parse_tx_state_reply(executed, kTxId));
  return valid ? 0 : 1;
}

#else

namespace {

constexpr std::size_t kBatchCount = 3;  // POST /v1/transactions/batch with three transactions (the seeds' count)

// What was asked, from the first byte's quotient: bit 0 a height given
// (else latest or the default size), bit 1 a proof asked for.
struct Asked {
  std::optional<std::uint64_t> height;
  bool proof = false;
  std::optional<std::uint64_t> size;
};
Asked asked(std::uint8_t variant) {
  Asked out;
  if ((variant & 1) != 0) {
    out.height = kHeight;
    out.size = kLogSize;
  }
  out.proof = (variant & 2) != 0;
  return out;
}

// A refusal: invalid_value, with a reason.
template <class T>
bool refused(const base::Result<T>& result) {
  if (result) return false;
  if (result.error().code != base::Errc::invalid_value || result.error().reason.empty()) std::abort();
  return true;
}

void check_tx_state(const wallet::TxState& state, const exec::Id& tx, bool needs_pulse_hash) {
  if (state.receipt && state.receipt->tx_id != tx) std::abort();
  if (state.executed() && (!state.height || !state.index || !state.receipt)) std::abort();
  if (state.executed() && needs_pulse_hash && !state.pulse_hash) std::abort();
}

void fuzz_one(Kind kind, const Asked& ask, std::string_view body) {
  switch (kind) {
    case kError: {
      const wallet::ApiError error = wallet::parse_api_error(400, "application/json", body);
      if (error.status != 400 || error.to_string().empty()) std::abort();
      // Not the documented body: kept as the message, cut short.
      if (error.code.empty() && (error.message.size() > 203 || body.substr(0, 200) != error.message.substr(0, 200))) {
        std::abort();
      }
      // Only JSON carries a code.
      if (!wallet::parse_api_error(400, "text/html", body).code.empty()) std::abort();
      break;
    }
    case kSubmission: {
      auto got = wallet::parse_submission_reply(body);
      if (!refused(got) && !got->admitted()) std::abort();
      break;
    }
    case kTxState: {
      auto got = wallet::parse_tx_state_reply(body, kTxId);
      if (!refused(got)) check_tx_state(*got, kTxId, true);
      break;
    }
    case kTxEvent: {
      auto got = wallet::parse_tx_event_reply(body);
      if (!refused(got)) check_tx_state(got->state, got->tx_id, false);
      break;
    }
    case kStatus: {
      auto got = wallet::parse_status_reply(body);
      if (!refused(got) && got->params.chain_id != got->chain_id) std::abort();
      break;
    }
    case kAccount: {
      auto got = wallet::parse_account_reply(body, kAccountId);
      if (!refused(got) && got->id != kAccountId) std::abort();
      break;
    }
    case kObject: {
      auto got = wallet::parse_object_reply(body, kObjectId, ask.proof, ask.height);
      if (refused(got)) break;
      if (got->id != kObjectId || (ask.height && got->height != *ask.height)) std::abort();
      // A proof when asked for one, and whenever it is all that says what the object is.
      if ((ask.proof || !got->object_served) && !got->proof) std::abort();
      if (got->object && (!got->object_served || got->object->data.size() > state::kMaxObjectBytes)) std::abort();
      break;
    }
    case kPulse: {
      auto got = wallet::parse_pulse_reply(body, ask.height);
      if (refused(got)) break;
      if (got->header.height != got->height || (ask.height && got->height != *ask.height)) std::abort();
      break;
    }
    case kAvailability: {
      auto got = wallet::parse_availability_reply(body, kHeight);
      if (!refused(got) && got->height != kHeight) std::abort();
      break;
    }
    case kShare: {
      static_cast<void>(refused(wallet::parse_share_reply(body, kRow, kColumn)));
      break;
    }
    case kLogHead: {
      static_cast<void>(refused(wallet::parse_log_head_reply(body)));
      break;
    }
    case kInclusion: {
      auto got = wallet::parse_inclusion_reply(body, kHeight, ask.size);
      if (refused(got)) break;
      if (got->height != kHeight || got->proof.leaf_index != kHeight || got->proof.tree_size != got->size ||
          (ask.size && got->size != *ask.size)) {
        std::abort();
      }
      break;
    }
    case kConsistency: {
      auto got = wallet::parse_consistency_reply(body, kFrom, kLogSize);
      if (!refused(got) && (got->first_size != kFrom || got->second_size != kLogSize)) std::abort();
      break;
    }
    case kCertificateEvent: {
      // A height, or an invalid_value error with a reason.
      (void)refused(wallet::parse_certificate_event(body));
      break;
    }
    case kBatchSubmission: {
      auto got = wallet::parse_batch_submission_reply(body, kBatchCount);
      if (refused(got)) break;
      if (got->size() != kBatchCount) std::abort();
      for (const wallet::Submission& item : *got) {
        if (item.refusal && item.refusal->code.empty()) std::abort();
      }
      break;
    }
    case kKinds: break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  fuzz_one(static_cast<Kind>(data[0] % kKinds), asked(static_cast<std::uint8_t>(data[0] / kKinds)), body);
  return 0;
}

#endif
