// libFuzzer target: what a validator's node reads that consensus does not
// (docs/consensus.md, "The node"): a peer's batch payload, checked before
// approval (decoding, item count, Pulse limits, signatures), and the names
// of the consensus store's files, parsed on every start. Each must give a
// value or refuse with a reason, never crash (nor leak: ASan); a payload
// that checks re-encodes to the same bytes, and a name that parses is
// written back the same. Built with SION_FUZZ_CORPUS_TOOL, the same file
// writes the seed corpus.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "sion/codec/codec.hpp"
#include "sion/node/batch_payload.hpp"
#include "sion/node/consensus_store.hpp"

using namespace sion;

namespace {

// The first byte picks what the rest is.
enum Kind : std::uint8_t { kPayload, kBatchName, kBlockName, kKinds };

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

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
#include <filesystem>

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
  } else {
    fuzz_names(kind, std::string_view(reinterpret_cast<const char*>(rest.data()), rest.size()));
  }
  return 0;
}
#endif
