#include "sion/node/consensus_store.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

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

std::vector<std::filesystem::path> segments(const TempDir& dir) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path / "log")) found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

void write_bytes(const std::filesystem::path& path, std::uint64_t offset, std::string_view bytes) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>(offset));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(ConsensusStore, AFailedWriteIsReported) {
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
  const auto batch_refused = (*store)->save_batch(batch(2, 9, 1));
  ASSERT_FALSE(batch_refused.ok());
  EXPECT_NE(batch_refused.error().reason.find("batch 9 of validator 2"), std::string::npos)
      << batch_refused.error().reason;
  fail = false;
  ASSERT_TRUE((*store)->sync());
}

// The framing docs/consensus.md gives as its example: the all-zero safety state.
TEST(ConsensusStore, FramesARecordAsTheSpecificationSays) {
  TempDir dir;
  auto store = ConsensusStore::open(dir.path.string()).value();
  ASSERT_TRUE(store->save_safety(consensus::SafetyState{}));
  ASSERT_TRUE(store->sync());
  std::ifstream file(segments(dir).front(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), {});
  EXPECT_EQ(base::to_hex(base::as_bytes(bytes)),
            "6a6b13aa"
            "01"
            "00000000"
            "0000000000000000" +
                std::string(64, '0') + "00000031" + std::string(98, '0'));
}

// A batch's record is written in parts (its header and length prefix, then
// its payload from where it lies); on disk the body is still exactly the
// batch's canonical encoding, under one CRC.
TEST(ConsensusStore, ABatchRecordHoldsTheBatchEncoding) {
  TempDir dir;
  consensus::Batch big = batch(2, 7, 0);
  big.payload.resize(300);  // a two-byte length prefix
  for (std::size_t i = 0; i < big.payload.size(); ++i) big.payload[i] = static_cast<std::uint8_t>(i * 7);
  big.header.payload_bytes = 300;
  big.header.payload_hash = consensus::payload_hash(big.payload);
  {
    auto store = ConsensusStore::open(dir.path.string()).value();
    ASSERT_TRUE(store->save_batch(big));
    ASSERT_TRUE(store->sync());
  }
  std::ifstream file(segments(dir).front(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), {});
  const base::Bytes encoding = codec::encode(big);
  ASSERT_EQ(bytes.size(), 53 + encoding.size());
  EXPECT_EQ(base::to_hex(base::as_bytes(bytes).subspan(53)), base::to_hex(encoding));
  auto reopened = ConsensusStore::open(dir.path.string()).value();
  const auto loaded = reopened->load_batch(consensus::batch_digest(big.header));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, big);
}

// Appends that were never synced may reach the disk in part: such a tail of
// the last segment is cut, and what came before is kept.
TEST(ConsensusStore, ATornTailIsCutAndTheRecordsBeforeItKept) {
  TempDir dir;
  consensus::SafetyState safety;
  safety.last_voted_round = 4;
  {
    auto store = ConsensusStore::open(dir.path.string()).value();
    ASSERT_TRUE(store->save_safety(safety));
    ASSERT_TRUE(store->save_batch(batch(0, 1, 1)));
    ASSERT_TRUE(store->sync());
  }
  const auto last = segments(dir).back();
  const auto whole = std::filesystem::file_size(last);
  // Half a header, then a whole header whose body is missing.
  std::ofstream(last, std::ios::app | std::ios::binary) << std::string(30, '\x07');
  {
    auto store = ConsensusStore::open(dir.path.string()).value();
    EXPECT_EQ(std::filesystem::file_size(last), whole);
    EXPECT_EQ(store->recover().value().safety, safety);
    EXPECT_TRUE(store->load_batch(consensus::batch_digest(batch(0, 1, 1).header)));
    safety.last_voted_round = 5;
    ASSERT_TRUE(store->save_safety(safety));
    ASSERT_TRUE(store->save_batch(batch(0, 2, 2)));
    ASSERT_TRUE(store->sync());
  }
  // A record whose bytes changed after the last one was written: cut too.
  write_bytes(last, std::filesystem::file_size(last) - 1, "\xff");
  auto store = ConsensusStore::open(dir.path.string()).value();
  EXPECT_EQ(store->recover().value().safety, safety);
  EXPECT_FALSE(store->load_batch(consensus::batch_digest(batch(0, 2, 2).header)));
}

