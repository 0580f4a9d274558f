#include "sion/node/consensus_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/codec/codec.hpp"
#include "sion/crypto/sha2.hpp"
#include "sion/node/log.hpp"

namespace sion::node {

namespace {

using base::Errc;
using consensus::Hash;

constexpr std::size_t kMaxRecordBytes = 64u << 20;  // above the largest batch or block

// evidence/<hash>: one EvidenceRecord, its messages in their wire encoding.
struct EvidenceFile {
  std::uint32_t offender = 0;
  codec::VarBytes<4096> what;
  codec::VarBytes<kMaxRecordBytes> first;
  codec::VarBytes<kMaxRecordBytes> second;
  std::uint64_t seen_ms = 0;
  static constexpr std::string_view codec_name = "EvidenceFile";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("offender", &EvidenceFile::offender), codec::field("what", &EvidenceFile::what),
                      codec::field("first", &EvidenceFile::first), codec::field("second", &EvidenceFile::second),
                      codec::field("seen_ms", &EvidenceFile::seen_ms)};
  }
};

// The file's bytes, or nullopt when there is no such file.
base::Result<std::optional<std::string>> read_optional(const std::string& path) {
  auto text = base::read_file(path, base::ReadFileOptions{"consensus record", kMaxRecordBytes});
  if (!text) {
    if (text.error().code == Errc::not_found) return std::optional<std::string>{};
    return base::fail(std::move(text).error());
  }
  return std::optional<std::string>(std::move(*text));
}

template <class T>
base::Result<T> decode_record(std::string_view what, base::ByteView bytes) {
  auto value = codec::decode<T>(bytes);
  if (!value) return base::fail(Errc::corrupt_store, std::string(what) + " does not decode: " + value.error().reason);
  return std::move(*value);
}

template <class T>
base::Result<std::optional<T>> read_record(const std::string& path) {
  SION_TRY(const std::optional<std::string> text, read_optional(path));
  if (!text) return std::optional<T>{};
  SION_TRY(T value, decode_record<T>(base::quoted_path(path), base::as_bytes(*text)));
  return std::optional<T>(std::move(value));
}

// Lower-case hex only: a name has one spelling, the one the store writes.
std::optional<Hash> parse_hash(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  const auto lower_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  if (!std::all_of(hex.begin(), hex.end(), lower_hex)) return std::nullopt;
  auto bytes = base::from_hex(hex);
  if (!bytes || bytes->size() != 32) return std::nullopt;
  Hash hash{};
  std::copy(bytes->begin(), bytes->end(), hash.begin());
  return hash;
}

std::optional<std::uint64_t> parse_number(std::string_view digits) {
  if (digits.size() != 20) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace

// <author, 10 digits>-<seq, 20 digits>-<digest>: listed in lane order, pruned by name.
std::string ConsensusStore::batch_file_name(const BatchName& name) {
  return fmt::format("{:010}-{:020}-{}", name.author, name.seq, base::to_hex(name.digest));
}

std::optional<ConsensusStore::BatchName> ConsensusStore::parse_batch_name(std::string_view text) {
  if (text.size() != 10 + 1 + 20 + 1 + 64 || text[10] != '-' || text[31] != '-') return std::nullopt;
  std::uint64_t author = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + 10, author);
  if (error != std::errc{} || end != text.data() + 10 || author > UINT32_MAX) return std::nullopt;
  const auto seq = parse_number(text.substr(11, 20));
  const auto digest = parse_hash(text.substr(32));
  if (!seq || !digest) return std::nullopt;
  return BatchName{static_cast<std::uint32_t>(author), *seq, *digest};
}

// <round, 20 digits>-<hash>.
std::string ConsensusStore::block_file_name(consensus::Round round, const Hash& hash) {
  return fmt::format("{:020}-{}", round, base::to_hex(hash));
}

std::optional<ConsensusStore::BlockName> ConsensusStore::parse_block_name(std::string_view text) {
  if (text.size() != 20 + 1 + 64 || text[20] != '-') return std::nullopt;
  const auto round = parse_number(text.substr(0, 20));
  const auto hash = parse_hash(text.substr(21));
  if (!round || !hash) return std::nullopt;
  return BlockName{*round, *hash};
}

