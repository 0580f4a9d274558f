#include "sion/node/consensus_store.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sion/base/bytes.hpp"

namespace sion::node {
namespace {

using consensus::Hash;

struct TempDir {
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("sion-consensus-store-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::filesystem::path path;
  static inline int counter = 0;
};

consensus::Batch batch(std::uint32_t author, std::uint64_t seq, std::uint8_t fill) {
  consensus::Batch b;
  b.header.author = author;
  b.header.seq = seq;
  b.payload = base::Bytes(5, fill);
  b.header.payload_bytes = 5;
  b.header.payload_hash = consensus::payload_hash(b.payload);
  return b;
}

TEST(ConsensusStore, KeepsWhatARestartedCoreNeeds) {
  TempDir dir;
  auto store = ConsensusStore::open(dir.path.string());
  ASSERT_TRUE(store.ok()) << store.error().to_string();
  auto empty = (*store)->recover();
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->safety);
  EXPECT_FALSE(empty->anchor);
  EXPECT_TRUE(empty->batches.empty());

  consensus::SafetyState safety;
  safety.last_voted_round = 9;
  safety.high_qc.round = 8;
  safety.high_qc.block.fill(0x88);
  ASSERT_TRUE((*store)->save_safety(safety).ok());
  safety.last_voted_round = 10;  // replaced, not appended
  ASSERT_TRUE((*store)->save_safety(safety).ok());

  ASSERT_TRUE((*store)->save_batch(batch(0, 1, 1)).ok());
  ASSERT_TRUE((*store)->save_batch(batch(1, 1, 2)).ok());
  ASSERT_TRUE((*store)->save_batch(batch(1, 2, 3)).ok());

  consensus::CommitAction commit;
  auto proposal = std::make_shared<consensus::ProposalMessage>();
  proposal->block.round = 3;
  commit.proposal = proposal;
  commit.block = consensus::block_hash(proposal->block);
  commit.batches.push_back(std::make_shared<const consensus::Batch>(batch(0, 1, 1)));
  commit.anchor.block = commit.block;
  commit.anchor.round = 3;
  commit.anchor.height = 1;
  commit.anchor.lanes.resize(2);
  commit.anchor.lanes[0].seq = 1;
  ASSERT_TRUE((*store)->save_delivered(commit).ok());

  // A new store on the same folder, as after a restart.
  auto again = ConsensusStore::open(dir.path.string());
  ASSERT_TRUE(again.ok());
  auto recovery = (*again)->recover();
  ASSERT_TRUE(recovery.ok()) << recovery.error().to_string();
  ASSERT_TRUE(recovery->safety);
  EXPECT_EQ(*recovery->safety, safety);
  ASSERT_TRUE(recovery->anchor);
  EXPECT_EQ(*recovery->anchor, commit.anchor);
  // Lane 0's batch 1 is delivered; lane 1's two are not.
  ASSERT_EQ(recovery->batches.size(), 2u);
  for (const auto& b : recovery->batches) EXPECT_EQ(b.header.author, 1u);

  const auto loaded = (*again)->load_batch(consensus::batch_digest(batch(1, 2, 3).header));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, batch(1, 2, 3));
  EXPECT_FALSE((*again)->load_batch(Hash{}));
  const auto block = (*again)->load_block(commit.block);
  ASSERT_TRUE(block);
  EXPECT_EQ(*block, *proposal);
  EXPECT_FALSE((*again)->load_block(Hash{}));
}

TEST(ConsensusStore, AFailedWriteIsReportedAndACorruptRecordRefused) {
  TempDir dir;
  bool fail = false;
  auto store = ConsensusStore::open(dir.path.string(), [&fail]() -> base::Status {
    if (fail) return base::fail(base::Errc::io_error, "injected");
    return {};
  });
  ASSERT_TRUE(store.ok());
  fail = true;
  const auto refused = (*store)->save_safety(consensus::SafetyState{});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, base::Errc::io_error);
  EXPECT_NE(refused.error().reason.find("safety"), std::string::npos) << refused.error().reason;
  fail = false;

  std::ofstream(dir.path / "safety") << "not an encoding";
  const auto corrupt = (*store)->recover();
  ASSERT_FALSE(corrupt.ok());
  EXPECT_EQ(corrupt.error().code, base::Errc::corrupt_store);
  EXPECT_NE(corrupt.error().reason.find("safety"), std::string::npos) << corrupt.error().reason;

