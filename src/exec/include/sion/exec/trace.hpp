#pragma once
// Traced execution and stateless replay (docs/ledger.md, "Tracing and
// stateless replay"). A traced Pulse is cut into chunks; each chunk carries
// a witness: every object it reads or writes (present or absent), with one
// multi-proof of those ids, and of the neighbours of the ids it deletes,
// against the chunk's pre-state root. A replayer holding nothing but the witness re-executes the
// chunk and must reach the chunk's post-state root.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/smt_proof.hpp"
#include "sion/crypto/verify_cache.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/state/object_store.hpp"

namespace sion::exec {

// One id of a witness and what the chunk's pre-state holds under it
// (nullopt: proved absent).
struct WitnessObject {
  Id id{};
  std::optional<state::Object> object;
  static constexpr std::string_view codec_name = "WitnessObject";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("id", &WitnessObject::id), codec::field("object", &WitnessObject::object)};
  }
  bool operator==(const WitnessObject&) const = default;
};

// The objects sorted by id, distinct; the proof is over their ids and the
// neighbours the deletions need (whose leaves it carries: a replayer's key
// set is the objects' ids and the proof's leaf keys).
struct ChunkWitness {
  static constexpr std::size_t kMaxObjects = std::size_t{1} << 20;  // = StateMultiProof::kMaxLeaves
  commit::Hash pre_root{};
  codec::List<WitnessObject, kMaxObjects> objects;
  commit::StateMultiProof proof;
  static constexpr std::string_view codec_name = "ChunkWitness";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("pre_root", &ChunkWitness::pre_root),
                      codec::field("objects", &ChunkWitness::objects), codec::field("proof", &ChunkWitness::proof)};
  }
  bool operator==(const ChunkWitness&) const = default;
};

// Transactions first_tx .. first_tx + tx_count - 1 of a Pulse. usage_before:
// the Pulse's running totals before the chunk (the budget carries across
// chunks); a replayer checks it against where the previous chunk ended
// (ReplayPoint), never takes it on trust.
struct TracedChunk {
  std::uint32_t first_tx = 0;
  std::uint32_t tx_count = 0;
  PulseUsage usage_before;
  ChunkWitness witness;
  commit::Hash post_root{};
  static constexpr std::string_view codec_name = "TracedChunk";
  static constexpr auto codec_fields() {
    return std::tuple{
        codec::field("first_tx", &TracedChunk::first_tx), codec::field("tx_count", &TracedChunk::tx_count),
        codec::field("usage_before", &TracedChunk::usage_before), codec::field("witness", &TracedChunk::witness),
        codec::field("post_root", &TracedChunk::post_root)};
  }
  bool operator==(const TracedChunk&) const = default;
};

// What one chunk may take, checked before any work (docs/ledger.md,
// "Tracing and stateless replay"): its transactions, and its encoding,
// which bounds the witness's objects and proof entries. The tracer stays
// far below both (64 transactions and a 256 KiB witness estimate by
// default; one transfer touches at most a few hundred ids).
inline constexpr std::size_t kMaxChunkTransactions = 1024;
inline constexpr std::size_t kMaxTracedChunkBytes = std::size_t{4} << 20;

// A TracedChunk from bytes: refuses (length_over_max) more than
// kMaxTracedChunkBytes before decoding, then decodes.
base::Result<TracedChunk> decode_traced_chunk(base::ByteView bytes);

struct TraceOptions {
  std::size_t max_txs_per_chunk = 64;          // 1 .. kMaxChunkTransactions
  std::size_t max_witness_bytes = 256u << 10;  // bounds the estimate below; at most kMaxTracedChunkBytes / 2
  base::Executor* executor = nullptr;          // signature checks on it; nullptr: the calling thread
  crypto::VerifyCache* cache = nullptr;
  // As PulseOptions::prechecked: precheck_transactions() of the same
  // transactions under the same params, done earlier.
  const std::vector<TxPrecheck>* prechecked = nullptr;
};

struct TracedPulse {
  PulseOutcome outcome;             // what execute_pulse gives
  std::vector<TracedChunk> chunks;  // in order, covering every transaction
};

// Executes the Pulse as execute_pulse does (same outcome), cutting it into
// chunks. A chunk closes before a transaction that would take it past
// max_txs_per_chunk, or whose witness estimate (exact object bytes plus a
// proof allowance per id that exceeds what a multi-proof spends in practice,
// docs/ledger.md) would pass max_witness_bytes; a single transaction always
// fits. Fails as execute_pulse fails.
base::Result<TracedPulse> trace_pulse(const MemoryState& pre, std::span<const Transaction> transactions,
                                      const ChainParams& params, std::uint64_t height,
                                      const TraceOptions& options = {});

// Where the replay of a Pulse stands between chunks: the Pulse's height,
// the next transaction, the state root and the Pulse's budget totals so
// far. A Pulse's replay starts at ReplayPoint::start(its pre-state root, its
// height, from its header); each chunk must begin
// exactly where the previous one ended, so the same transactions and
// witnesses can replay to one post-state root only, the full node's.
struct ReplayPoint {
  std::uint64_t height = 0;
  std::uint32_t next_tx = 0;
  commit::Hash root{};
  PulseUsage usage;
  static ReplayPoint start(const commit::Hash& pre_root, std::uint64_t height) noexcept {
    return {height, 0, pre_root, {}};
  }
  bool operator==(const ReplayPoint&) const = default;
};

// Replays one chunk from `from` and its witness alone and returns where it
// ends (the claimed post_root, the totals after it). Rejects (invalid_value,
// with the reason) a chunk that does not start at `from` (first_tx,
// pre_root, usage_before), is over kMaxChunkTransactions or
// kMaxTracedChunkBytes, whose proof does not verify against pre_root or
// whose objects do not match it, a read of an id the witness does not
// hold, and a result other than the claimed post_root; invalid_argument for
// a transaction count other than tx_count or a transaction the codec cannot
// encode. check_signatures = false takes every signature as valid (a
// replayer that has checked them elsewhere).
base::Result<ReplayPoint> replay_chunk(const ReplayPoint& from, const TracedChunk& chunk,
                                       std::span<const Transaction> chunk_txs, const ChainParams& params,
                                       bool check_signatures = true);

}  // namespace sion::exec
