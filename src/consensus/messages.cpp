#include "sion/consensus/messages.hpp"

#include <algorithm>

namespace sion::consensus {

std::string_view signed_kind_name(SignedKind kind) noexcept {
  switch (kind) {
    case SignedKind::proposal: return "proposal";
    case SignedKind::vote: return "vote";
    case SignedKind::timeout: return "timeout";
    case SignedKind::approvals: return "approvals";
    case SignedKind::pulse_vote: return "pulse_vote";
  }
  return "unknown";
}

Round TimeoutCert::max_high_qc_round() const noexcept {
  Round highest = 0;
  for (const TimeoutSignature& t : timeouts) highest = std::max(highest, t.high_qc_round);
  return highest;
}

std::string_view message_name(const Message& message) noexcept {
  return std::visit([](const auto& m) { return codec::type_name<std::decay_t<decltype(m)>>(); }, message);
}

base::Bytes encode_message(const Message& message) { return codec::encode(message); }

base::Result<Message> decode_message(base::ByteView bytes) { return codec::decode<Message>(bytes); }

Hash batch_digest(const BatchHeader& header) {
  return commit::tagged_hash(commit::Domain::batch_header, codec::encode(header));
}

Hash payload_hash(base::ByteView payload) noexcept {
  return commit::tagged_hash(commit::Domain::batch_payload, payload);
}

base::Bytes batch_encoding_prefix(const Batch& batch) {
  // Batch's fields in order (messages.hpp): the header, then the payload as
  // VarBytes, whose length prefix comes before its bytes.
  base::Bytes prefix;
  prefix.reserve(codec::encoded_size(batch.header) + codec::length_size(batch.payload.size()));
  codec::Writer writer(prefix);
  codec::Codec<BatchHeader>::encode(writer, batch.header);
  writer.length(batch.payload.size());
  return prefix;
}

Hash block_hash(const Block& block) {
  return commit::tagged_hash(commit::Domain::consensus_block, codec::encode(block));
}

Hash signed_message(SignedKind kind, const Hash& chain_id, base::ByteView body) noexcept {
  base::Bytes bytes;
  bytes.reserve(1 + chain_id.size() + body.size());
  bytes.push_back(static_cast<std::uint8_t>(kind));
  bytes.insert(bytes.end(), chain_id.begin(), chain_id.end());
  bytes.insert(bytes.end(), body.begin(), body.end());
  return commit::tagged_hash(commit::Domain::consensus_signed, bytes);
}

Hash proposal_signed(const Hash& chain_id, const Hash& block) noexcept {
  return signed_message(SignedKind::proposal, chain_id, block);
}

Hash vote_signed(const Hash& chain_id, Round round, const Hash& block) noexcept {
  base::Bytes body;
  codec::Writer w(body);
  w.u64(round);
  w.bytes(block);
  return signed_message(SignedKind::vote, chain_id, body);
}

Hash timeout_signed(const Hash& chain_id, Round round, Round high_qc_round) noexcept {
  base::Bytes body;
  codec::Writer w(body);
  w.u64(round);
  w.u64(high_qc_round);
  return signed_message(SignedKind::timeout, chain_id, body);
}

Hash approvals_signed(const Hash& chain_id, ValidatorIndex approver, std::uint64_t count, const Hash& root) noexcept {
  base::Bytes body;
  codec::Writer w(body);
  w.u32(approver);
  w.u64(count);
  w.bytes(root);
  return signed_message(SignedKind::approvals, chain_id, body);
}

Hash pulse_vote_signed(const Hash& chain_id, const PulseVoteBody& body) {
  return signed_message(SignedKind::pulse_vote, chain_id, codec::encode(body));
}

}  // namespace sion::consensus
