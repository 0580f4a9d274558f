#include "sion/exec/trace.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>
#include <utility>

#include "sion/base/checked.hpp"
#include "sion/commit/smt_partial.hpp"
#include "sion/exec/apply.hpp"
#include "sion/exec/precheck_batch.hpp"

namespace sion::exec {

namespace {

std::string hex(const Id& id) { return base::to_hex(id); }

// Forwards reads to the chunk's pre-state and records the ids asked for:
// exactly the reads the Overlay could not answer from the chunk's writes.
class RecordingView final : public StateView {
 public:
  explicit RecordingView(const StateView& inner) noexcept : inner_(inner) {}
  base::Result<std::optional<state::Object>> get(const Id& id) const override {
    reads_.push_back(id);
    return inner_.get(id);
  }
  std::vector<Id>& reads() const noexcept { return reads_; }

 private:
  const StateView& inner_;
  mutable std::vector<Id> reads_;
};

// An Overlay read as a StateView. Each transaction runs on an Overlay of its
// own over the chunk's, so that one which would overfill the witness can be
// dropped and run again as the first of the next chunk.
class OverlayView final : public StateView {
 public:
  explicit OverlayView(const Overlay& overlay) noexcept : overlay_(overlay) {}
  base::Result<std::optional<state::Object>> get(const Id& id) const override { return overlay_.get(id); }

 private:
  const Overlay& overlay_;
};

// The witness objects only; any other id is an error naming the
// transaction that asked for it.
class WitnessView final : public StateView {
 public:
  explicit WitnessView(const ChunkWitness& witness) noexcept : witness_(witness) {}
  void set_tx(std::size_t index) noexcept { tx_ = index; }
  base::Result<std::optional<state::Object>> get(const Id& id) const override {
    const auto& objects = witness_.objects;
    const auto it = std::lower_bound(objects.begin(), objects.end(), id,
                                     [](const WitnessObject& object, const Id& key) { return object.id < key; });
    if (it == objects.end() || it->id != id) {
      return base::fail(base::Errc::invalid_value, "chunk replay: transaction " + std::to_string(tx_) + " reads " +
                                                       hex(id) + ", which the witness does not hold");
    }
    return it->object;
  }