// A sealed segment was synced whole before the next began: damage there is
// corruption, refused, never cut.
TEST(ConsensusStore, DamageInASealedSegmentIsRefused) {
  TempDir dir;
  const ConsensusRetention small{256, 4000, 300};
  {
    auto store = ConsensusStore::open(dir.path.string(), {}, small).value();
    for (std::uint64_t seq = 1; seq <= 6; ++seq)
      ASSERT_TRUE(store->save_batch(batch(0, seq, static_cast<std::uint8_t>(seq))));
    ASSERT_TRUE(store->sync());
  }
  const auto files = segments(dir);
  ASSERT_GE(files.size(), 3u);
  // A changed body is caught when the batch is read: never served.
  write_bytes(files[0], 60, "\xee");
  {
    auto store = ConsensusStore::open(dir.path.string(), {}, small).value();
    EXPECT_FALSE(store->load_batch(consensus::batch_digest(batch(0, 1, 1).header)));
    EXPECT_TRUE(store->load_batch(consensus::batch_digest(batch(0, 6, 6).header)));
  }
  // A length running past the end of a sealed segment stops the open.
  write_bytes(files[1], 49, std::string("\x7f\x00\x00\x00", 4));
  const auto refused = ConsensusStore::open(dir.path.string(), {}, small);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, base::Errc::corrupt_store);
  EXPECT_NE(refused.error().reason.find("runs past the end"), std::string::npos) << refused.error().reason;
}

// The layout before the log, one synced file per record, moves into the log.
TEST(ConsensusStore, AdoptsTheFilePerRecordLayout) {
  TempDir dir;
  std::filesystem::create_directories(dir.path / "batches");
  std::filesystem::create_directories(dir.path / "blocks");
  const auto put = [](const std::filesystem::path& path, const base::Bytes& bytes) {
    std::ofstream(path, std::ios::binary) << std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  consensus::SafetyState safety;
  safety.last_voted_round = 77;
  put(dir.path / "safety", codec::encode(safety));
  consensus::Anchor anchor;
  anchor.round = 70;
  anchor.lanes.resize(1);
  put(dir.path / "anchor", codec::encode(anchor));
  const consensus::Batch saved = batch(0, 3, 9);
  put(dir.path / "batches" / ConsensusStore::batch_file_name({0, 3, consensus::batch_digest(saved.header)}),
      codec::encode(saved));
  consensus::ProposalMessage proposal;
  proposal.block.round = 71;
  const Hash block = consensus::block_hash(proposal.block);
  put(dir.path / "blocks" / ConsensusStore::block_file_name(71, block), codec::encode(proposal));
  std::ofstream(dir.path / "batches" / "leftover.tmp") << "half a write";

  auto store = ConsensusStore::open(dir.path.string()).value();
  const auto recovery = store->recover().value();
  EXPECT_EQ(recovery.safety, safety);
  EXPECT_EQ(recovery.anchor, anchor);
  ASSERT_EQ(recovery.batches.size(), 1u);
  EXPECT_EQ(recovery.batches[0], saved);
  ASSERT_TRUE(store->load_block(block));
  EXPECT_EQ(*store->load_block(block), proposal);
  for (const char* name : {"safety", "anchor", "batches", "blocks"})
    EXPECT_FALSE(std::filesystem::exists(dir.path / name));
  // Reopened, the log alone holds them.
  store.reset();
  EXPECT_EQ(ConsensusStore::open(dir.path.string()).value()->recover().value().safety, safety);
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
  // Segments of about three records, so that whole ones fall out.
  const ConsensusRetention retention{2, 10, 400};
  auto store = ConsensusStore::open(dir.path.string(), {}, retention).value();
  consensus::SafetyState safety;
  safety.last_voted_round = 3;
  ASSERT_TRUE(store->save_safety(safety));
  consensus::CommitAction commit;
  commit.anchor.lanes.resize(2);
  for (std::uint64_t seq = 1; seq <= 12; ++seq) {
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
  for (std::uint64_t seq = 1; seq <= 12; ++seq) {
    EXPECT_EQ(
        store->load_batch(consensus::batch_digest(batch(1, seq, static_cast<std::uint8_t>(seq)).header)) != nullptr,
        seq >= 11)
        << seq;
    consensus::ProposalMessage proposal;
    proposal.block.round = seq * 5;
    EXPECT_EQ(store->load_block(consensus::block_hash(proposal.block)) != nullptr, seq >= 11) << seq;
  }
  // Whole segments went: the first ones, and most of all created.
  const auto left = segments(dir);
  ASSERT_FALSE(left.empty());
  const auto created = std::stoul(left.back().stem().string()) + 1;
  EXPECT_NE(left.front().stem().string(), "00000000");
  EXPECT_LE(left.size() * 2, created) << left.size() << " of " << created;
  // The safety state was saved once, in a segment long gone: its copy holds.
  store.reset();
  const auto recovery = ConsensusStore::open(dir.path.string(), {}, retention).value()->recover().value();
  EXPECT_EQ(recovery.safety, safety);
  EXPECT_EQ(recovery.anchor, commit.anchor);
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
