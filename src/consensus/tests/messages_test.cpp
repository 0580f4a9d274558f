#include "sion/consensus/messages.hpp"

#include <gtest/gtest.h>

#include "sample_values.hpp"
#include "sion/commit/batch_root.hpp"

namespace sion::consensus {
namespace {

using testing::filled;

Signature sig(std::uint8_t b) { return testing::one_leg(b); }

Block sample_block() {
  Block block;
  block.round = 7;
  block.author = 2;
  block.time_ms = 1'700'000'000'123;
  block.qc.round = 6;
  block.qc.block = filled(0xAB);
  block.qc.votes.push_back({0, sig(1)});
  block.qc.votes.push_back({1, sig(2)});
  LaneTip tip;
  tip.header = BatchHeader{1, 3, filled(0x11), filled(0x22), 100, 4};
  ApprovalProof proof;
  proof.approver = 3;
  proof.root = filled(0x33);
  proof.inclusion.leaf_index = 1;
  proof.inclusion.tree_size = 2;
  proof.inclusion.path.push_back(filled(0x44));
  proof.signature = sig(5);
  tip.approvals.push_back(proof);
  block.tips.push_back(tip);
  return block;
}

TEST(Messages, EveryKindRoundTrips) {
  const Block block = sample_block();
  TimeoutCert tc;
  tc.round = 5;
  tc.timeouts.push_back({0, 3, sig(9)});
  Block with_tc = block;
  with_tc.tc = tc;
  const std::vector<Message> messages = {
      BatchMessage{Batch{BatchHeader{0, 1, Hash{}, payload_hash(base::Bytes{1, 2}), 2, 1}, base::Bytes{1, 2}}},
      ApprovalsMessage{1, {filled(1), filled(2)}, sig(3)},
      ProposalMessage{block, sig(4)},
      ProposalMessage{with_tc, sig(4)},
      VoteMessage{7, filled(5), 2, sig(6)},
      TimeoutMessage{8, 1, block.qc, sig(7), std::nullopt},
      TimeoutMessage{6, 1, block.qc, sig(7), tc},
      BlockRequest{filled(8), 32},
      BlockResponse{{ProposalMessage{block, sig(4)}}},
      BatchRequest{{BatchWant{filled(9), 3}}},
      BatchResponse{{Batch{}}},
      PulseVoteMessage{PulseVoteBody{3, filled(10), filled(11)}, 0, sig(12)},
      PulseCertificate{PulseVoteBody{3, filled(10), filled(11)}, {{0, sig(1)}, {2, sig(2)}}},
  };
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const base::Bytes bytes = encode_message(messages[i]);
    EXPECT_EQ(bytes[0], messages[i].index()) << message_name(messages[i]);
    auto back = decode_message(bytes);
    ASSERT_TRUE(back.ok()) << message_name(messages[i]) << ": " << back.error().to_string();
    EXPECT_EQ(*back, messages[i]) << message_name(messages[i]);
  }
}

TEST(Messages, DecodingRefusesWhatIsNotAMessage) {
  EXPECT_EQ(decode_message({}).error().code, base::Errc::truncated);
  EXPECT_EQ(decode_message(base::Bytes{11}).error().code, base::Errc::unknown_tag);
  base::Bytes vote = encode_message(VoteMessage{7, filled(5), 2, sig(6)});
  vote.push_back(0);
  EXPECT_EQ(decode_message(vote).error().code, base::Errc::trailing_bytes);
  vote.resize(vote.size() - 3);
  EXPECT_EQ(decode_message(vote).error().code, base::Errc::truncated);
}

// The prefix and the payload, one after the other, are the batch's
// encoding, for a length prefix of one byte and of two.
TEST(Messages, ABatchEncodingIsItsPrefixThenItsPayload) {
  for (const std::size_t size : {std::size_t{0}, std::size_t{5}, std::size_t{300}}) {
    Batch batch;
    batch.header.author = 3;
    batch.header.seq = 9;
    batch.payload.assign(size, 0x5a);
    batch.header.payload_bytes = static_cast<std::uint32_t>(size);
    batch.header.payload_hash = payload_hash(batch.payload);
    base::Bytes joined = batch_encoding_prefix(batch);
    joined.insert(joined.end(), batch.payload.begin(), batch.payload.end());
    EXPECT_EQ(joined, codec::encode(batch)) << size;
  }
}

TEST(Messages, HashesBindEveryField) {
  const Block block = sample_block();
  Block later = block;
  later.time_ms += 1;
  EXPECT_NE(block_hash(block), block_hash(later));
  BatchHeader h{1, 3, filled(0x11), filled(0x22), 100, 4};
  BatchHeader other = h;
  other.seq = 4;
  EXPECT_NE(batch_digest(h), batch_digest(other));
  // Each kind signs under its own first byte: a vote can never pass as a timeout.
  const Hash chain = filled(0xC0);
  EXPECT_NE(vote_signed(chain, 5, filled(1)), timeout_signed(chain, 5, 0));
  EXPECT_NE(vote_signed(chain, 5, filled(1)), vote_signed(filled(0xC1), 5, filled(1)));
  EXPECT_NE(approvals_signed(chain, 1, 2, filled(3)), approvals_signed(chain, 2, 2, filled(3)));
}

TEST(Messages, TimeoutCertificateReportsItsHighestCertificate) {
  TimeoutCert tc;
  tc.timeouts.push_back({0, 3, sig(1)});
  tc.timeouts.push_back({1, 9, sig(1)});
  tc.timeouts.push_back({2, 4, sig(1)});
  EXPECT_EQ(tc.max_high_qc_round(), 9u);
}

}  // namespace
}  // namespace sion::consensus
