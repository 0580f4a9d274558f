#pragma once
// The consensus messages and their canonical encodings (docs/consensus.md,
// "Messages"). Every message travels as one transport frame holding the
// encoding of a `Message`; its hashes and signed bodies are defined here so
// that the core, the node and the simulator agree byte for byte.

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <variant>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/merkle_log.hpp"
#include "sion/crypto/bundle.hpp"

namespace sion::consensus {

using Hash = commit::Hash;
using ValidatorIndex = std::uint32_t;
using Round = std::uint64_t;
using Height = std::uint64_t;
using Signature = crypto::SignatureBundle;

inline constexpr std::size_t kMaxValidators = 256;
inline constexpr std::size_t kMaxBatchPayloadBytes = 4 * 1024 * 1024;
inline constexpr std::size_t kMaxApprovalsPerSheet = 4096;
inline constexpr std::size_t kMaxRequestItems = 256;

// What a signature covers; the first byte of every signed body, so that a
// signature of one kind can never be replayed as another.
enum class SignedKind : std::uint8_t {
  proposal = 1,
  vote = 2,
  timeout = 3,
  approvals = 4,
  pulse_vote = 5,
};
inline constexpr SignedKind kAllSignedKinds[] = {SignedKind::proposal, SignedKind::vote, SignedKind::timeout,
                                                 SignedKind::approvals, SignedKind::pulse_vote};
constexpr std::span<const SignedKind> codec_enum_values(SignedKind) { return kAllSignedKinds; }
std::string_view signed_kind_name(SignedKind kind) noexcept;

// ---- Lanes ---------------------------------------------------------------

// A batch of one validator's lane: its author's seq-th batch (from 1),
// chained to the previous one by `parent` (the zero hash for seq 1).
struct BatchHeader {
  ValidatorIndex author = 0;
  std::uint64_t seq = 0;
  Hash parent{};
  Hash payload_hash{};  // tagged_hash(batch_payload, payload)
  std::uint32_t payload_bytes = 0;
  std::uint32_t item_count = 0;

  static constexpr std::string_view codec_name = "BatchHeader";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("author", &BatchHeader::author),
                      codec::field("seq", &BatchHeader::seq),
                      codec::field("parent", &BatchHeader::parent),
                      codec::field("payload_hash", &BatchHeader::payload_hash),
                      codec::field("payload_bytes", &BatchHeader::payload_bytes),
                      codec::field("item_count", &BatchHeader::item_count)};
  }
  bool operator==(const BatchHeader&) const = default;
};

struct Batch {
  BatchHeader header;
  codec::VarBytes<kMaxBatchPayloadBytes> payload;  // opaque to consensus: the node's transactions

  static constexpr std::string_view codec_name = "Batch";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("header", &Batch::header), codec::field("payload", &Batch::payload)};
  }
  bool operator==(const Batch&) const = default;
};

// One approver's signed statement that it holds a batch, as it appears in a
// certificate: the batch digest is leaf `inclusion.leaf_index` of the
// approver's sheet (a batch root over the digests it approved at once), and
// `signature` covers the sheet (approver, size, root).
struct ApprovalProof {
  ValidatorIndex approver = 0;
  Hash root{};
  commit::InclusionProof inclusion;
  Signature signature;

  static constexpr std::string_view codec_name = "ApprovalProof";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("approver", &ApprovalProof::approver), codec::field("root", &ApprovalProof::root),
                      codec::field("inclusion", &ApprovalProof::inclusion),
                      codec::field("signature", &ApprovalProof::signature)};
  }
  bool operator==(const ApprovalProof&) const = default;
};

// A certified lane tip: the batch's header (its digest is the header's hash)
// and approvals from at least the availability threshold of stake.
struct LaneTip {
  BatchHeader header;
  codec::List<ApprovalProof, kMaxValidators> approvals;

  static constexpr std::string_view codec_name = "LaneTip";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("header", &LaneTip::header), codec::field("approvals", &LaneTip::approvals)};
  }
  bool operator==(const LaneTip&) const = default;
};

// ---- Ordering ------------------------------------------------------------

struct SignerSignature {
  ValidatorIndex signer = 0;
  Signature signature;

  static constexpr std::string_view codec_name = "SignerSignature";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("signer", &SignerSignature::signer),
                      codec::field("signature", &SignerSignature::signature)};
  }
  bool operator==(const SignerSignature&) const = default;
};

// Votes of a quorum for `block` in `round`; the genesis certificate (round
// 0, the genesis block hash) has no votes.
struct QuorumCert {
  Round round = 0;
  Hash block{};
  codec::List<SignerSignature, kMaxValidators> votes;  // signers ascending

