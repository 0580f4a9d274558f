#pragma once
// A light client (docs/api.md): trusts only a genesis file — its
// validators, parameters and state root — and checks everything else a node
// serves against it:
//
//   sync():        the node's header log head is signed by a genesis
//                  validator (docs/ledger.md, "Signed log heads") and extends
//                  the head trusted so far (an RFC 6962 consistency proof);
//                  the first head trusted must hold the genesis header as
//                  entry 0, so a node cannot present the log of another chain;
//   check_pulse(): a Pulse's header, decoded from the bytes served, hashes
//                  to an entry of the trusted log (an inclusion proof), its
//                  data is available (random share samples against the
//                  header's data commitment) and an object's value (present
//                  or absent) is proven against the header's state root.

#include <cstdint>
#include <optional>
#include <string>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/commit/merkle_log.hpp"
#include "sion/da/commitment.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/state/object_store.hpp"
#include "sion/wallet/node_api.hpp"

namespace sion::wallet {

// The header log: RFC 6962 on SHA3-256 (docs/commit-log.md), entry h the
// pulse_hash of Pulse h's header, entry 0 the genesis header's, so the log
// of a chain at height H has size H + 1 (docs/api.md, "The header log").
inline constexpr const commit::TreeHasher& kHeaderLogHasher = commit::kLogSha3;

// The leaf hash of Pulse `pulse_hash`'s entry: LEAF(the 32-byte hash). The
// one place that says what a header log entry is.
commit::Hash header_log_leaf_hash(const commit::Hash& pulse_hash) noexcept;

struct SyncReport {
  std::optional<commit::TreeHead> previous;  // trusted before this sync
  commit::TreeHead head;                     // the node's signed head
  exec::Id signer{};                         // the genesis validator that signed it
  bool consistency_checked = false;          // a proof was needed and verified
  bool genesis_checked = false;              // entry 0 proven to be the genesis header (first head trusted)
  bool behind = false;  // the node's head is smaller than the trusted one, which is kept (unchecked)
};

struct PulseCheckOptions {
  std::uint32_t samples = 16;               // shares to sample (capped at the square's); 0: no sampling
  std::optional<base::ByteArray<32>> seed;  // for reproducible samples; nullopt: fresh from the OS
  bool availability_header = true;          // also fetch every row and column root and recompute the data root
};

// What check_pulse verified.
struct PulseCheck {
  std::uint64_t height = 0;
  commit::Hash pulse_hash{};
  commit::TreeHead log_head;  // the trusted head the header is included in
  commit::Hash state_root{};
  da::DataCommitment data;
  bool availability_header = false;  // the row and column roots hash to data.data_root
  std::uint32_t samples = 0;         // shares sampled, every one verified
  exec::Id object_id{};
  std::optional<state::Object> object;      // proven present with this value, or absent
  std::optional<commit::Hash> object_hash;  // proven present with this value hash (object: its bytes, if served)
};

// A few lines for people (what `sion light` prints).
std::string describe(const PulseCheck& check);
std::string describe(const SyncReport& report);

class LightClient {
 public:
  // invalid_argument for a genesis without validators (nothing could be
  // checked) or one that check_genesis refuses.
  static base::Result<LightClient> create(exec::Genesis genesis);

  const exec::Genesis& genesis() const noexcept { return genesis_; }
  const commit::Hash& genesis_state_root() const noexcept { return genesis_root_; }
  // pulse_hash(exec::genesis_header(genesis state root, params)): entry 0.
  const commit::Hash& genesis_hash() const noexcept { return genesis_hash_; }
  const std::optional<commit::TreeHead>& trusted_head() const noexcept { return trusted_; }
  // Starts from a head kept from an earlier run (verified then).
  void trust(const commit::TreeHead& head) { trusted_ = head; }

  // Checks the node's chain (chain id and genesis state root of
  // GET /v1/status), fetches its log head, checks the signature and the
  // consistency with the trusted head, and trusts the node's head if it is
  // larger (a node behind cannot prove its head a prefix: the trusted head
  // is kept). The first head trusted (none before, or an empty one) must
  // prove entry 0 to be this genesis's header; later heads extend it.
  // Errors: bad_signature for a head no genesis validator signed;
  // invalid_value for another chain (status or entry 0), an empty or
  // inconsistent head, or a reply that breaks docs/api.md; the transport's
  // errors as they are.
  base::Result<SyncReport> sync(NodeApi& api);

  // Checks Pulse `height` (1 ..= trusted size - 1; sync first) and object
  // `object_id` at that height. invalid_argument before any sync or for a
  // height outside the trusted log; invalid_value for any check that fails,
  // naming it.
  base::Result<PulseCheck> check_pulse(NodeApi& api, std::uint64_t height, const exec::Id& object_id,
                                       const PulseCheckOptions& options = {});

 private:
  LightClient(exec::Genesis genesis, commit::Hash genesis_root, commit::Hash genesis_hash)
      : genesis_(std::move(genesis)), genesis_root_(genesis_root), genesis_hash_(genesis_hash) {}

  // Entry 0 of the log of `head` is genesis_hash_ (an inclusion proof).
  base::Status check_genesis_entry(NodeApi& api, const commit::TreeHead& head) const;

  exec::Genesis genesis_;
  commit::Hash genesis_root_{};
  commit::Hash genesis_hash_{};
  std::optional<commit::TreeHead> trusted_;
};

}  // namespace sion::wallet
