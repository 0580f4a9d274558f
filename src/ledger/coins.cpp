#include "sion/ledger/coins.hpp"

#include <algorithm>
#include <vector>

#include "sion/base/checked.hpp"

namespace sion::ledger {

base::Result<CoinsCheck> check_coins(const Overlay& state, std::span<const Id> inputs, const Id& owner) {
  std::vector<Id> sorted(inputs.begin(), inputs.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return CoinsCheck{TxStatus::duplicate_input, std::nullopt};

  std::vector<Coin> coins;
  coins.reserve(inputs.size());
  for (const Id& input : inputs) {
    SION_TRY(const auto coin, read_coin(state, input));
    if (!coin) return CoinsCheck{TxStatus::unknown_coin, std::nullopt};
    coins.push_back(*coin);
  }
  for (const Coin& coin : coins) {
    if (coin.owner != owner) return CoinsCheck{TxStatus::not_owner, std::nullopt};
  }
  std::optional<Amount> total = 0;
  for (const Coin& coin : coins) total = total ? base::checked_add(*total, coin.amount) : std::nullopt;
  return CoinsCheck{TxStatus::success, total};
}

std::uint32_t spend_coins(Overlay& state, std::span<const Id> inputs, const Id& owner, Amount change,
                          const Id& change_id) {
  for (const Id& input : inputs) state.erase(input);
  if (change == 0) return 0;
  state.put(change_id, to_object(Coin{owner, change}, 1));
  return 1;
}

}  // namespace sion::ledger
