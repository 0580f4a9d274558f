// Known answers of docs/consensus.md, "Known answers": one fixed example of
// every message, of each hash and of each signed body, and leaders for two
// stake vectors. The hex strings below appear on that page verbatim, and the
// last test reads them from the page, so an edit to either fails here.

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include "sample_values.hpp"
#include "sion/base/bytes.hpp"
#include "sion/base/testing/doc_values.hpp"
#include "sion/commit/batch_root.hpp"
#include "sion/consensus/bundle_signing.hpp"
#include "sion/consensus/messages.hpp"
#include "sion/consensus/validator_set.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::consensus {
namespace {

using testing::filled;
using testing::one_leg;

// Both legs, as the default policy requires of a Pulse vote.
Signature two_legs(std::uint8_t b) {
  Signature s;
  s.parts.emplace_back(base::Bytes(3, b));
  s.parts.emplace_back(base::Bytes(3, b));
  return s;
}

base::Bytes payload() { return base::Bytes{0x01, 0x02, 0x03}; }

BatchHeader header() { return BatchHeader{1, 2, filled(0x11), payload_hash(payload()), 3, 1}; }

Batch batch() { return Batch{header(), payload()}; }

ApprovalsMessage sheet() { return ApprovalsMessage{2, {batch_digest(header()), filled(0x22)}, one_leg(0xa2)}; }

std::vector<base::ByteView> sheet_items(const ApprovalsMessage& s) {
  std::vector<base::ByteView> views;
  for (const Hash& d : s.digests) views.emplace_back(d.data(), d.size());
  return views;
}

Hash sheet_root() { return commit::batch_root(sheet_items(sheet())); }

ApprovalProof approval() {
  const ApprovalsMessage s = sheet();
  const commit::BatchTree tree(sheet_items(s));
  return ApprovalProof{s.approver, tree.root(), tree.prove(0).value(), s.signature};
}

QuorumCert qc4() {
  QuorumCert qc;
  qc.round = 4;
  qc.block = filled(0x44);
  qc.votes.push_back({0, one_leg(0xb0)});
  qc.votes.push_back({1, one_leg(0xb1)});
  qc.votes.push_back({3, one_leg(0xb3)});
  return qc;
}

TimeoutCert tc6() {
  TimeoutCert tc;
  tc.round = 6;
  tc.timeouts.push_back({0, 4, one_leg(0xc0)});
  tc.timeouts.push_back({1, 4, one_leg(0xc1)});
  tc.timeouts.push_back({2, 3, one_leg(0xc2)});
  return tc;
}

// Block A: round 5, extending the certificate of round 4, one lane tip.
Block block_a() {
  Block block;
  block.round = 5;
  block.author = 0;  // the leader of round 5 among four equal stakes
  block.time_ms = 1'700'000'000'000;
  block.qc = qc4();
  block.tips.push_back(LaneTip{header(), {approval()}});
  return block;
}

// Block B: round 7, after a timeout certificate of round 6, no tips.
Block block_b() {
  Block block;
  block.round = 7;
  block.author = 1;  // the leader of round 7 among four equal stakes
  block.time_ms = 1'700'000'000'500;
  block.qc = qc4();
  block.tc = tc6();
  return block;
}

PulseVoteBody pulse_body() { return PulseVoteBody{3, filled(0x88), filled(0x99)}; }

Hash chain_id() { return filled(0xcc); }

std::string hex(base::ByteView bytes) { return base::to_hex(bytes); }
std::string hex(const Hash& hash) { return base::to_hex(hash); }
std::string hex(const Message& message) { return base::to_hex(encode_message(message)); }

std::vector<Message> messages() {
  return {
      BatchMessage{batch()},
      sheet(),
      ProposalMessage{block_a(), one_leg(0xd3)},
      VoteMessage{5, block_hash(block_a()), 1, one_leg(0xe1)},
      TimeoutMessage{7, 3, qc4(), one_leg(0xf3), tc6()},
      BlockRequest{block_hash(block_a()), 32},
      BlockResponse{{ProposalMessage{block_b(), one_leg(0xd2)}}},
      BatchRequest{{BatchWant{batch_digest(header()), 1}, BatchWant{filled(0x77), 0}}},
      BatchResponse{{batch()}},
      PulseVoteMessage{pulse_body(), 1, two_legs(0x51)},
      PulseCertificate{pulse_body(), {{0, two_legs(0x50)}, {1, two_legs(0x51)}, {2, two_legs(0x52)}}},
  };
}

// The labels of docs/consensus.md, one per alternative of Message, in tag order.
const char* const kMessageLabels[] = {
    "batch message",   "approvals message",  "proposal message",  "vote message",
    "timeout message", "block request",      "block response",    "batch request",
    "batch response",  "pulse vote message", "pulse certificate",
};

std::string leaders(std::vector<std::uint64_t> stakes) {
  const ValidatorSet set = ValidatorSet::create(std::move(stakes)).value();
  base::Bytes out;
  for (Round r = 1; r <= 12; ++r) out.push_back(static_cast<std::uint8_t>(set.leader(r)));
  return base::to_hex(out);
}

// Every value of the page, by label, as the code computes it.
std::vector<std::pair<std::string, std::string>> computed() {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("payload", hex(payload()));
  out.emplace_back("payload hash", hex(payload_hash(payload())));
  out.emplace_back("batch header", hex(codec::encode(header())));
  out.emplace_back("batch digest", hex(batch_digest(header())));
  out.emplace_back("sheet root", hex(sheet_root()));
  out.emplace_back("block a", hex(codec::encode(block_a())));
  out.emplace_back("block a hash", hex(block_hash(block_a())));
  out.emplace_back("block b", hex(codec::encode(block_b())));
  out.emplace_back("block b hash", hex(block_hash(block_b())));
  const std::vector<Message> all = messages();
  for (std::size_t i = 0; i < all.size(); ++i) out.emplace_back(kMessageLabels[i], hex(all[i]));
  out.emplace_back("chain id", hex(chain_id()));
  out.emplace_back("proposal signed", hex(proposal_signed(chain_id(), block_hash(block_a()))));
  out.emplace_back("vote signed", hex(vote_signed(chain_id(), 5, block_hash(block_a()))));
  out.emplace_back("timeout signed", hex(timeout_signed(chain_id(), 7, 4)));
  out.emplace_back("approvals signed", hex(approvals_signed(chain_id(), 2, 2, sheet_root())));
  out.emplace_back("pulse vote body", hex(codec::encode(pulse_body())));
  out.emplace_back("pulse vote signed", hex(pulse_vote_signed(chain_id(), pulse_body())));
  out.emplace_back("bound vote",
                   hex(crypto::bound_message(filled(0xbb), vote_signed(chain_id(), 5, block_hash(block_a())),
                                             base::as_bytes(kSignatureContext))
                           .value()));
  std::uint8_t round1[8] = {1, 0, 0, 0, 0, 0, 0, 0};
  out.emplace_back("leader seed, round 1", hex(commit::tagged_hash(commit::Domain::leader_seed, round1)));
  out.emplace_back("leaders, stakes 1 1 1 1", leaders({1, 1, 1, 1}));
  out.emplace_back("leaders, stakes 10 20 30 40", leaders({10, 20, 30, 40}));
  return out;
}

struct Known {
  const char* label;
  const char* hex;
};

// docs/consensus.md, "Known answers": these strings appear there verbatim
// (spaces and line breaks aside).
const Known kKnown[] = {
    {"payload", "010203"},
    {"payload hash", "ef409a9a7dc7ca1169ebaa06c46a786832f5d7cc5fcc981408065fefe1d9aa11"},
    {"batch header",
     "0100000002000000000000001111111111111111111111111111111111111111111111111111111111111111ef409a9a"
     "7dc7ca1169ebaa06c46a786832f5d7cc5fcc981408065fefe1d9aa110300000001000000"},
    {"batch digest", "9a09e5b79719fba43b465511b4decf128aa0bf195df17d0ef915ba6404595a4b"},
    {"sheet root", "0f83c1cdb5524b454ca82f182b20e1fcb4d787a6d3b2a4910cfadf35308999ed"},
    {"block a",
     "0500000000000000000000000068e5cf8b01000004000000000000004444444444444444444444444444444444444444"
     "44444444444444444444444403000000000203b0b0b000010000000203b1b1b100030000000203b3b3b3000001010000"
     "0002000000000000001111111111111111111111111111111111111111111111111111111111111111ef409a9a7dc7ca"
     "1169ebaa06c46a786832f5d7cc5fcc981408065fefe1d9aa11030000000100000001020000000f83c1cdb5524b454ca8"
     "2f182b20e1fcb4d787a6d3b2a4910cfadf35308999ed0000000000000000020000000000000001556efce74fad0ec9ec"
     "2375c5de7b2e32b52977a62060dab169fc42e2ac9d730b0203a2a2a200"},
    {"block a hash", "d8c69e3eac25f85a5705953ff7fdfa4eb2928977f16d8c0ff108dfacc4888c5f"},
    {"block b",
     "070000000000000001000000f469e5cf8b01000004000000000000004444444444444444444444444444444444444444"
     "44444444444444444444444403000000000203b0b0b000010000000203b1b1b100030000000203b3b3b3000106000000"
     "00000000030000000004000000000000000203c0c0c0000100000004000000000000000203c1c1c10002000000030000"
     "00000000000203c2c2c20000"},
    {"block b hash", "16c4be294d78017b3b3dce47f04f1f7ef13981fb3f87704fe5ab968c271336cf"},
    {"batch message",
     "000100000002000000000000001111111111111111111111111111111111111111111111111111111111111111ef409a"
     "9a7dc7ca1169ebaa06c46a786832f5d7cc5fcc981408065fefe1d9aa11030000000100000003010203"},
    {"approvals message",
     "0102000000029a09e5b79719fba43b465511b4decf128aa0bf195df17d0ef915ba6404595a4b22222222222222222222"
     "222222222222222222222222222222222222222222220203a2a2a200"},
    {"proposal message",
     "020500000000000000000000000068e5cf8b010000040000000000000044444444444444444444444444444444444444"
     "4444444444444444444444444403000000000203b0b0b000010000000203b1b1b100030000000203b3b3b30000010100"
     "000002000000000000001111111111111111111111111111111111111111111111111111111111111111ef409a9a7dc7"
     "ca1169ebaa06c46a786832f5d7cc5fcc981408065fefe1d9aa11030000000100000001020000000f83c1cdb5524b454c"
     "a82f182b20e1fcb4d787a6d3b2a4910cfadf35308999ed0000000000000000020000000000000001556efce74fad0ec9"
     "ec2375c5de7b2e32b52977a62060dab169fc42e2ac9d730b0203a2a2a2000203d3d3d300"},
    {"vote message",
     "030500000000000000d8c69e3eac25f85a5705953ff7fdfa4eb2928977f16d8c0ff108dfacc4888c5f010000000203e1"
     "e1e100"},
    {"timeout message",
     "040700000000000000030000000400000000000000444444444444444444444444444444444444444444444444444444"
     "444444444403000000000203b0b0b000010000000203b1b1b100030000000203b3b3b3000203f3f3f300010600000000"
     "000000030000000004000000000000000203c0c0c0000100000004000000000000000203c1c1c1000200000003000000"
     "000000000203c2c2c200"},
    {"block request", "05d8c69e3eac25f85a5705953ff7fdfa4eb2928977f16d8c0ff108dfacc4888c5f20000000"},
    {"block response",
     "0601070000000000000001000000f469e5cf8b0100000400000000000000444444444444444444444444444444444444"
     "444444444444444444444444444403000000000203b0b0b000010000000203b1b1b100030000000203b3b3b300010600"
     "000000000000030000000004000000000000000203c0c0c0000100000004000000000000000203c1c1c1000200000003"
     "000000000000000203c2c2c200000203d2d2d200"},
    {"batch request",
     "07029a09e5b79719fba43b465511b4decf128aa0bf195df17d0ef915ba6404595a4b0100000077777777777777777777"
     "7777777777777777777777777777777777777777777700000000"},
    {"batch response",
     "08010100000002000000000000001111111111111111111111111111111111111111111111111111111111111111ef40"
     "9a9a7dc7ca1169ebaa06c46a786832f5d7cc5fcc981408065fefe1d9aa11030000000100000003010203"},
    {"pulse vote message",
     "090300000000000000888888888888888888888888888888888888888888888888888888888888888899999999999999"
     "9999999999999999999999999999999999999999999999999901000000020351515103515151"},
    {"pulse certificate",
     "0a0300000000000000888888888888888888888888888888888888888888888888888888888888888899999999999999"
     "999999999999999999999999999999999999999999999999990300000000020350505003505050010000000203515151"
     "0351515102000000020352525203525252"},
    {"chain id", "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"},
    {"proposal signed", "f1c76e3fbecc9ad6e9f96479cb3e83e185513ff856be43e63620cbf84360602c"},
    {"vote signed", "4cecc1ebfc3712064a4fa0a617e694dfa244cc33e53a88acc6d6b5efda6f4d7b"},
    {"timeout signed", "f990aa3f67f6a2ef290fc1fad712e37a20df97efc8398679280958306d9f9287"},
    {"approvals signed", "21ffcc5e79d6e2d68db156d04b5770be60fdb5a6afc02201378c3217ce73e334"},
    {"pulse vote body",
     "030000000000000088888888888888888888888888888888888888888888888888888888888888889999999999999999"
     "999999999999999999999999999999999999999999999999"},
    {"pulse vote signed", "c3456a39bbffb86da5feca1d2860d9a2cf75131dfa39913ebe63ffe0621da15f"},
    {"bound vote",
     "73696f6e2f62756e646c652d7369672f7631bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
     "bbbb1173696f6e2f636f6e73656e7375732f76314cecc1ebfc3712064a4fa0a617e694dfa244cc33e53a88acc6d6b5ef"
     "da6f4d7b"},
    {"leader seed, round 1", "80edeb9c0b6e5551fb2d2be5fbe88a03e4f5a632e3e20b99494fda7be1ec3874"},
    {"leaders, stakes 1 1 1 1", "000301010000010203010301"},
    {"leaders, stakes 10 20 30 40", "020303020102020101010303"},
};

std::string known(const std::string& label) {
  for (const Known& k : kKnown) {
    if (label == k.label) return k.hex;
  }
  ADD_FAILURE() << "no known answer '" << label << "'";
  return {};
}

TEST(KnownAnswers, EveryValue) {
  const auto values = computed();
  ASSERT_EQ(values.size(), std::size(kKnown));
  for (const auto& [label, value] : values) EXPECT_EQ(value, known(label)) << label;
}

TEST(KnownAnswers, EveryMessageAlternativeOnceInTagOrder) {
  const std::vector<Message> all = messages();
  ASSERT_EQ(all.size(), std::variant_size_v<Message>);
  ASSERT_EQ(std::size(kMessageLabels), std::variant_size_v<Message>);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].index(), i) << kMessageLabels[i];
    const base::Bytes bytes = base::from_hex(known(kMessageLabels[i])).value();
    ASSERT_FALSE(bytes.empty()) << kMessageLabels[i];
    EXPECT_EQ(bytes[0], i) << kMessageLabels[i];  // the tag is the alternative's index
    auto decoded = decode_message(bytes);
    ASSERT_TRUE(decoded.ok()) << kMessageLabels[i] << ": " << decoded.error().to_string();
    EXPECT_EQ(*decoded, all[i]) << kMessageLabels[i];
  }
}