base::Result<std::unique_ptr<ConsensusStore>> ConsensusStore::open(const std::string& directory,
                                                                   std::function<base::Status()> write_fault,
                                                                   ConsensusRetention retention) {
  SION_TRY_STATUS(base::make_directory(directory));
  SION_TRY_STATUS(base::make_directory(directory + "/evidence"));
  std::unique_ptr<ConsensusStore> store(new ConsensusStore(directory, std::move(write_fault), retention));
  ConsensusStore& s = *store;
  std::optional<LogPlace> safety;
  std::optional<LogPlace> anchor;
  // The index is rebuilt from the record headers; bodies are read when asked for.
  SION_TRY(s.log_, ConsensusLog::open(directory + "/log", retention.segment_bytes, [&](const LogEntry& entry) {
             switch (static_cast<RecordKind>(entry.header.kind)) {
               case RecordKind::safety: safety = entry.place; break;
               case RecordKind::anchor: anchor = entry.place; break;
               case RecordKind::batch:
                 s.index(s.batches_, entry.header.key, {entry.header.author, entry.header.number, entry.place});
                 break;
               case RecordKind::block:
                 s.index(s.blocks_, entry.header.key, {0, entry.header.number, entry.place});
                 break;
             }
           }));
  if (s.log_->cut_bytes() != 0) {
    component_logger("consensus")
        ->warn("the consensus log ended in a record written in part (a crash before it was synced): cut {} bytes",
               s.log_->cut_bytes());
  }
  if (safety) {
    SION_TRY(s.safety_, s.log_->read(*safety));
  }
  if (anchor) {
    SION_TRY(s.anchor_, s.log_->read(*anchor));
  }
  s.segment_ = s.log_->current_segment();
  SION_TRY_STATUS(s.adopt_file_per_record_layout());
  return store;
}

void ConsensusStore::index(Index& index, const Hash& key, IndexEntry entry) {
  const auto [it, inserted] = index.try_emplace(key, entry);
  if (!inserted) {
    --live_[it->second.place.segment];
    it->second = entry;
  }
  ++live_[entry.place.segment];
}

std::optional<base::Bytes> ConsensusStore::read_indexed(const Index& index, const Hash& key) {
  std::optional<LogPlace> place;
  {
    std::lock_guard lock(mutex_);
    if (const auto found = index.find(key); found != index.end()) place = found->second.place;
  }
  if (!place) return std::nullopt;
  // A record that cannot be read serves nobody; the peer asks another.
  auto body = log_->read(*place);
  if (!body) return std::nullopt;
  return std::move(*body);
}

// Stores before the log kept one synced file per record (safety, anchor,
// batches/, blocks/): their records move into the log, which is synced
// before the files go. A crash in between moves the same records again.
base::Status ConsensusStore::adopt_file_per_record_layout() {
  bool found = false;
  SION_TRY(const std::optional<std::string> safety, read_optional(directory_ + "/safety"));
  if (safety) {
    SION_TRY_STATUS(
        decode_record<consensus::SafetyState>(base::quoted_path(directory_ + "/safety"), base::as_bytes(*safety)));
    SION_TRY_STATUS(append_latest(RecordKind::safety, base::Bytes(safety->begin(), safety->end())));
    found = true;
  }
  SION_TRY(const std::optional<std::string> anchor, read_optional(directory_ + "/anchor"));
  if (anchor) {
    SION_TRY_STATUS(
        decode_record<consensus::Anchor>(base::quoted_path(directory_ + "/anchor"), base::as_bytes(*anchor)));
    SION_TRY_STATUS(append_latest(RecordKind::anchor, base::Bytes(anchor->begin(), anchor->end())));
    found = true;
  }
  for (const std::string_view folder : {"batches", "blocks"}) {
    const std::string path = directory_ + "/" + std::string(folder);
    if (!std::filesystem::is_directory(path)) continue;
    found = true;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
      const std::string name = entry.path().filename().string();
      if (folder == "batches") {
        const auto batch_name = parse_batch_name(name);
        if (!batch_name) continue;
        SION_TRY(const std::optional<consensus::Batch> batch, read_record<consensus::Batch>(entry.path().string()));
        if (batch && consensus::batch_digest(batch->header) == batch_name->digest) SION_TRY_STATUS(save_batch(*batch));
      } else {
        const auto block_name = parse_block_name(name);
        if (!block_name) continue;
        SION_TRY(const std::optional<consensus::ProposalMessage> block,
                 read_record<consensus::ProposalMessage>(entry.path().string()));
        if (block && consensus::block_hash(block->block) == block_name->hash) SION_TRY_STATUS(save_block(*block));
      }
    }
    if (error) return base::fail(Errc::io_error, "cannot list " + base::quoted_path(path) + ": " + error.message());
  }
  if (!found) return {};
  SION_TRY_STATUS(log_->sync());
  std::error_code error;
  for (const char* name : {"safety", "anchor", "batches", "blocks"}) {
    std::filesystem::remove_all(directory_ + "/" + name, error);
    if (error) {
      return base::fail(Errc::io_error,
                        "cannot remove " + base::quoted_path(directory_ + "/" + name) + ": " + error.message());
    }
  }
  return {};
}