  static constexpr std::string_view codec_name = "QuorumCert";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("round", &QuorumCert::round), codec::field("block", &QuorumCert::block),
                      codec::field("votes", &QuorumCert::votes)};
  }
  bool operator==(const QuorumCert&) const = default;
};

struct TimeoutSignature {
  ValidatorIndex signer = 0;
  Round high_qc_round = 0;
  Signature signature;

  static constexpr std::string_view codec_name = "TimeoutSignature";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("signer", &TimeoutSignature::signer),
                      codec::field("high_qc_round", &TimeoutSignature::high_qc_round),
                      codec::field("signature", &TimeoutSignature::signature)};
  }
  bool operator==(const TimeoutSignature&) const = default;
};

// Timeouts of a quorum for `round`, each with the round of its signer's
// highest quorum certificate.
struct TimeoutCert {
  Round round = 0;
  codec::List<TimeoutSignature, kMaxValidators> timeouts;  // signers ascending

  static constexpr std::string_view codec_name = "TimeoutCert";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("round", &TimeoutCert::round), codec::field("timeouts", &TimeoutCert::timeouts)};
  }
  bool operator==(const TimeoutCert&) const = default;
  Round max_high_qc_round() const noexcept;
};

// A block extends the block its `qc` certifies.
struct Block {
  Round round = 0;
  ValidatorIndex author = 0;
  std::uint64_t time_ms = 0;  // Unix milliseconds, above the parent's
  QuorumCert qc;
  std::optional<TimeoutCert> tc;              // present exactly when qc.round + 1 < round
  codec::List<LaneTip, kMaxValidators> tips;  // authors ascending, one per lane at most

  static constexpr std::string_view codec_name = "Block";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("round", &Block::round),     codec::field("author", &Block::author),
                      codec::field("time_ms", &Block::time_ms), codec::field("qc", &Block::qc),
                      codec::field("tc", &Block::tc),           codec::field("tips", &Block::tips)};
  }
  bool operator==(const Block&) const = default;
};

// ---- Execution -----------------------------------------------------------

struct PulseVoteBody {
  Height height = 0;
  Hash pulse{};       // the Pulse's hash
  Hash state_root{};  // the state root after executing it

  static constexpr std::string_view codec_name = "PulseVoteBody";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("height", &PulseVoteBody::height), codec::field("pulse", &PulseVoteBody::pulse),
                      codec::field("state_root", &PulseVoteBody::state_root)};
  }
  bool operator==(const PulseVoteBody&) const = default;
  auto operator<=>(const PulseVoteBody&) const = default;
};

// ---- Messages ------------------------------------------------------------

struct BatchMessage {  // an author pushes its new batch to every validator
  Batch batch;
  static constexpr std::string_view codec_name = "BatchMessage";
  static constexpr auto codec_fields() { return std::tuple{codec::field("batch", &BatchMessage::batch)}; }
  bool operator==(const BatchMessage&) const = default;
};

struct ApprovalsMessage {  // one sheet: every digest its approver approved at once
  ValidatorIndex approver = 0;
  codec::List<Hash, kMaxApprovalsPerSheet> digests;
  Signature signature;  // over (approver, digest count, batch root of the digests)
  static constexpr std::string_view codec_name = "ApprovalsMessage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("approver", &ApprovalsMessage::approver),
                      codec::field("digests", &ApprovalsMessage::digests),
                      codec::field("signature", &ApprovalsMessage::signature)};
  }
  bool operator==(const ApprovalsMessage&) const = default;
};

struct ProposalMessage {
  Block block;
  Signature signature;  // by block.author, over the block hash
  static constexpr std::string_view codec_name = "ProposalMessage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("block", &ProposalMessage::block),
                      codec::field("signature", &ProposalMessage::signature)};
  }
  bool operator==(const ProposalMessage&) const = default;
};

struct VoteMessage {
  Round round = 0;
  Hash block{};
  ValidatorIndex voter = 0;
  Signature signature;  // over (round, block)
  static constexpr std::string_view codec_name = "VoteMessage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("round", &VoteMessage::round), codec::field("block", &VoteMessage::block),
                      codec::field("voter", &VoteMessage::voter), codec::field("signature", &VoteMessage::signature)};
  }
  bool operator==(const VoteMessage&) const = default;
};

struct TimeoutMessage {
  Round round = 0;
  ValidatorIndex sender = 0;
  QuorumCert high_qc;
  Signature signature;  // over (round, high_qc.round)
  // The timeout certificate of round - 1 that brought the sender to this
  // round, if one did: it brings a validator that missed it along.
  std::optional<TimeoutCert> last_tc;
  static constexpr std::string_view codec_name = "TimeoutMessage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("round", &TimeoutMessage::round), codec::field("sender", &TimeoutMessage::sender),
                      codec::field("high_qc", &TimeoutMessage::high_qc),
                      codec::field("signature", &TimeoutMessage::signature),
                      codec::field("last_tc", &TimeoutMessage::last_tc)};
  }
  bool operator==(const TimeoutMessage&) const = default;
};

