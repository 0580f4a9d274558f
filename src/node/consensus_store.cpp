#include "sion/node/consensus_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/codec/codec.hpp"
#include "sion/crypto/sha2.hpp"

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
base::Result<T> decode_record(const std::string& path, std::string_view text) {
  auto value = codec::decode<T>(base::as_bytes(text));
  if (!value) {
    return base::fail(Errc::corrupt_store, base::quoted_path(path) + " does not decode: " + value.error().reason);
  }
  return std::move(*value);
}

template <class T>
base::Result<std::optional<T>> read_record(const std::string& path) {
  SION_TRY(const std::optional<std::string> text, read_optional(path));
  if (!text) return std::optional<T>{};
  SION_TRY(T value, decode_record<T>(path, *text));
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
  SION_TRY_STATUS(base::make_directory(directory + "/batches"));
  SION_TRY_STATUS(base::make_directory(directory + "/blocks"));
  SION_TRY_STATUS(base::make_directory(directory + "/evidence"));
  std::unique_ptr<ConsensusStore> store(new ConsensusStore(directory, std::move(write_fault), retention));
  // The names say what each file holds; nothing is read until asked for.
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory + "/batches", error)) {
    if (const auto name = parse_batch_name(entry.path().filename().string()))
      store->batches_.emplace(name->digest, *name);
  }
  if (error)
    return base::fail(Errc::io_error,
                      "cannot list " + base::quoted_path(directory + "/batches") + ": " + error.message());
  for (const auto& entry : std::filesystem::directory_iterator(directory + "/blocks", error)) {
    if (const auto name = parse_block_name(entry.path().filename().string()))
      store->blocks_.emplace(name->hash, name->round);
  }
  if (error)
    return base::fail(Errc::io_error,
                      "cannot list " + base::quoted_path(directory + "/blocks") + ": " + error.message());
  return store;
}

base::Status ConsensusStore::write(const std::string& path, const base::Bytes& bytes) {
  if (write_fault_) SION_TRY_STATUS_CONTEXT("writing " + base::quoted_path(path), write_fault_());
  // Every record is replaced atomically and synced: a batch must be durable
  // before its approval leaves, the safety state before a vote, the anchor
  // after its Pulse.
  return base::replace_file(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                            base::WriteFileOptions{"consensus record", 0600, false});
}

base::Status ConsensusStore::save_safety(const consensus::SafetyState& state) {
  return write(directory_ + "/safety", codec::encode(state));
}

base::Status ConsensusStore::save_batch(const consensus::Batch& batch) {
  const BatchName name{batch.header.author, batch.header.seq, consensus::batch_digest(batch.header)};
  {
    std::lock_guard lock(mutex_);
    if (batches_.contains(name.digest)) return {};  // saved before: the digest fixes the bytes
  }
  SION_TRY_STATUS(write(directory_ + "/batches/" + batch_file_name(name), codec::encode(batch)));
  std::lock_guard lock(mutex_);
  batches_.emplace(name.digest, name);
  return {};
}

std::shared_ptr<const consensus::Batch> ConsensusStore::load_batch(const Hash& digest) {
  std::optional<BatchName> name;
  {
    std::lock_guard lock(mutex_);
    if (const auto found = batches_.find(digest); found != batches_.end()) name = found->second;
  }
  if (!name) return nullptr;
  auto batch = read_record<consensus::Batch>(directory_ + "/batches/" + batch_file_name(*name));
  // A record that cannot be read serves nobody; the peer asks another.
  if (!batch || !*batch || consensus::batch_digest((*batch)->header) != digest) return nullptr;
  return std::make_shared<const consensus::Batch>(std::move(**batch));
}

base::Status ConsensusStore::save_block(const consensus::ProposalMessage& proposal) {
  const Hash hash = consensus::block_hash(proposal.block);
  {
    std::lock_guard lock(mutex_);
    if (blocks_.contains(hash)) return {};
  }
  SION_TRY_STATUS(
      write(directory_ + "/blocks/" + block_file_name(proposal.block.round, hash), codec::encode(proposal)));
  std::lock_guard lock(mutex_);
  blocks_.emplace(hash, proposal.block.round);
  return {};
}