LogRecordHeader ConsensusStore::record_header(RecordKind kind) {
  LogRecordHeader header;
  header.kind = static_cast<std::uint8_t>(kind);
  return header;
}

base::Result<LogPlace> ConsensusStore::append(RecordKind kind, std::uint32_t author, std::uint64_t number,
                                              const Hash& key, std::span<const base::ByteView> body_parts,
                                              std::string_view what) {
  if (write_fault_) SION_TRY_STATUS_CONTEXT("writing " + std::string(what), write_fault_());
  LogRecordHeader header = record_header(kind);
  header.author = author;
  header.number = number;
  header.key = key;
  SION_TRY_CONTEXT(const LogEntry entry, "writing " + std::string(what), log_->append(header, body_parts));
  if (entry.place.segment != segment_) {
    // A new segment starts with the latest safety state and anchor, so that
    // older segments hold nothing but batches and blocks the retention frees.
    segment_ = entry.place.segment;
    if (safety_ && kind != RecordKind::safety)
      SION_TRY_STATUS(log_->append(record_header(RecordKind::safety), *safety_));
    if (anchor_ && kind != RecordKind::anchor)
      SION_TRY_STATUS(log_->append(record_header(RecordKind::anchor), *anchor_));
    segment_ = log_->current_segment();
  }
  return entry.place;
}

base::Status ConsensusStore::append_latest(RecordKind kind, base::Bytes body) {
  std::lock_guard lock(mutex_);
  SION_TRY_STATUS(append(kind, 0, 0, Hash{}, body, kind == RecordKind::safety ? "the safety state" : "the anchor"));
  (kind == RecordKind::safety ? safety_ : anchor_) = std::move(body);
  return {};
}

base::Status ConsensusStore::sync() { return log_->sync(); }

base::Status ConsensusStore::save_safety(const consensus::SafetyState& state) {
  return append_latest(RecordKind::safety, codec::encode(state));
}

base::Status ConsensusStore::save_batch(const consensus::Batch& batch) {
  const BatchName name{batch.header.author, batch.header.seq, consensus::batch_digest(batch.header)};
  {
    std::lock_guard lock(mutex_);
    if (batches_.contains(name.digest)) return {};  // saved before: the digest fixes the bytes
  }
  // The record body is codec::encode(batch) (docs/consensus.md), written in
  // two parts so that the payload (megabytes) is not copied.
  const base::Bytes prefix = consensus::batch_encoding_prefix(batch);
  const std::array<base::ByteView, 2> parts{base::ByteView(prefix), base::ByteView(batch.payload)};
  std::lock_guard lock(mutex_);
  SION_TRY(const LogPlace place, append(RecordKind::batch, name.author, name.seq, name.digest, parts,
                                        fmt::format("batch {} of validator {}", name.seq, name.author)));
  index(batches_, name.digest, {name.author, name.seq, place});
  return {};
}

std::shared_ptr<const consensus::Batch> ConsensusStore::load_batch(const Hash& digest) {
  const auto body = read_indexed(batches_, digest);
  if (!body) return nullptr;
  auto batch = codec::decode<consensus::Batch>(*body);
  if (!batch || consensus::batch_digest(batch->header) != digest) return nullptr;
  return std::make_shared<const consensus::Batch>(std::move(*batch));
}

base::Status ConsensusStore::save_block(const consensus::ProposalMessage& proposal) {
  const Hash hash = consensus::block_hash(proposal.block);
  {
    std::lock_guard lock(mutex_);
    if (blocks_.contains(hash)) return {};
  }
  const base::Bytes body = codec::encode(proposal);
  std::lock_guard lock(mutex_);
  SION_TRY(const LogPlace place, append(RecordKind::block, 0, proposal.block.round, hash, body,
                                        fmt::format("the block of round {}", proposal.block.round)));
  index(blocks_, hash, {0, proposal.block.round, place});
  return {};
}

std::shared_ptr<const consensus::ProposalMessage> ConsensusStore::load_block(const Hash& hash) {
  const auto body = read_indexed(blocks_, hash);
  if (!body) return nullptr;
  auto block = codec::decode<consensus::ProposalMessage>(*body);
  if (!block || consensus::block_hash(block->block) != hash) return nullptr;
  return std::make_shared<const consensus::ProposalMessage>(std::move(*block));
}

base::Status ConsensusStore::save_delivered(const consensus::CommitAction& commit) {
  // Most were saved before this validator approved or voted for them. None
  // is synced here: the consensus thread's next sync() covers them, and an
  // anchor lost to a crash only makes the node deliver again what its chain
  // already holds.
  for (const auto& batch : commit.batches) SION_TRY_STATUS(save_batch(*batch));
  if (commit.proposal) SION_TRY_STATUS(save_block(*commit.proposal));
  SION_TRY_STATUS(append_latest(RecordKind::anchor, codec::encode(commit.anchor)));
  return prune(commit.anchor);
}

