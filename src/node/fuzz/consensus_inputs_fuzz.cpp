// libFuzzer target: what a validator's node reads that consensus does not
// (docs/consensus.md, "The node"): a peer's batch payload, checked before
// approval (decoding, item count, Pulse limits, signatures), the names of
// the earlier file-per-record store, and the consensus log's segments, read
// on every start. Each must give a value or refuse with a reason, never
// crash (nor leak: ASan); a payload that checks re-encodes to the same
// bytes, a name that parses is written back the same, and a log that opens
// takes an append and opens again with it. Built with SION_FUZZ_CORPUS_TOOL, the same file
// writes the seed corpus.

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "sion/codec/codec.hpp"
#include "sion/node/batch_payload.hpp"
#include "sion/node/config.hpp"
#include "sion/node/consensus_store.hpp"
#include "sion/node/log.hpp"

using namespace sion;

namespace {

// The first byte picks what the rest is.
enum Kind : std::uint8_t { kPayload, kBatchName, kBlockName, kLog, kKinds };

void fuzz_payload(base::ByteView bytes) {
  consensus::Batch batch;
  batch.payload = base::Bytes(bytes.begin(), bytes.end());
  const auto payload = node::decode_batch_payload(batch.payload);
  batch.header.item_count = payload ? static_cast<std::uint32_t>(payload->transactions.size()) : 0;
  const ledger::ChainParams params;
  const base::Status checked = node::check_batch(batch, params, nullptr, nullptr);
  if (!checked && (!checked.error().is_invalid_input() || checked.error().reason.empty())) std::abort();
  if (payload && codec::encode(*payload) != batch.payload) std::abort();
}

void fuzz_names(Kind kind, std::string_view text) {
  if (kind == kBatchName) {
    const auto name = node::ConsensusStore::parse_batch_name(text);
    if (name && node::ConsensusStore::batch_file_name(*name) != text) std::abort();
  } else {
    const auto name = node::ConsensusStore::parse_block_name(text);
    if (name && node::ConsensusStore::block_file_name(name->round, name->hash) != text) std::abort();
  }
}

std::filesystem::path log_folder() {
  static const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("sion-fuzz-consensus-log-" + std::to_string(::getpid()));
  return folder;
}

void write_segment(std::uint32_t number, base::ByteView bytes) {
  std::ofstream out(log_folder() / "log" / base::numbered_file_name(number, ".log"), std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The first byte says where a second segment begins (0: one segment).
void fuzz_log(base::ByteView bytes) {
  // A cut tail is logged as a warning: not on every input.
  static const bool quiet = node::setup_logging(node::LogConfig{node::LogLevel::off, {}}, nullptr).ok();
  (void)quiet;
  std::filesystem::remove_all(log_folder());
  std::filesystem::create_directories(log_folder() / "log");
  const std::size_t split = bytes.empty() ? 0 : std::min<std::size_t>(bytes[0] * 8u, bytes.size() - 1);
  const base::ByteView rest = bytes.empty() ? bytes : bytes.subspan(1);
  if (split == 0) {
    write_segment(0, rest);
  } else {
    write_segment(0, rest.first(std::min(split, rest.size())));
    write_segment(1, rest.subspan(std::min(split, rest.size())));
  }
  {
    auto store = node::ConsensusStore::open(log_folder().string());
    if (!store) {
      if (store.error().reason.empty()) std::abort();
      return;
    }
    const auto recovery = (*store)->recover();
    if (!recovery && recovery.error().reason.empty()) std::abort();
    consensus::SafetyState safety;
    safety.last_voted_round = 0x5eed;
    if (!(*store)->save_safety(safety) || !(*store)->sync()) std::abort();
  }
  // What was cut stays cut: the log opens again, with the new record last.
  auto again = node::ConsensusStore::open(log_folder().string());
  if (!again) std::abort();
  const auto recovery = (*again)->recover();
  if (recovery && (!recovery->safety || recovery->safety->last_voted_round != 0x5eed)) std::abort();
}

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::filesystem::create_directories(argv[1]);
  int i = 0;
  const auto write = [&](Kind kind, base::ByteView bytes) {
    std::ofstream out(std::filesystem::path(argv[1]) / ("input-" + std::to_string(i++)), std::ios::binary);
    out.put(static_cast<char>(kind));
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  const auto text = [](std::string_view s) {
    return base::ByteView(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  write(kPayload, codec::encode(node::BatchPayload{}));
  write(kPayload, base::Bytes{0x02, 0x00});
  consensus::Hash hash{};
  hash.fill(0x3c);
  const std::string batch_name = node::ConsensusStore::batch_file_name({2, 17, hash});
  const std::string block_name = node::ConsensusStore::block_file_name(99, hash);
  write(kBatchName, text(batch_name));
  write(kBlockName, text(block_name));
  write(kBatchName, text(batch_name + ".tmp"));
  {
    // A log as a node writes it: a safety state, a batch, an anchor.
    std::filesystem::remove_all(log_folder());
    auto store = node::ConsensusStore::open(log_folder().string()).value();
    consensus::SafetyState safety;
    safety.last_voted_round = 3;
    consensus::Batch batch;
    batch.header.author = 1;
    batch.header.seq = 1;
    consensus::Anchor anchor;
    anchor.lanes.resize(2);
    consensus::CommitAction commit;
    commit.anchor = anchor;
    if (!store->save_safety(safety) || !store->save_batch(batch) || !store->save_delivered(commit) || !store->sync())
      return 1;
    std::ifstream in(log_folder() / "log" / "00000000.log", std::ios::binary);
    const std::string log((std::istreambuf_iterator<char>(in)), {});
    std::string one = std::string(1, '\0') + log;
    write(kLog, text(one));
    std::string two = std::string(1, static_cast<char>(12)) + log;  // a second segment from byte 96
    write(kLog, text(two));
    fuzz_log(text(one));
    std::filesystem::remove_all(log_folder());
  }
  // The seeds pass the target's own checks.
  fuzz_payload(codec::encode(node::BatchPayload{}));
  fuzz_names(kBatchName, batch_name);
  fuzz_names(kBlockName, block_name);
  return node::ConsensusStore::parse_batch_name(batch_name) ? 0 : 1;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto kind = static_cast<Kind>(data[0] % kKinds);
  const base::ByteView rest(data + 1, size - 1);
  if (kind == kPayload) {
    fuzz_payload(rest);
  } else if (kind == kLog) {
    fuzz_log(rest);
  } else {
    fuzz_names(kind, std::string_view(reinterpret_cast<const char*>(rest.data()), rest.size()));
  }
  return 0;
}
#endif