std::shared_ptr<const consensus::ProposalMessage> ConsensusStore::load_block(const Hash& hash) {
  std::optional<consensus::Round> round;
  {
    std::lock_guard lock(mutex_);
    if (const auto found = blocks_.find(hash); found != blocks_.end()) round = found->second;
  }
  if (!round) return nullptr;
  auto block = read_record<consensus::ProposalMessage>(directory_ + "/blocks/" + block_file_name(*round, hash));
  if (!block || !*block || consensus::block_hash((*block)->block) != hash) return nullptr;
  return std::make_shared<const consensus::ProposalMessage>(std::move(**block));
}

base::Status ConsensusStore::save_delivered(const consensus::CommitAction& commit) {
  // Most were saved before this validator approved or voted for them.
  for (const auto& batch : commit.batches) SION_TRY_STATUS(save_batch(*batch));
  if (commit.proposal) SION_TRY_STATUS(save_block(*commit.proposal));
  SION_TRY_STATUS(write(directory_ + "/anchor", codec::encode(commit.anchor)));
  prune(commit.anchor);
  return {};
}

void ConsensusStore::prune(const consensus::Anchor& anchor) {
  std::vector<std::string> doomed;
  {
    std::lock_guard lock(mutex_);
    std::erase_if(batches_, [&](const auto& entry) {
      const BatchName& name = entry.second;
      const bool old =
          name.author < anchor.lanes.size() && name.seq + retention_.batches_per_lane <= anchor.lanes[name.author].seq;
      if (old) doomed.push_back(directory_ + "/batches/" + batch_file_name(name));
      return old;
    });
    std::erase_if(blocks_, [&](const auto& entry) {
      const bool old = entry.second + retention_.rounds <= anchor.round;
      if (old) doomed.push_back(directory_ + "/blocks/" + block_file_name(entry.second, entry.first));
      return old;
    });
  }
  // Losing a removal to a crash only leaves a file for the next prune.
  for (const std::string& path : doomed) {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
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
  return write(directory_ + "/evidence/" + base::to_hex(crypto::sha256(bytes)), bytes);
}

base::Result<std::vector<EvidenceRecord>> ConsensusStore::load_evidence() const {
  std::vector<EvidenceRecord> records;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory_ + "/evidence", error)) {
    const std::string path = entry.path().string();
    if (path.find(".tmp") != std::string::npos) continue;
    SION_TRY(const std::optional<std::string> text, read_optional(path));
    if (!text) continue;
    SION_TRY(const EvidenceFile file, decode_record<EvidenceFile>(path, *text));
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
  SION_TRY(recovery.safety, read_record<consensus::SafetyState>(directory_ + "/safety"));
  SION_TRY(recovery.anchor, read_record<consensus::Anchor>(directory_ + "/anchor"));
  std::vector<BatchName> above;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [digest, name] : batches_) {
      // Delivered ones stay on disk for peers; the core needs only what is
      // above its lanes.
      if (recovery.anchor && name.author < recovery.anchor->lanes.size() &&
          name.seq <= recovery.anchor->lanes[name.author].seq) {
        continue;
      }
      above.push_back(name);
    }
  }
  for (const BatchName& name : above) {
    const std::string path = directory_ + "/batches/" + batch_file_name(name);
    SION_TRY(const std::optional<std::string> text, read_optional(path));
    if (!text) continue;
    SION_TRY(consensus::Batch batch, decode_record<consensus::Batch>(path, *text));
    if (consensus::batch_digest(batch.header) != name.digest) {
      return base::fail(Errc::corrupt_store, base::quoted_path(path) + " holds another batch than its name says");
    }
    recovery.batches.push_back(std::move(batch));
  }
  return recovery;
}

}  // namespace sion::node
