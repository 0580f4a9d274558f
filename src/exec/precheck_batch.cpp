#include "sion/exec/precheck_batch.hpp"

#include <array>
#include <cstring>
#include <vector>

#include "sion/commit/hash.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/transaction.hpp"

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

}  // namespace sion::exec