  // A batch file whose bytes are not the batch its name says is not served.
  std::filesystem::remove(dir.path / "safety");
  const consensus::Batch b = batch(0, 1, 7);
  const std::string name = ConsensusStore::batch_file_name({0, 1, consensus::batch_digest(b.header)});
  std::ofstream(dir.path / "batches" / name, std::ios::binary) << std::string(
      reinterpret_cast<const char*>(codec::encode(batch(0, 1, 8)).data()), codec::encode(batch(0, 1, 8)).size());
  auto reopened = ConsensusStore::open(dir.path.string()).value();
  EXPECT_FALSE(reopened->load_batch(consensus::batch_digest(b.header)));
}

TEST(ConsensusStore, FileNamesRoundTripAndRefuseOthers) {
  Hash digest{};
  digest.fill(0xa5);
  const ConsensusStore::BatchName name{3, 42, digest};
  const std::string text = ConsensusStore::batch_file_name(name);
  EXPECT_EQ(text, "0000000003-00000000000000000042-" + base::to_hex(digest));
  const auto back = ConsensusStore::parse_batch_name(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->author, 3u);
  EXPECT_EQ(back->seq, 42u);
  EXPECT_EQ(back->digest, digest);
  EXPECT_FALSE(ConsensusStore::parse_batch_name(text + ".tmp"));
  EXPECT_FALSE(ConsensusStore::parse_batch_name(base::to_hex(digest)));
  EXPECT_FALSE(ConsensusStore::parse_batch_name("000000000x-00000000000000000042-" + base::to_hex(digest)));
  const std::string block = ConsensusStore::block_file_name(7, digest);
  ASSERT_TRUE(ConsensusStore::parse_block_name(block));
  EXPECT_EQ(ConsensusStore::parse_block_name(block)->round, 7u);
  EXPECT_FALSE(ConsensusStore::parse_block_name(block.substr(1)));
  std::string upper = block;
  upper.back() = 'A';  // hex, but not the store's spelling
  EXPECT_FALSE(ConsensusStore::parse_block_name(upper));
}

TEST(ConsensusStore, RemovesWhatFallsOutOfTheRetention) {
  TempDir dir;
  auto store = ConsensusStore::open(dir.path.string(), {}, ConsensusRetention{2, 10}).value();
  consensus::CommitAction commit;
  commit.anchor.lanes.resize(2);
  for (std::uint64_t seq = 1; seq <= 5; ++seq) {
    auto b = std::make_shared<const consensus::Batch>(batch(1, seq, static_cast<std::uint8_t>(seq)));
    commit.batches = {b};
    commit.anchor.lanes[1].seq = seq;
    commit.anchor.round = seq * 5;
    consensus::ProposalMessage proposal;
    proposal.block.round = seq * 5;
    commit.proposal = std::make_shared<const consensus::ProposalMessage>(proposal);
    commit.block = consensus::block_hash(proposal.block);
    ASSERT_TRUE(store->save_delivered(commit));
  }
  // The lane's last two batches stay, and the blocks of the last ten rounds.
  for (std::uint64_t seq = 1; seq <= 5; ++seq) {
    EXPECT_EQ(
        store->load_batch(consensus::batch_digest(batch(1, seq, static_cast<std::uint8_t>(seq)).header)) != nullptr,
        seq >= 4)
        << seq;
  }
  std::size_t blocks = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path / "blocks")) blocks += entry.is_regular_file();
  EXPECT_EQ(blocks, 2u);  // rounds 20 and 25
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path / "batches"), {}), 2);
}

}  // namespace
}  // namespace sion::node

namespace sion::node {
namespace {

TEST(ConsensusStore, KeepsEvidenceAcrossARestart) {
  TempDir dir;
  consensus::VoteMessage first;
  first.round = 7;
  first.voter = 2;
  first.block.fill(0x11);
  consensus::VoteMessage second = first;
  second.block.fill(0x22);
  {
    auto store = ConsensusStore::open(dir.path.string()).value();
    EXPECT_TRUE(store->load_evidence().value().empty());
    const EvidenceRecord record{2, "two votes in round 7", first, second, 1234};
    ASSERT_TRUE(store->save_evidence(record));
    ASSERT_TRUE(store->save_evidence(record));  // the same twice is one record
  }
  auto store = ConsensusStore::open(dir.path.string()).value();
  const auto kept = store->load_evidence().value();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].offender, 2u);
  EXPECT_EQ(kept[0].what, "two votes in round 7");
  EXPECT_EQ(kept[0].first, consensus::Message(first));
  EXPECT_EQ(kept[0].second, consensus::Message(second));
  EXPECT_EQ(kept[0].seen_ms, 1234u);
  // A damaged record is reported, not skipped.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path / "evidence")) {
    std::ofstream(entry.path(), std::ios::trunc) << "x";
  }
  EXPECT_EQ(store->load_evidence().error().code, base::Errc::corrupt_store);
}

}  // namespace
}  // namespace sion::node