 private:
  const ChunkWitness& witness_;
  std::size_t tx_ = 0;
};

// Folds one transaction's write set into the chunk's overlay. Every id a
// transaction deletes it has read through the chunk's overlay, so the
// chunk's overlay knows whether its pre-state held it, as in execute_pulse.
void fold(Overlay& chunk, const std::vector<state::ObjectWrite>& writes) {
  for (const auto& write : writes) {
    if (write.object) {
      chunk.put(write.id, *write.object);
    } else {
      chunk.erase(write.id);
    }
  }
}

// The keys a witness's proof covers: its objects' ids (strictly
// increasing, else an error naming the first out of place) and the keys of
// the proof's leaves (the neighbours of deleted ids among them).
base::Result<std::vector<Id>> witness_keys(const ChunkWitness& witness) {
  std::vector<Id> ids;
  ids.reserve(witness.objects.size());
  for (const auto& object : witness.objects) {
    if (!ids.empty() && !(ids.back() < object.id)) {
      return base::fail(base::Errc::invalid_value,
                        "chunk witness: object " + hex(object.id) + " is out of order or repeated");
    }
    ids.push_back(object.id);
  }
  std::vector<Id> leaves;
  leaves.reserve(witness.proof.leaves.size());
  for (const auto& leaf : witness.proof.leaves) leaves.push_back(leaf.key);
  std::sort(leaves.begin(), leaves.end());
  std::vector<Id> keys;
  keys.reserve(ids.size() + leaves.size());
  std::set_union(ids.begin(), ids.end(), leaves.begin(), leaves.end(), std::back_inserter(keys));
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// The witness: the objects under `ids` in `working` (the chunk's
// pre-state) and a multi-proof of `ids` and `neighbours`.
ChunkWitness make_witness(const MemoryState& working, const std::set<Id>& ids, const std::set<Id>& neighbours) {
  ChunkWitness witness;
  witness.pre_root = working.root();
  witness.objects.reserve(ids.size());
  for (const Id& id : ids) {
    const auto it = working.objects().find(id);
    witness.objects.push_back(
        {id, it == working.objects().end() ? std::nullopt : std::optional<state::Object>{it->second}});
  }
  std::set<Id> proven = ids;
  proven.insert(neighbours.begin(), neighbours.end());
  const std::vector<Id> keys(proven.begin(), proven.end());
  if (!keys.empty()) witness.proof = working.tree().prove_many(keys);
  return witness;
}

// Step 6 of a replay (docs/ledger.md): whether the witness's partial tree
// takes the chunk's changes.
bool carries(const ChunkWitness& witness, std::span<const commit::StateChange> changes) {
  const auto keys = witness_keys(witness);
  if (!keys) return false;
  auto tree = commit::PartialStateTree::from_multiproof(witness.pre_root, *keys, witness.proof);
  return tree && tree->apply(changes).ok();
}

// Builds the chunk's witness against `working` (the chunk's pre-state),
// applies its writes and fills the rest of the chunk.
//
// Deletions: a deleted leaf's sibling subtree must be known for the tree to
// re-collapse, and the neighbour sharing the longer prefix with the deleted
// id is the sibling subtree's nearest key. So the witness first proves that
// neighbour alone; if the partial tree then cannot take the writes (a
// deletion emptying a whole subtree needs a key further out), it proves both
// neighbours of every deleted id, which always suffices (the neighbour rule
// of docs/state-tree.md). Either way the replayer checks the same thing.
// Neighbours are proved, not listed as objects: the tree needs their leaves
// only, which the proof carries.
base::Status close_chunk(MemoryState& working, const Overlay& chunk_state, const std::set<Id>& reads,
                         std::set<Id>& touched, TracedChunk& chunk) {
  const auto writes = chunk_state.write_set();
  std::set<Id> ids = reads;
  std::vector<Id> deleted;
  const std::vector<commit::StateChange> changes = state::state_changes(writes);
  for (const auto& write : writes) {
    ids.insert(write.id);
    touched.insert(write.id);
    if (!write.object) deleted.push_back(write.id);
  }
  std::set<Id> sibling_side;
  std::set<Id> both;
  for (const Id& id : deleted) {
    const auto [below, above] = working.tree().neighbours(id);
    if (below) both.insert(*below);
    if (above) both.insert(*above);
    if (below && (!above || commit::common_prefix_bits(id, *below) > commit::common_prefix_bits(id, *above))) {
      sibling_side.insert(*below);
    } else if (above) {
      sibling_side.insert(*above);
    }
  }
  chunk.witness = make_witness(working, ids, sibling_side);
  if (!deleted.empty() && !carries(chunk.witness, changes)) chunk.witness = make_witness(working, ids, both);
  SION_TRY(chunk.post_root, working.apply(writes));
  return {};
}

}  // namespace

base::Result<TracedChunk> decode_traced_chunk(base::ByteView bytes) {
  if (bytes.size() > kMaxTracedChunkBytes) {
    return base::fail(base::Errc::length_over_max, "TracedChunk: " + std::to_string(bytes.size()) +
                                                       " bytes, over the " + std::to_string(kMaxTracedChunkBytes) +
                                                       " a chunk may take");
  }
  return codec::decode<TracedChunk>(bytes);
}

base::Result<TracedPulse> trace_pulse(const MemoryState& pre, std::span<const Transaction> transactions,
                                      const ChainParams& params, std::uint64_t height, const TraceOptions& options) {
  if (options.max_txs_per_chunk == 0 || options.max_txs_per_chunk > kMaxChunkTransactions) {
    return base::fail(base::Errc::invalid_argument,
                      "trace_pulse: chunks of " + std::to_string(options.max_txs_per_chunk) + " transactions (1 to " +
                          std::to_string(kMaxChunkTransactions) + ")");
  }
  if (options.max_witness_bytes > kMaxTracedChunkBytes / 2) {
    return base::fail(base::Errc::invalid_argument, "trace_pulse: a witness estimate of up to " +
                                                        std::to_string(options.max_witness_bytes) + " bytes; at most " +
                                                        std::to_string(kMaxTracedChunkBytes / 2));
  }
  SION_TRY_STATUS(check_encodable(transactions));
  if (transactions.size() > std::size_t{UINT32_MAX}) {
    return base::fail(base::Errc::invalid_argument, "trace_pulse: more than 2^32 - 1 transactions");
  }
  PulseOptions pulse_options;
  pulse_options.executor = options.executor;
  pulse_options.cache = options.cache;
  pulse_options.prechecked = options.prechecked;
  std::vector<TxPrecheck> computed;
  SION_TRY(const auto checked, given_or_fresh_prechecks(transactions, params, pulse_options, "trace_pulse", computed));
  const std::vector<TxPrecheck>& prechecks = *checked;

  TracedPulse traced;
  PulseOutcome& outcome = traced.outcome;
  outcome.receipts.reserve(transactions.size());
  MemoryState working = pre;
  std::set<Id> touched;  // every id some chunk wrote
  std::size_t next = 0;
  while (next < transactions.size()) {
    TracedChunk chunk;
    chunk.first_tx = static_cast<std::uint32_t>(next);
    chunk.usage_before = outcome.usage;
    RecordingView recorder(working);
    Overlay chunk_state(recorder);
    const OverlayView chunk_view(chunk_state);
    std::set<Id> reads;
    // The witness estimate: exact object bytes, plus per id an allowance
    // for its share of the multi-proof: a leaf and a sibling per level of a
    // balanced tree of this size and two more, which the siblings a chunk's
    // keys share keep the real proof well under.
    const std::size_t proof_per_id = 32 * (static_cast<std::size_t>(std::bit_width(working.tree().size())) + 2) + 65;
    std::set<Id> estimated;
    std::size_t estimate = codec::encoded_size(ChunkWitness{});
    const auto cost = [&](const Id& id) {
      const auto it = working.objects().find(id);
      return 33 + proof_per_id + (it == working.objects().end() ? 0 : codec::encoded_size(it->second));
    };
    while (next < transactions.size() && next - chunk.first_tx < options.max_txs_per_chunk) {
      Overlay tx_state(chunk_view);
      PulseUsage usage = outcome.usage;
      recorder.reads().clear();
      SION_TRY(const auto receipt,
               apply_transaction(tx_state, transactions[next], prechecks[next], params, height, usage));
      const auto writes = tx_state.write_set();

      std::vector<Id> fresh;
      std::size_t added = 0;
      const auto consider = [&](const Id& id) {
        if (estimated.contains(id) || std::find(fresh.begin(), fresh.end(), id) != fresh.end()) return;
        fresh.push_back(id);
        added += cost(id);
      };
      for (const Id& id : recorder.reads()) consider(id);
      for (const auto& write : writes) {
        consider(write.id);
        if (write.object) continue;
        const auto [below, above] = working.tree().neighbours(write.id);
        if (below) consider(*below);
        if (above) consider(*above);
      }
      // Past the limit: leave this transaction to the next chunk (its
      // overlay is dropped; the chunk's usage and writes are untouched).
      if (next > chunk.first_tx && estimate + added > options.max_witness_bytes) break;

      estimate += added;
      estimated.insert(fresh.begin(), fresh.end());
      reads.insert(recorder.reads().begin(), recorder.reads().end());
      fold(chunk_state, writes);
      outcome.usage = usage;
      // Fees come out of coins (docs/ledger.md, "Value"): no overflow.
      const auto fees = base::checked_add(outcome.fees, receipt.fee_paid);
      if (!fees) return base::fail(base::Errc::internal, "the Pulse's fees pass 2^64 - 1");
      outcome.fees = *fees;
      outcome.receipts.push_back(receipt);
      ++next;
    }
    chunk.tx_count = static_cast<std::uint32_t>(next - chunk.first_tx);
    SION_TRY_STATUS(close_chunk(working, chunk_state, reads, touched, chunk));
    // The estimate bounds the witness; a single transaction's is far below
    // the cap, so a replayer never refuses a chunk the tracer made.
    if (codec::encoded_size(chunk) > kMaxTracedChunkBytes) {
      return base::fail(base::Errc::internal, "trace_pulse: chunk at transaction " + std::to_string(chunk.first_tx) +
                                                  " is over kMaxTracedChunkBytes");
    }
    traced.chunks.push_back(std::move(chunk));
  }

  // The Pulse's write set: per id any chunk wrote, the final object, or a
  // deletion if the Pulse's pre-state held one (as Overlay::write_set).
  outcome.writes.reserve(touched.size());
  for (const Id& id : touched) {
    const auto it = working.objects().find(id);
    if (it != working.objects().end()) {
      outcome.writes.push_back({id, it->second});
    } else if (pre.objects().contains(id)) {
      outcome.writes.push_back({id, std::nullopt});
    }
  }
  outcome.receipts_root = receipts_root(outcome.receipts);
  return traced;
}

base::Result<ReplayPoint> replay_chunk(const ReplayPoint& from, const TracedChunk& chunk,
                                       std::span<const Transaction> chunk_txs, const ChainParams& params,
                                       bool check_signatures) {
  // Sizes first, before any work that grows with them.
  if (chunk.tx_count > kMaxChunkTransactions) {
    return base::fail(base::Errc::invalid_value, "chunk replay: " + std::to_string(chunk.tx_count) +
                                                     " transactions, over the " +
                                                     std::to_string(kMaxChunkTransactions) + " a chunk may take");
  }
  if (const std::size_t bytes = codec::encoded_size(chunk); bytes > kMaxTracedChunkBytes) {
    return base::fail(base::Errc::invalid_value, "chunk replay: the chunk is " + std::to_string(bytes) +
                                                     " bytes, over the " + std::to_string(kMaxTracedChunkBytes) +
                                                     " a chunk may take");
  }
  // The chunk starts where the previous one ended: its usage_before, like
  // its pre_root, is checked, not trusted (docs/ledger.md, "Replay").
  if (chunk.first_tx != from.next_tx) {
    return base::fail(base::Errc::invalid_value, "chunk replay: the chunk starts at transaction " +
                                                     std::to_string(chunk.first_tx) + ", the replay is at " +
                                                     std::to_string(from.next_tx));
  }
  if (chunk.witness.pre_root != from.root) {
    return base::fail(base::Errc::invalid_value, "chunk replay: pre_root " + hex(chunk.witness.pre_root) +
                                                     " is not the state the replay reached, " + hex(from.root));
  }
  if (chunk.usage_before != from.usage) {
    return base::fail(base::Errc::invalid_value,
                      "chunk replay: usage_before (" + std::to_string(chunk.usage_before.transactions) +
                          " transactions, " + std::to_string(chunk.usage_before.bytes) +
                          " bytes) is not the usage the replay reached (" + std::to_string(from.usage.transactions) +
                          " transactions, " + std::to_string(from.usage.bytes) + " bytes)");
  }
  if (chunk.tx_count > std::size_t{UINT32_MAX} - chunk.first_tx) {
    return base::fail(base::Errc::invalid_value, "chunk replay: first_tx + tx_count passes 2^32 - 1");
  }
  if (chunk_txs.size() != chunk.tx_count) {
    return base::fail(base::Errc::invalid_argument, "chunk replay: " + std::to_string(chunk_txs.size()) +
                                                        " transactions for a chunk of " +
                                                        std::to_string(chunk.tx_count));
  }
  for (std::size_t i = 0; i < chunk_txs.size(); ++i) {
    if (!codec::valid(chunk_txs[i])) {
      return base::fail(base::Errc::invalid_argument, "chunk replay: transaction " +
                                                          std::to_string(chunk.first_tx + i) +
                                                          ": a length or count exceeds its field's maximum");
    }
  }

  // The witness: sorted distinct ids, a proof of those and of its leaves'
  // keys (the deleted ids' neighbours) against pre_root, and objects that
  // hash to what the proof shows.
  const ChunkWitness& witness = chunk.witness;
  SION_TRY(const auto keys, witness_keys(witness));
  auto tree = commit::PartialStateTree::from_multiproof(witness.pre_root, keys, witness.proof);
  if (!tree) {
    return base::fail(base::Errc::invalid_value, "chunk witness: the proof does not verify against pre_root " +
                                                     hex(witness.pre_root) + ": " + tree.error().reason);
  }
  for (const auto& object : witness.objects) {
    SION_TRY(const auto proven, tree->get(object.id));
    const std::optional<commit::Hash> held =
        object.object ? std::optional{state::object_hash(*object.object)} : std::nullopt;
    if (proven != held) {
      return base::fail(base::Errc::invalid_value,
                        "chunk witness: object " + hex(object.id) + " does not match the proof (the witness holds " +
                            (held ? "an object" : "nothing") + ", the proof " +
                            (proven ? "an object with another hash" : "shows it absent") + ")");
    }
  }

  // Re-execution: the Overlay over the witness, as execute_pulse over the
  // full state.
  WitnessView view(witness);
  Overlay state(view);
  // The ids in lanes, and the settlements' walks in lanes for those within
  // the limits from usage_before on, as execute_pulse does (docs/streams.md,
  // "Walks in lanes"); signatures inline.
  std::vector<TxPrecheck> prechecks = precheck_ids_batch(chunk_txs);
  precheck_walks(chunk_txs, pick_within_limits(chunk_txs, params, chunk.usage_before), prechecks, nullptr);
  PulseUsage usage = chunk.usage_before;
  for (std::size_t i = 0; i < chunk_txs.size(); ++i) {
    view.set_tx(chunk.first_tx + i);
    if (!check_signatures) prechecks[i].signature_ok = true;
    SION_TRY_STATUS(apply_transaction(state, chunk_txs[i], prechecks[i], params, from.height, usage));
  }

  auto root = tree->apply(state::state_changes(state.write_set()));
  if (!root) {
    return base::fail(base::Errc::invalid_value,
                      "chunk replay: the witness cannot carry the chunk's writes: " + root.error().reason);
  }
  if (*root != chunk.post_root) {
    return base::fail(base::Errc::invalid_value, "chunk replay: claimed post-state root " + hex(chunk.post_root) +
                                                     " but replay gives " + hex(*root));
  }
  return ReplayPoint{from.height, chunk.first_tx + chunk.tx_count, *root, usage};
}

}  // namespace sion::exec