base::Status ConsensusStore::prune(const consensus::Anchor& anchor) {
  std::vector<std::uint32_t> doomed;
  {
    std::lock_guard lock(mutex_);
    std::erase_if(batches_, [&](const auto& entry) {
      const IndexEntry& batch = entry.second;
      const bool old = batch.author < anchor.lanes.size() &&
                       batch.number + retention_.batches_per_lane <= anchor.lanes[batch.author].seq;
      if (old) --live_[entry.second.place.segment];
      return old;
    });
    std::erase_if(blocks_, [&](const auto& entry) {
      const bool old = entry.second.number + retention_.rounds <= anchor.round;
      if (old) --live_[entry.second.place.segment];
      return old;
    });
    // Every segment before the current one starts with nothing the latest
    // safety state and anchor need, so one without live records can go.
    for (const std::uint32_t segment : log_->segments()) {
      if (segment >= segment_) break;
      if (const auto live = live_.find(segment); live == live_.end() || live->second == 0) {
        doomed.push_back(segment);
        live_.erase(segment);
      }
    }
  }
  if (doomed.empty()) return {};
  // The copies in the current segment must be on disk before the originals go.
  SION_TRY_STATUS(log_->sync());
  for (const std::uint32_t segment : doomed) SION_TRY_STATUS(log_->remove_segment(segment));
  return {};
}

base::Status ConsensusStore::save_evidence(const EvidenceRecord& record) {
  EvidenceFile file;
  file.offender = record.offender;
  file.what = base::Bytes(record.what.begin(), record.what.end());
  file.first = consensus::encode_message(record.first);
  file.second = consensus::encode_message(record.second);
  file.seen_ms = record.seen_ms;
  const base::Bytes bytes = codec::encode(file);
  // Named by content: the same evidence twice is one file.
  const std::string path = directory_ + "/evidence/" + base::to_hex(crypto::sha256(bytes));
  if (write_fault_) SION_TRY_STATUS_CONTEXT("writing " + base::quoted_path(path), write_fault_());
  return base::replace_file(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                            base::WriteFileOptions{"consensus evidence", 0600, false});
}

base::Result<std::vector<EvidenceRecord>> ConsensusStore::load_evidence() const {
  std::vector<EvidenceRecord> records;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory_ + "/evidence", error)) {
    const std::string path = entry.path().string();
    if (path.find(".tmp") != std::string::npos) continue;
    SION_TRY(const std::optional<std::string> text, read_optional(path));
    if (!text) continue;
    SION_TRY(const EvidenceFile file, decode_record<EvidenceFile>(base::quoted_path(path), base::as_bytes(*text)));
    SION_TRY_CONTEXT(consensus::Message first, base::quoted_path(path), consensus::decode_message(file.first));
    SION_TRY_CONTEXT(consensus::Message second, base::quoted_path(path), consensus::decode_message(file.second));
    records.push_back(EvidenceRecord{file.offender, std::string(file.what.begin(), file.what.end()), std::move(first),
                                     std::move(second), file.seen_ms});
  }
  if (error) {
    return base::fail(Errc::io_error,
                      "cannot list " + base::quoted_path(directory_ + "/evidence") + ": " + error.message());
  }
  std::sort(records.begin(), records.end(),
            [](const EvidenceRecord& a, const EvidenceRecord& b) { return a.seen_ms < b.seen_ms; });
  return records;
}

base::Result<consensus::Recovery> ConsensusStore::recover() const {
  consensus::Recovery recovery;
  std::vector<LogPlace> above;
  {
    std::lock_guard lock(mutex_);
    if (safety_) {
      SION_TRY(recovery.safety, decode_record<consensus::SafetyState>("the safety state", *safety_));
    }
    if (anchor_) {
      SION_TRY(recovery.anchor, decode_record<consensus::Anchor>("the anchor", *anchor_));
    }
    for (const auto& [digest, entry] : batches_) {
      // Delivered ones stay for peers; the core needs only what is above its lanes.
      if (recovery.anchor && entry.author < recovery.anchor->lanes.size() &&
          entry.number <= recovery.anchor->lanes[entry.author].seq) {
        continue;
      }
      above.push_back(entry.place);
    }
  }
  for (const LogPlace& place : above) {
    SION_TRY(const base::Bytes body, log_->read(place));
    SION_TRY(consensus::Batch batch, decode_record<consensus::Batch>("a saved batch", body));
    recovery.batches.push_back(std::move(batch));
  }
  return recovery;
}

}  // namespace sion::node
