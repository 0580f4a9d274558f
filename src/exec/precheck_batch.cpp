#include "sion/exec/precheck_batch.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <variant>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/commit/hash.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/streams/chain.hpp"

namespace sion::exec {

std::vector<TxPrecheck> precheck_ids_batch(std::span<const Transaction> transactions) {
  const std::size_t count = transactions.size();
  std::vector<TxPrecheck> out(count);

  // Transaction ids: the payloads' encodings under the transaction tag.
  codec::EncodingBatch payloads;
  for (const Transaction& tx : transactions) payloads.add(tx.payload);
  std::vector<commit::Hash> tx_ids(count);
  commit::tagged_hashes(commit::Domain::transaction, payloads.views(), tx_ids.data());

  // Key-bundle ids of the well-formed bundles: tag || encoding.
  std::vector<std::size_t> keyed;
  std::vector<const crypto::KeyBundle*> bundles;
  for (std::size_t i = 0; i < count; ++i) {
    if (!crypto::check_key_bundle(transactions[i].keys)) continue;
    bundles.push_back(&transactions[i].keys);
    keyed.push_back(i);
  }
  std::vector<crypto::Hash256> keys_ids(bundles.size());
  crypto::bundle_ids(bundles, keys_ids.data());

  // Coin ids: tx_id || u32 le index for every object the transaction's
  // kind may create (max_created_objects).
  std::vector<std::array<std::uint8_t, 36>> coin_inputs;
  std::vector<std::size_t> first_coin(count + 1, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t coins =
        std::visit([](const auto& body) { return max_created_objects(body); }, transactions[i].payload.body);
    for (std::uint32_t c = 0; c < coins; ++c) {
      std::array<std::uint8_t, 36> input;
      std::memcpy(input.data(), tx_ids[i].data(), 32);
      for (std::size_t b = 0; b < 4; ++b) input[32 + b] = static_cast<std::uint8_t>(c >> (8 * b));
      coin_inputs.push_back(input);
    }
    first_coin[i + 1] = coin_inputs.size();
  }
  std::vector<base::ByteView> coin_views(coin_inputs.begin(), coin_inputs.end());
  std::vector<Id> coin_ids(coin_inputs.size());
  commit::tagged_hashes(commit::Domain::coin, coin_views, coin_ids.data());

  for (std::size_t i = 0; i < count; ++i) {
    out[i].tx_id = tx_ids[i];
    out[i].usage = tx_usage(transactions[i]);
    out[i].coin_ids.assign(coin_ids.begin() + static_cast<std::ptrdiff_t>(first_coin[i]),
                           coin_ids.begin() + static_cast<std::ptrdiff_t>(first_coin[i + 1]));
  }
  for (std::size_t k = 0; k < keyed.size(); ++k) out[keyed[k]].keys_id = keys_ids[k];
  return out;
}

std::vector<std::uint8_t> pick_within_limits(std::span<const Transaction> transactions, const ChainParams& params,
                                             PulseUsage bound) {
  // Sequential and cheap (docs/ledger.md, "Pulse execution"): pick the
  // transactions that can reach step 4, those of this chain with well-formed
  // keys. Budget (step 3) before any costly check: `bound` counts every one
  // picked so far, at least what the sequential pass will have counted (it
  // counts nothing for those it rejects at step 2), so all picked here fit.
  // Past the point where the bound no longer fits, checks are left to the
  // sequential pass, which makes them only for those still within the
  // budget: no proposer can make a node verify or walk more than a Pulse's
  // worth.
  std::vector<std::uint8_t> picked(transactions.size(), 0);
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    const Transaction& tx = transactions[i];
    if (tx.payload.chain_id != params.chain_id) continue;  // wrong_chain
    if (!crypto::check_key_bundle(tx.keys)) continue;      // wrong_keys
    const PulseUsage usage = tx_usage(tx);
    if (!bound.fits(usage, params.limits)) break;
    bound.add(usage);
    picked[i] = 1;
  }
  return picked;
}

void precheck_walks(std::span<const Transaction> transactions, std::span<const std::uint8_t> picked,
                    std::span<TxPrecheck> out, base::Executor* executor) {
  std::vector<std::size_t> settlements;
  std::vector<Id> elements;
  std::vector<std::uint32_t> steps;
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    const auto* body = std::get_if<SettleStream>(&transactions[i].payload.body);
    if (body == nullptr || picked[i] == 0) continue;
    settlements.push_back(i);
    elements.push_back(body->element);
    steps.push_back(streams::walk_steps(*body));
  }
  if (settlements.empty()) return;
  std::vector<Id> ends(settlements.size());
  constexpr std::size_t kPerSlice = 16;  // two rounds of 8 lanes, at least, per thread
  const auto slices =
      static_cast<unsigned>(std::clamp<std::size_t>(settlements.size() / kPerSlice, 1, base::concurrency(executor)));
  base::for_slices(executor, settlements.size(), slices, [&](unsigned, std::size_t first, std::size_t last) {
    const std::size_t n = last - first;
    streams::walk_many(std::span(elements).subspan(first, n), std::span(steps).subspan(first, n), ends.data() + first);
  });
  for (std::size_t k = 0; k < settlements.size(); ++k) out[settlements[k]].body_digest = ends[k];
}

}  // namespace sion::exec
