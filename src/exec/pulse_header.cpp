#include "sion/exec/pulse_header.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "sion/commit/merkle_log.hpp"
#include "sion/commit/smt_partial.hpp"

namespace sion::exec {
namespace {

base::Failure mismatch(std::string_view field, const std::string& detail = {}) {
  return base::fail(base::Errc::invalid_value,
                    "pulse header: " + std::string(field) + (detail.empty() ? " differs from re-execution" : detail));
}

std::string hex(const commit::Hash& hash) { return base::to_hex(hash); }

// Header, list length (a ULEB128 of at most 5 bytes for 2^24 - 1) and
// max_bytes of transactions.
std::size_t max_pulse_bytes(const PulseLimits& limits) {
  return limits.max_bytes > (SIZE_MAX - kPulseHeaderBytes - 8) ? SIZE_MAX : kPulseHeaderBytes + 8 + limits.max_bytes;
}

base::Status check_count(std::size_t count, const PulseLimits& limits) {
  if (count > limits.max_transactions) {
    return base::fail(base::Errc::invalid_value, "pulse body: " + std::to_string(count) +
                                                     " transactions, above the limit of " +
                                                     std::to_string(limits.max_transactions));
  }
  return {};
}

// The parent link, the height and the time: what needs no execution.
base::Status check_link(const PulseHeader& parent, const PulseHeader& header) {
  if (parent.height == UINT64_MAX || header.height != parent.height + 1) {
    return mismatch("height", std::string(" ") + std::to_string(header.height) + " does not follow the parent's " +
                                  std::to_string(parent.height));
  }
  if (header.parent != pulse_hash(parent)) {
    return mismatch("parent",
                    std::string(" ") + hex(header.parent) + " is not the parent's hash " + hex(pulse_hash(parent)));
  }
  if (header.time_ms < parent.time_ms) {
    return mismatch("time_ms", std::string(" ") + std::to_string(header.time_ms) + " is before the parent's " +
                                   std::to_string(parent.time_ms));
  }
  return {};
}

}  // namespace

commit::Hash pulse_hash(const PulseHeader& header) {
  return commit::tagged_hash(commit::Domain::pulse_header, codec::encode(header));
}

commit::Hash transactions_root(std::span<const Transaction> transactions) {
  std::vector<commit::Hash> leaves;
  leaves.reserve(transactions.size());
  for (const Transaction& tx : transactions) leaves.push_back(kTxRootHasher.leaf(tx_id(tx.payload)));
  commit::MerkleLog tree(kTxRootHasher);
  tree.append_leaf_hashes(leaves);
  return tree.root();
}

commit::Hash params_hash(const ChainParams& params) {
  return commit::tagged_hash(commit::Domain::chain_params, codec::encode(params));
}

PulseHeader genesis_header(const commit::Hash& genesis_root, const ChainParams& params) {
  PulseHeader header;
  header.params_hash = params_hash(params);
  header.state_root = genesis_root;
  return header;
}

base::Result<Pulse> decode_pulse(base::ByteView bytes, const PulseLimits& limits) {
  if (bytes.size() > max_pulse_bytes(limits)) {
    return base::fail(base::Errc::length_over_max,
                      "pulse of " + std::to_string(bytes.size()) + " bytes, above what the limits allow");
  }
  SION_TRY(auto pulse, codec::decode<Pulse>(bytes));
  SION_TRY_STATUS(check_count(pulse.body.size(), limits));
  return pulse;
}

base::Result<std::vector<Transaction>> decode_pulse_body(base::ByteView bytes, const PulseLimits& limits) {
  if (bytes.size() > max_pulse_bytes(limits)) {
    return base::fail(base::Errc::length_over_max,
                      "pulse body of " + std::to_string(bytes.size()) + " bytes, above what the limits allow");
  }
  SION_TRY(auto body, codec::decode<codec::List<Transaction, kMaxPublishedTransactions>>(bytes));
  SION_TRY_STATUS(check_count(body.size(), limits));
  return std::vector<Transaction>(std::move(body));
}

base::Result<commit::Hash> MemoryPreState::root_after(std::span<const state::ObjectWrite> writes) const {
  return commit::root_after(state_.tree(), state::state_changes(writes));
}

base::Result<ProposedPulse> propose_pulse(const PreState& pre, const PulseHeader& parent,
                                          std::span<const Transaction> candidates, std::uint64_t time_ms,
                                          const Id& proposer, const ChainParams& params, const PulseOptions& options) {
  if (time_ms < parent.time_ms) {
    return base::fail(base::Errc::invalid_argument, "pulse time " + std::to_string(time_ms) +
                                                        " is before the parent's " + std::to_string(parent.time_ms));
  }
  std::vector<TxPrecheck> fresh;
  SION_TRY(const auto* prechecks, given_or_fresh_prechecks(candidates, params, options, "propose_pulse", fresh));
  PulseOptions run = options;
  run.prechecked = prechecks;
  SION_TRY(auto outcome, execute_pulse(pre, candidates, params, parent.height + 1, run));

  Pulse pulse;
  std::vector<Transaction>& body = pulse.body;
  std::vector<TxPrecheck> kept_prechecks;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (is_rejection(outcome.receipts[i].status)) continue;
    body.push_back(candidates[i]);
    kept_prechecks.push_back((*prechecks)[i]);
  }
  if (body.size() != candidates.size()) {
    // A rejection writes nothing, so every kept transaction reads the same
    // state; but one rejected after step 3 counted usage, so the kept ones
    // are executed again for the totals (and so that the outcome is the
    // body's, whatever the reasoning).
    run.prechecked = &kept_prechecks;
    SION_TRY(outcome, execute_pulse(pre, body, params, parent.height + 1, run));
  }
  SION_TRY(auto published, publish_pulse(body, options.executor));
  SION_TRY(const auto root, pre.root_after(outcome.writes));