struct BlockRequest {  // the block `hash` and up to count - 1 of its ancestors
  Hash hash{};
  std::uint32_t count = 1;
  static constexpr std::string_view codec_name = "BlockRequest";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("hash", &BlockRequest::hash), codec::field("count", &BlockRequest::count)};
  }
  bool operator==(const BlockRequest&) const = default;
};

struct BlockResponse {  // newest first
  codec::List<ProposalMessage, kMaxRequestItems> blocks;
  static constexpr std::string_view codec_name = "BlockResponse";
  static constexpr auto codec_fields() { return std::tuple{codec::field("blocks", &BlockResponse::blocks)}; }
  bool operator==(const BlockResponse&) const = default;
};

// A batch by digest, and up to `ancestors` of the batches before it in its
// lane (following parent links), so a lagging validator fetches a lane's
// chain in one round trip.
struct BatchWant {
  Hash digest{};
  std::uint32_t ancestors = 0;
  static constexpr std::string_view codec_name = "BatchWant";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("digest", &BatchWant::digest), codec::field("ancestors", &BatchWant::ancestors)};
  }
  bool operator==(const BatchWant&) const = default;
};

struct BatchRequest {
  codec::List<BatchWant, kMaxRequestItems> wants;
  static constexpr std::string_view codec_name = "BatchRequest";
  static constexpr auto codec_fields() { return std::tuple{codec::field("wants", &BatchRequest::wants)}; }
  bool operator==(const BatchRequest&) const = default;
};

struct BatchResponse {  // each wanted batch followed by its ancestors, newest first
  codec::List<Batch, kMaxRequestItems> batches;
  static constexpr std::string_view codec_name = "BatchResponse";
  static constexpr auto codec_fields() { return std::tuple{codec::field("batches", &BatchResponse::batches)}; }
  bool operator==(const BatchResponse&) const = default;
};

struct PulseVoteMessage {
  PulseVoteBody body;
  ValidatorIndex voter = 0;
  Signature signature;  // over the body
  static constexpr std::string_view codec_name = "PulseVoteMessage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("body", &PulseVoteMessage::body), codec::field("voter", &PulseVoteMessage::voter),
                      codec::field("signature", &PulseVoteMessage::signature)};
  }
  bool operator==(const PulseVoteMessage&) const = default;
};

// A quorum's votes on one Pulse and the state root after it: the Pulse's
// commit certificate.
struct PulseCertificate {
  PulseVoteBody body;
  codec::List<SignerSignature, kMaxValidators> votes;  // signers ascending
  static constexpr std::string_view codec_name = "PulseCertificate";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("body", &PulseCertificate::body), codec::field("votes", &PulseCertificate::votes)};
  }
  bool operator==(const PulseCertificate&) const = default;
};

// The tag of each alternative is its index: part of the wire format.
using Message = std::variant<BatchMessage, ApprovalsMessage, ProposalMessage, VoteMessage, TimeoutMessage, BlockRequest,
                             BlockResponse, BatchRequest, BatchResponse, PulseVoteMessage, PulseCertificate>;

std::string_view message_name(const Message& message) noexcept;

base::Bytes encode_message(const Message& message);
// Errors are invalid input naming the field that was wrong.
base::Result<Message> decode_message(base::ByteView bytes);

// ---- Hashes and signed bodies (docs/consensus.md, "Hashes") ---------------

Hash batch_digest(const BatchHeader& header);
Hash payload_hash(base::ByteView payload) noexcept;
// The bytes of codec::encode(batch) that come before its payload (the
// header and the payload's length prefix): a store writes them and then
// the payload from where it lies, never joining the two in memory.
base::Bytes batch_encoding_prefix(const Batch& batch);
Hash block_hash(const Block& block);

// What a validator signs: SHA3-256(0x74 || kind || chain id || body).
Hash signed_message(SignedKind kind, const Hash& chain_id, base::ByteView body) noexcept;
Hash proposal_signed(const Hash& chain_id, const Hash& block) noexcept;
Hash vote_signed(const Hash& chain_id, Round round, const Hash& block) noexcept;
Hash timeout_signed(const Hash& chain_id, Round round, Round high_qc_round) noexcept;
Hash approvals_signed(const Hash& chain_id, ValidatorIndex approver, std::uint64_t count, const Hash& root) noexcept;
Hash pulse_vote_signed(const Hash& chain_id, const PulseVoteBody& body);

}  // namespace sion::consensus
