#pragma once
// The Pulse as consensus carries it (docs/ledger.md, "Pulses"): a header
// binding the parent, the transactions, their receipts, the post-state and
// the published data, and a body of transactions. One path builds a Pulse
// (propose_pulse) and checks one (check_pulse): both execute the body the
// same way, so a Pulse its proposer built always passes its followers.

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
#include "sion/commit/merkle_tree.hpp"
#include "sion/da/commitment.hpp"
#include "sion/exec/availability.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/state/object_store.hpp"

namespace sion::exec {

struct PulseHeader {
  std::uint64_t height = 0;    // 0: the genesis header; the first Pulse is 1
  commit::Hash parent{};       // pulse_hash of the header at height - 1 (zeros at 0)
  std::uint64_t time_ms = 0;   // milliseconds since the Unix epoch, as the proposer saw them
  Id proposer{};               // account_id of the proposer's key bundle (zeros at 0)
  commit::Hash params_hash{};  // params_hash(the chain's parameters)
  commit::Hash transactions_root{};
  commit::Hash receipts_root{};
  commit::Hash state_root{};  // after the Pulse
  da::DataCommitment data;    // publish_pulse(body).commitment (zero fields at 0)

  static constexpr std::string_view codec_name = "PulseHeader";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("height", &PulseHeader::height),
                      codec::field("parent", &PulseHeader::parent),
                      codec::field("time_ms", &PulseHeader::time_ms),
                      codec::field("proposer", &PulseHeader::proposer),
                      codec::field("params_hash", &PulseHeader::params_hash),
                      codec::field("transactions_root", &PulseHeader::transactions_root),
                      codec::field("receipts_root", &PulseHeader::receipts_root),
                      codec::field("state_root", &PulseHeader::state_root),
                      codec::field("data", &PulseHeader::data)};
  }
  bool operator==(const PulseHeader&) const = default;
};

// A header's encoding is fixed-size.
inline constexpr std::size_t kPulseHeaderBytes = 8 + 32 + 8 + 32 + 32 + 32 + 32 + 32 + (4 + 8 + 32);

// The transactions root's tree: RFC 6962 shape on SHA3-256, leaf
// H(0x52 ‖ tx id), node H(0x53 ‖ left ‖ right).
inline constexpr commit::TreeHasher kTxRootHasher{commit::HashFunction::sha3_256, commit::Domain::tx_leaf,
                                                  commit::Domain::tx_node};

// H(0x44 ‖ encode(header)).
commit::Hash pulse_hash(const PulseHeader& header);
// The kTxRootHasher tree over the transactions' ids, in order (H() for none).
commit::Hash transactions_root(std::span<const Transaction> transactions);
// H(0x45 ‖ encode(params)).
commit::Hash params_hash(const ChainParams& params);
// The header at height 0 that anchors a chain: the genesis state root and
// the params hash; every other field zero (the empty data commitment has
// original_width 1). Pulse 1's parent is its pulse_hash.
PulseHeader genesis_header(const commit::Hash& genesis_root, const ChainParams& params);

struct Pulse {
  PulseHeader header;
  codec::List<Transaction, kMaxPublishedTransactions> body;

  static constexpr std::string_view codec_name = "Pulse";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("header", &Pulse::header), codec::field("body", &Pulse::body)};
  }
  bool operator==(const Pulse&) const = default;
};

// Decodes a Pulse, refusing (length_over_max) input longer than a header
// and limits.max_bytes of transactions with their list lengths could take,
// before decoding, and (invalid_value) a body of more than
// limits.max_transactions.
base::Result<Pulse> decode_pulse(base::ByteView bytes, const PulseLimits& limits);
// The same bounds for a body alone (list<Transaction>).
base::Result<std::vector<Transaction>> decode_pulse_body(base::ByteView bytes, const PulseLimits& limits);

// The pre-state of a Pulse as proposing and checking need it: reads, and
// the root a write set would give it, without applying it.
class PreState : public StateView {
 public:
  virtual base::Result<commit::Hash> root_after(std::span<const state::ObjectWrite> writes) const = 0;
};

class StorePreState final : public PreState {
 public:
  explicit StorePreState(const state::ObjectStore& store) noexcept : store_(store) {}
  base::Result<std::optional<state::Object>> get(const Id& id) const override { return store_.get(id); }
  base::Result<commit::Hash> root_after(std::span<const state::ObjectWrite> writes) const override {
    return store_.root_after(writes);
  }

 private:
  const state::ObjectStore& store_;
};

class MemoryPreState final : public PreState {
 public:
  explicit MemoryPreState(const MemoryState& state) noexcept : state_(state) {}
  base::Result<std::optional<state::Object>> get(const Id& id) const override { return state_.get(id); }
  base::Result<commit::Hash> root_after(std::span<const state::ObjectWrite> writes) const override;

 private:
  const MemoryState& state_;
};

struct ProposedPulse {
  Pulse pulse;
  PulseOutcome outcome;
  PublishedPulse published;
};

// Builds the Pulse on `parent` from `candidates`, in order, leaving out
// every transaction execution rejects (receipt status 1..63): a body holds
// successes and failures only (docs/ledger.md, "Pulses"). An empty body is
// allowed. Fails with execute_pulse's local failures, and invalid_argument
// when the data cannot be published (publish_pulse) or time_ms is below
// the parent's.
base::Result<ProposedPulse> propose_pulse(const PreState& pre, const PulseHeader& parent,
                                          std::span<const Transaction> candidates, std::uint64_t time_ms,
                                          const Id& proposer, const ChainParams& params,
                                          const PulseOptions& options = {});

struct CheckedPulse {
  PulseOutcome outcome;
  PublishedPulse published;
};

// Re-executes `pulse` on `pre` (the state after `parent`) and returns the
// outcome if the header is exactly what that gives; otherwise
// invalid_value naming the first check that fails (docs/ledger.md, "Pulses",
// "Checking a Pulse"). Local failures (io_error, corrupt_store) pass
// through.
base::Result<CheckedPulse> check_pulse(const PreState& pre, const PulseHeader& parent, const Pulse& pulse,
                                       const ChainParams& params, const PulseOptions& options = {});

}  // namespace sion::exec
