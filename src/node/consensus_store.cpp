#include "sion/node/consensus_store.hpp"

#include <algorithm>
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

}  // namespace

base::Result<std::unique_ptr<ConsensusStore>> ConsensusStore::open(const std::string& directory,
                                                                   std::function<base::Status()> write_fault) {
  SION_TRY_STATUS(base::make_directory(directory));
  SION_TRY_STATUS(base::make_directory(directory + "/batches"));
  SION_TRY_STATUS(base::make_directory(directory + "/blocks"));
  SION_TRY_STATUS(base::make_directory(directory + "/evidence"));
  return std::unique_ptr<ConsensusStore>(new ConsensusStore(directory, std::move(write_fault)));
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
  return write(directory_ + "/batches/" + base::to_hex(consensus::batch_digest(batch.header)), codec::encode(batch));
}

std::shared_ptr<const consensus::Batch> ConsensusStore::load_batch(const Hash& digest) {
  auto batch = read_record<consensus::Batch>(directory_ + "/batches/" + base::to_hex(digest));
  // A record that cannot be read serves nobody; the peer asks another.
  if (!batch || !*batch || consensus::batch_digest((*batch)->header) != digest) return nullptr;
  return std::make_shared<const consensus::Batch>(std::move(**batch));
}

base::Status ConsensusStore::save_block(const consensus::ProposalMessage& proposal) {
  return write(directory_ + "/blocks/" + base::to_hex(consensus::block_hash(proposal.block)), codec::encode(proposal));
}

std::shared_ptr<const consensus::ProposalMessage> ConsensusStore::load_block(const Hash& hash) {
  auto block = read_record<consensus::ProposalMessage>(directory_ + "/blocks/" + base::to_hex(hash));
  if (!block || !*block || consensus::block_hash((*block)->block) != hash) return nullptr;
  return std::make_shared<const consensus::ProposalMessage>(std::move(**block));
}

base::Status ConsensusStore::save_delivered(const consensus::CommitAction& commit) {
  for (const auto& batch : commit.batches) {
    // Most were saved before this validator approved them.
    std::error_code error;
    if (std::filesystem::exists(directory_ + "/batches/" + base::to_hex(consensus::batch_digest(batch->header)), error))
      continue;
    SION_TRY_STATUS(save_batch(*batch));
  }
  if (commit.proposal) {
    std::error_code error;
    if (!std::filesystem::exists(directory_ + "/blocks/" + base::to_hex(commit.block), error)) {
      SION_TRY_STATUS(save_block(*commit.proposal));
    }
  }
  return write(directory_ + "/anchor", codec::encode(commit.anchor));
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
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory_ + "/batches", error)) {
    const std::string path = entry.path().string();
    if (path.ends_with(".tmp") || path.find(".tmp.") != std::string::npos) continue;  // a write cut short
    SION_TRY(const std::optional<std::string> text, read_optional(path));
    if (!text) continue;
    SION_TRY(consensus::Batch batch, decode_record<consensus::Batch>(path, *text));
    const auto author = batch.header.author;
    if (recovery.anchor && author < recovery.anchor->lanes.size() &&
        batch.header.seq <= recovery.anchor->lanes[author].seq) {
      continue;  // delivered: the core needs only what is above its lanes
    }
    recovery.batches.push_back(std::move(batch));
  }
  if (error) {
    return base::fail(Errc::io_error,
                      "cannot list " + base::quoted_path(directory_ + "/batches") + ": " + error.message());
  }
  return recovery;
}

}  // namespace sion::node
