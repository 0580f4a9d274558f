#include "sion/exec/precheck_batch.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "sion/commit/hash.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/exec/fees.hpp"

namespace sion::exec {
namespace {

// The bundle id's tag (docs/crypto.md, "bundle id"); the batch test checks
// every id against crypto::bundle_id.
constexpr std::string_view kBundleIdTag = "sion/key-bundle/v1";

// SHA3-256 of each buffer, those of equal length together in Keccak lanes.
void hash_buffers(const std::vector<base::Bytes>& buffers, crypto::Hash256* out) {
  std::vector<std::size_t> order(buffers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return buffers[a].size() != buffers[b].size() ? buffers[a].size() < buffers[b].size() : a < b;
  });
  std::vector<const std::uint8_t*> inputs;
  std::vector<crypto::Hash256> hashes;
  for (std::size_t start = 0; start < order.size();) {
    const std::size_t length = buffers[order[start]].size();
    std::size_t end = start;
    inputs.clear();
    while (end < order.size() && buffers[order[end]].size() == length) inputs.push_back(buffers[order[end++]].data());
    hashes.resize(inputs.size());
    crypto::sha3_256_many(inputs.data(), length, hashes.data(), inputs.size());
    for (std::size_t k = start; k < end; ++k) out[order[k]] = hashes[k - start];
    start = end;
  }
}

}  // namespace

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
  std::vector<base::Bytes> bundles;
  for (std::size_t i = 0; i < count; ++i) {
    if (!crypto::check_key_bundle(transactions[i].keys)) continue;
    base::Bytes input(kBundleIdTag.begin(), kBundleIdTag.end());
    const base::Bytes encoding = codec::encode(transactions[i].keys);
    input.insert(input.end(), encoding.begin(), encoding.end());
    bundles.push_back(std::move(input));
    keyed.push_back(i);
  }
  std::vector<crypto::Hash256> keys_ids(bundles.size());
  hash_buffers(bundles, keys_ids.data());

  // Coin ids: tx_id || u32 le index for every coin a transfer may create
  // (one per output and one for change), as precheck_ids.
  std::vector<std::array<std::uint8_t, 36>> coin_inputs;
  std::vector<std::size_t> first_coin(count + 1, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& transfer = std::get<Transfer>(transactions[i].payload.body);
    const auto coins = static_cast<std::uint32_t>(transfer.outputs.size() + 1);
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

}  // namespace sion::exec
