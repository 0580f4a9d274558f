#include "sion/wallet/load_plan.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <variant>

#include "sion/base/checked.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/wallet/devnet.hpp"
#include "sion/wallet/key_file.hpp"

namespace sion::wallet {
namespace {

using base::Errc;

// The change coin of a transfer with one output: outputs take coin ids
// 0 .. outputs - 1, the change the next (docs/ledger.md, step 8).
constexpr std::uint32_t kChangeIndex = 1;

}  // namespace

base::Result<std::vector<LoadAccount>> load_accounts(const exec::Genesis& genesis, const std::string& key_dir,
                                                     std::size_t max_accounts) {
  std::vector<LoadAccount> out;
  std::uint64_t coin_index = 0;
  for (std::size_t i = 0; i < genesis.accounts.size(); ++i) {
    const auto& account = genesis.accounts[i];
    const std::uint64_t first_coin = coin_index;
    coin_index += account.coins.size();
    if (account.coins.empty() || (max_accounts != 0 && out.size() == max_accounts)) continue;
    const auto largest = std::max_element(account.coins.begin(), account.coins.end());
    const std::string path = key_dir + "/" + key_file_name(i);
    SION_TRY(auto signer, read_key_file(path));
    if (!(signer.public_bundle() == account.keys)) {
      return base::fail(Errc::invalid_argument,
                        "key file '" + path + "' does not hold the keys of genesis account " + std::to_string(i));
    }
    LoadAccount load{std::move(signer), exec::account_id(account.keys), 0, {}, *largest};
    load.coin = exec::genesis_coin_id(
        static_cast<std::uint32_t>(first_coin + static_cast<std::uint64_t>(largest - account.coins.begin())));
    out.push_back(std::move(load));
  }
  return out;
}

base::Status refresh_accounts(NodeApi& api, std::vector<LoadAccount>& accounts) {
  for (auto& account : accounts) {
    SION_TRY(const auto info, api.account(account.id));
    if (info.coins.empty()) {
      return base::fail(Errc::invalid_value, "account " + base::to_hex(account.id) + " has no coins on the node");
    }
    const auto largest = std::max_element(info.coins.begin(), info.coins.end(),
                                          [](const CoinInfo& a, const CoinInfo& b) { return a.amount < b.amount; });
    account.nonce = info.nonce;
    account.coin = largest->id;
    account.amount = largest->amount;
  }
  return {};
}

base::Result<LoadPlan> plan_transfers(const std::vector<LoadAccount>& accounts, const exec::ChainParams& params,
                                      const PlanOptions& options) {
  if (accounts.empty() || options.per_account == 0) {
    return base::fail(Errc::invalid_argument, "a load plan needs at least one account and one transfer per account");
  }
  const std::size_t n = accounts.size();
  const std::uint64_t per = options.per_account;
  const auto total = base::checked_mul(n, per);
  if (!total || *total > (std::uint64_t{1} << 32)) {
    return base::fail(Errc::invalid_argument, "a load plan of at most 2^32 transfers");
  }
  LoadPlan plan;
  plan.accounts = n;
  plan.per_account = per;
  plan.txs.resize(*total);
  const auto slot = [&](std::size_t account, std::uint64_t k) -> PlannedTx& { return plan.txs[k * n + account]; };

  // Transfer 0 of every account through make_transfer, which sets the
  // exact fee; every later transfer has the same size, so the same fee.
  std::vector<std::optional<exec::Transaction>> firsts(n);
  std::vector<base::Error> errors(n);
  base::run_parallel(options.executor, static_cast<unsigned>(n), [&](unsigned a) {
    const auto& account = accounts[a];
    const exec::Output pay{accounts[(a + 1) % n].id, options.payment};
    auto tx = exec::make_transfer(account.signer, params, account.nonce, {&account.coin, 1}, {&pay, 1}, std::nullopt,
                                  options.hedging);
    if (tx) {
      firsts[a] = std::move(tx).value();
    } else {
      errors[a] = std::move(tx).error();
    }
  });
  for (std::size_t a = 0; a < n; ++a) {
    if (!firsts[a]) return base::fail(std::move(errors[a]).with_context("account " + base::to_hex(accounts[a].id)));
  }
  plan.fee = firsts[0]->payload.fee;

  // The payloads, chain by chain.
  std::vector<exec::TxPayload> payloads(*total);
  for (std::size_t a = 0; a < n; ++a) {
    const exec::Amount fee = firsts[a]->payload.fee;
    const auto cost = base::checked_mul(per, fee + options.payment);
    if (fee + options.payment < fee || !cost || accounts[a].amount <= *cost) {
      return base::fail(Errc::invalid_argument,
                        "account " + base::to_hex(accounts[a].id) + " holds a coin of " +
                            std::to_string(accounts[a].amount) + ", not more than " + std::to_string(per) +
                            " transfers of " + std::to_string(options.payment) + " with fee " + std::to_string(fee));
    }
    payloads[a] = firsts[a]->payload;
    slot(a, 0).id = exec::tx_id(payloads[a]);
    slot(a, 0).encoding = codec::encode(*firsts[a]);
    for (std::uint64_t k = 1; k < per; ++k) {
      exec::TxPayload payload = payloads[(k - 1) * n + a];
      payload.nonce += 1;
      const exec::Id previous = slot(a, k - 1).id;
      // A plan holds transfers only: each spends the change of the one before.
      if (auto* transfer = std::get_if<exec::Transfer>(&payload.body)) {
        transfer->inputs = {exec::coin_id(previous, kChangeIndex)};
      }
      slot(a, k).id = exec::tx_id(payload);
      payloads[k * n + a] = std::move(payload);
    }
  }

  // The signatures, in batches on the executor.
  const std::uint64_t rest = *total - n;
  const std::uint64_t batch = std::uint64_t{base::concurrency(options.executor)} * 32;
  std::vector<std::optional<base::Error>> failed(*total);
  if (options.progress) options.progress(n, *total);
  for (std::uint64_t begin = 0; begin < rest; begin += batch) {
    const std::uint64_t end = std::min(rest, begin + batch);
    base::run_parallel(options.executor, static_cast<unsigned>(end - begin), [&](unsigned i) {
      const std::size_t index = n + begin + i;
      auto tx = exec::sign_transaction(accounts[index % n].signer, payloads[index], options.hedging);
      if (!tx) {
        failed[index] = std::move(tx).error();
        return;
      }
      plan.txs[index].encoding = codec::encode(*tx);
    });
    for (std::uint64_t i = begin; i < end; ++i) {
      if (failed[n + i]) return base::fail(std::move(*failed[n + i]).with_context("signing a load transfer"));
    }
    if (options.progress) options.progress(n + end, *total);
  }
  return plan;
}

}  // namespace sion::wallet
