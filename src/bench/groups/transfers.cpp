#include "transfers.hpp"

#include <fmt/format.h>

#include <utility>

#include "sion/exec/genesis.hpp"
#include "sion/exec/precheck_batch.hpp"
#include "sion/exec/tx_builder.hpp"

namespace sion::bench::groups {

base::Result<TransferWorkload> make_senders(std::size_t count) {
  TransferWorkload w;
  w.params.chain_id = 1;
  for (std::size_t i = 0; i < count; ++i) {
    crypto::KeySeed seed{};
    for (std::size_t b = 0; b < 8; ++b) seed[b] = static_cast<std::uint8_t>(i >> (8 * b));
    SION_TRY(auto signer, crypto::SigningBundle::from_seed(crypto::Profile::dual, seed));
    const exec::Id account = exec::account_id(signer.public_bundle());
    const exec::Id coin = exec::genesis_coin_id(static_cast<std::uint32_t>(i));
    w.writes.push_back({account, exec::to_object(exec::Account{signer.id(), 0}, 1)});
    w.writes.push_back({coin, exec::to_object(exec::Coin{account, 1'000'000'000}, 1)});
    w.senders.push_back(std::move(signer));
    w.coins.push_back(coin);
  }
  return w;
}

base::Result<std::vector<exec::Transaction>> sign_transfers(const TransferWorkload& w) {
  std::vector<exec::Transaction> txs;
  txs.reserve(w.senders.size());
  for (std::size_t i = 0; i < w.senders.size(); ++i) {
    const exec::Output pay{exec::account_id(w.senders[(i + 1) % w.senders.size()].public_bundle()), 1000};
    SION_TRY(auto tx, exec::make_transfer(w.senders[i], w.params, 0, {&w.coins[i], 1}, {&pay, 1}));
    txs.push_back(std::move(tx));
  }
  return txs;
}

Verdicts verdicts_of(const std::vector<exec::TxPrecheck>& prechecks) {
  Verdicts verdicts;
  verdicts.reserve(prechecks.size());
  for (const exec::TxPrecheck& precheck : prechecks) verdicts.push_back(precheck.signature_ok);
  return verdicts;
}

std::vector<exec::TxPrecheck> ids_with_verdicts(const std::vector<exec::Transaction>& txs, const Verdicts& verdicts) {
  std::vector<exec::TxPrecheck> prechecks = exec::precheck_ids_batch(txs);
  for (std::size_t i = 0; i < txs.size(); ++i) prechecks[i].signature_ok = verdicts[i];
  return prechecks;
}

base::Status check_all_succeeded(const exec::PulseOutcome& outcome) {
  for (const exec::Receipt& receipt : outcome.receipts) {
    if (receipt.status != exec::TxStatus::success) {
      return base::fail(base::Errc::internal,
                        fmt::format("bench: a transaction ended with {}", exec::status_name(receipt.status)));
    }
  }
  return {};
}

std::string with_commas(std::size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

crypto::KeySeed group_seed(std::uint64_t n, std::uint8_t tag) {
  crypto::KeySeed seed{};
  for (std::size_t b = 0; b < 8; ++b) seed[b] = static_cast<std::uint8_t>(n >> (8 * b));
  seed[31] = tag;
  return seed;
}

Stats per(Stats stats, std::size_t count) {
  stats.median /= static_cast<double>(count);
  stats.p95 /= static_cast<double>(count);
  return stats;
}

double micro_usd(exec::Amount units) {
  return static_cast<double>(units) * static_cast<double>(exec::kDevnetNanoUsdPerUnit) / 1000.0;
}

base::Result<Stats> time_replay(const Context& context, const exec::TracedPulse& traced,
                                std::span<const exec::Transaction> txs, const exec::ChainParams& params,
                                std::uint64_t height, bool check_signatures) {
  if (traced.chunks.empty()) return base::fail(base::Errc::internal, "bench: a traced Pulse without chunks");
  base::Status failed;
  const Stats stats = time_each_call(
      [&] {
        auto at = exec::ReplayPoint::start(traced.chunks.front().witness.pre_root, height);
        for (const auto& chunk : traced.chunks) {
          const std::span<const exec::Transaction> part = txs.subspan(chunk.first_tx, chunk.tx_count);
          auto next = exec::replay_chunk(at, chunk, part, params, check_signatures);
          if (!next) {
            failed = base::fail(std::move(next).error());
            return;
          }
          at = *next;
          do_not_optimize(at.root);
        }
      },
      context.measure_options());
  if (!failed) return base::fail(std::move(failed).error());
  return stats;
}

}  // namespace sion::bench::groups