  PulseHeader& header = pulse.header;
  header.height = parent.height + 1;
  header.parent = pulse_hash(parent);
  header.time_ms = time_ms;
  header.proposer = proposer;
  header.params_hash = params_hash(params);
  header.transactions_root = transactions_root(body);
  header.receipts_root = outcome.receipts_root;
  header.state_root = root;
  header.data = published.commitment;
  return ProposedPulse{std::move(pulse), std::move(outcome), std::move(published)};
}

base::Result<CheckedPulse> check_pulse(const PreState& pre, const PulseHeader& parent, const Pulse& pulse,
                                       const ChainParams& params, const PulseOptions& options) {
  const PulseHeader& header = pulse.header;
  SION_TRY_STATUS(check_link(parent, header));
  if (header.params_hash != params_hash(params)) return mismatch("params_hash");
  SION_TRY_STATUS(check_count(pulse.body.size(), params.limits));
  SION_TRY_STATUS(check_encodable(pulse.body));
  if (header.transactions_root != transactions_root(pulse.body)) return mismatch("transactions_root");

  SION_TRY(auto outcome, execute_pulse(pre, pulse.body, params, header.height, options));
  for (std::size_t i = 0; i < outcome.receipts.size(); ++i) {
    const TxStatus status = outcome.receipts[i].status;
    if (is_rejection(status)) {
      return base::fail(base::Errc::invalid_value, "pulse body: transaction " + std::to_string(i) + " is rejected (" +
                                                       std::string(status_name(status)) +
                                                       "); a Pulse holds no rejected transaction");
    }
  }
  if (header.receipts_root != outcome.receipts_root) return mismatch("receipts_root");
  SION_TRY(const auto root, pre.root_after(outcome.writes));
  if (header.state_root != root) return mismatch("state_root");
  auto published = publish_pulse(pulse.body, options.executor);
  if (!published) {
    return base::fail(base::Errc::invalid_value, "pulse body: cannot be published: " + published.error().reason);
  }
  if (header.data != published->commitment) return mismatch("data");
  return CheckedPulse{std::move(outcome), std::move(*published)};
}

}  // namespace sion::exec