// The signed bodies spelled out byte by byte, as the page gives them: a
// second route to the same hashes.
TEST(KnownAnswers, SignedBodiesAreWhatThePageSays) {
  const auto signed_hash = [](std::uint8_t kind, const std::string& body_hex) {
    base::Bytes input{0x74, kind};
    const Hash chain = chain_id();
    input.insert(input.end(), chain.begin(), chain.end());
    const base::Bytes body = base::from_hex(body_hex).value();
    input.insert(input.end(), body.begin(), body.end());
    return base::to_hex(crypto::sha3_256(input));
  };
  const std::string block = known("block a hash");
  EXPECT_EQ(signed_hash(1, block), known("proposal signed"));
  EXPECT_EQ(signed_hash(2, "0500000000000000" + block), known("vote signed"));
  // Round 7, high QC round 4.
  EXPECT_EQ(signed_hash(3, "07000000000000000400000000000000"), known("timeout signed"));
  // Approver 2, two digests, the sheet's root.
  EXPECT_EQ(signed_hash(4, "020000000200000000000000" + known("sheet root")), known("approvals signed"));
  EXPECT_EQ(signed_hash(5, known("pulse vote body")), known("pulse vote signed"));
}

TEST(KnownAnswers, ApprovalProofOfTheBlockProvesTheDigestInTheSheet) {
  const ApprovalProof proof = block_a().tips[0].approvals[0];
  const Hash digest = batch_digest(header());
  EXPECT_TRUE(commit::verify_batch_inclusion(base::ByteView(digest.data(), digest.size()), proof.inclusion,
                                             commit::TreeHead{2, sheet_root()}));
}

TEST(KnownAnswers, BlocksAreByTheirRoundsLeaders) {
  const ValidatorSet equal = ValidatorSet::create({1, 1, 1, 1}).value();
  EXPECT_EQ(block_a().author, equal.leader(block_a().round));
  EXPECT_EQ(block_b().author, equal.leader(block_b().round));
  EXPECT_GE(block_b().qc.round, block_b().tc->max_high_qc_round());  // the lock lets validators vote for it
}

TEST(KnownAnswers, DocumentHasTheKnownAnswers) {
  const base::testing::DocValues doc(std::string(SION_SOURCE_DIR) + "/docs/consensus.md");
  ASSERT_TRUE(doc.problems().empty()) << doc.problems().front();
  for (const Known& k : kKnown) EXPECT_EQ(doc.hex(k.label), k.hex) << "docs/consensus.md, '" << k.label << "'";
  EXPECT_EQ(doc.labels().size(), std::size(kKnown));
}

}  // namespace
}  // namespace sion::consensus
