#include "sion/cli/wallet_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include <atomic>
#include <filesystem>
#include "sion/base/executor.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/http/client.hpp"
#include "sion/wallet/address.hpp"
#include "sion/wallet/agent_client.hpp"
#include "sion/wallet/api_replies.hpp"
#include "sion/wallet/key_file.hpp"
#include "sion/wallet/keygen.hpp"
#include "sion/wallet/light_client.hpp"
#include "sion/wallet/load.hpp"
#include "sion/wallet/load_plan.hpp"
#include "sion/wallet/node_api.hpp"
#include "sion/wallet/node_load.hpp"

namespace sion::cli {
using base::Errc;

base::Result<crypto::SigningBundle> signer_of(const std::optional<std::string>& key) {
  if (key) return wallet::read_key_file(*key);
  SION_TRY(const std::string dir, wallet::default_key_directory());
  SION_TRY(const std::string only, wallet::only_key_file(dir));
  return wallet::read_key_file(only);
}

std::string describe_execution(const wallet::TxState& state, std::chrono::milliseconds waited) {
  const wallet::ReceiptInfo& receipt = *state.receipt;
  return fmt::format("executed in Pulse {} at position {} after {} ms\nreceipt: {} (fee paid {}, {} coins created)\n",
                     state.height.value_or(0), state.index.value_or(0), waited.count(), receipt.status,
                     receipt.fee_paid, receipt.coins_created);
}

base::Status run_balance(const BalanceOptions& options, std::FILE* out) {
  exec::Id account{};
  if (options.address) {
    SION_TRY(account, wallet::parse_address(*options.address));
  } else {
    SION_TRY(const crypto::SigningBundle signer, signer_of(options.key));
    account = exec::account_id(signer.public_bundle());
  }
  SION_TRY(wallet::HttpCall call, http_call_for(options.node));
  wallet::NodeApi api(std::move(call));
  SION_TRY(const wallet::AccountInfo info, api.account(account));
  std::fputs(fmt::format("address: {}\nheight:  {}\nbalance: {}\nnonce:   {}\ncoins:   {}\n",
                         wallet::address_to_text(account), info.height, info.balance, info.nonce, info.coins.size())
                 .c_str(),
             out);
  for (const wallet::CoinInfo& coin : info.coins) {
    std::fputs(fmt::format("  {} {}\n", base::to_hex(coin.id), coin.amount).c_str(), out);
  }
  return {};
}

base::Status run_transfer(const TransferOptions& options, std::FILE* out, std::FILE* err) {
  if (options.amount == 0) return base::fail(Errc::invalid_argument, "--amount: must be at least 1");
  SION_TRY(const exec::Id payee, wallet::parse_address(options.to));
  SION_TRY(crypto::SigningBundle signer, signer_of(options.key));
  SION_TRY(wallet::HttpCall call, http_call_for(options.node));
  wallet::NodeApi api(std::move(call));
  SION_TRY(const wallet::NodeStatus status, api.status());
  // Coins sent to an agent's id could never be spent (docs/agents.md): it
  // is funded through its allotment.
  SION_TRY(const std::optional<wallet::AgentState> agent, wallet::fetch_agent(api, payee));
  if (agent) {
    return base::fail(Errc::invalid_argument, "--to " + wallet::address_to_text(payee) +
                                                  " is an agent, which cannot spend coins: fund its allotment "
                                                  "with `sion agent fund`");
  }
  const std::vector<exec::Output> outputs{{payee, options.amount}};
  SION_TRY(const exec::Transaction tx,
           wallet::sign_from(api, wallet::Sender{std::move(signer), std::nullopt}, status.params, options.amount,
                             [&](std::span<const exec::Id> coins) -> exec::TxBody {
                               return exec::Transfer{{coins.begin(), coins.end()}, {outputs.begin(), outputs.end()}};
                             }));
  SION_TRY(const wallet::Submission submission, api.submit(tx));
  if (!submission.admitted()) {
    return base::fail(Errc::invalid_argument, "the node refused the transaction: " + submission.refusal->to_string());
  }
  std::fputs(fmt::format("submitted {} (fee {}){}\n", base::to_hex(submission.tx_id), tx.payload.fee,
                         submission.held ? ", held for a lower nonce" : "")
                 .c_str(),
             out);
  std::fflush(out);
  if (!options.wait) return {};

  const auto start = std::chrono::steady_clock::now();
  SION_TRY(const wallet::TxState state, wallet::wait_for_execution(api, submission.tx_id, options.timeout, err));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  std::fputs(describe_execution(state, waited).c_str(), out);
  const wallet::ReceiptInfo& receipt = *state.receipt;
  if (receipt.status != "success") return base::fail(Errc::invalid_value, "the transfer failed: " + receipt.status);
  return {};
}

base::Status run_tx_status(const TxStatusOptions& options, std::FILE* out) {
  SION_TRY(const exec::Id id, wallet::parse_address(options.id));  // the same 64 hex digits
  SION_TRY(wallet::HttpCall call, http_call_for(options.node));
  wallet::NodeApi api(std::move(call));
  SION_TRY(const wallet::TxState state, api.tx_status(id));
  std::string text = fmt::format("tx {}\nstatus: {}\n", base::to_hex(id), state.status);
  if (state.height) text += fmt::format("pulse:  {} (position {})\n", *state.height, state.index.value_or(0));
  if (state.receipt) {
    text += fmt::format("receipt: {} (fee paid {}, {} coins created)\n", state.receipt->status, state.receipt->fee_paid,
                        state.receipt->coins_created);
  }
  if (state.reason) text += fmt::format("reason: {}\n", *state.reason);
  std::fputs(text.c_str(), out);
  return {};
}

base::Status run_light(const LightOptions& options, std::FILE* out) {
  SION_TRY(exec::Genesis genesis, exec::read_genesis_file(options.genesis));
  exec::Id object = exec::account_id(genesis.accounts.front().keys);
  if (options.object) {
    SION_TRY(object, wallet::parse_address(*options.object));
  }
  SION_TRY(wallet::LightClient client, wallet::LightClient::create(std::move(genesis)));
  SION_TRY(wallet::HttpCall call, http_call_for(options.node));
  wallet::NodeApi api(std::move(call));
  std::uint64_t checked_height = 0;
  for (std::uint64_t round = 0; options.rounds == 0 || round < options.rounds; ++round) {
    if (round != 0) std::this_thread::sleep_for(options.interval);
    SION_TRY(const wallet::SyncReport report, client.sync(api));
    std::fputs((wallet::describe(report) + "\n").c_str(), out);
    const std::uint64_t newest = report.head.size - 1;  // entry 0 is the genesis header
    if (newest == 0 || newest == checked_height) {
      std::fputs(newest == 0 ? "no Pulse yet: nothing more to check\n" : "no new Pulse\n", out);
      std::fflush(out);
      continue;
    }
    wallet::PulseCheckOptions check_options;
    check_options.samples = options.samples;
    SION_TRY(const wallet::PulseCheck check, client.check_pulse(api, newest, object, check_options));
    std::fputs((wallet::describe(check) + "\n").c_str(), out);
    std::fflush(out);
    checked_height = newest;
  }
  return {};
}

base::Status run_load_command(const LoadCommandOptions& options, std::FILE* out, std::FILE* err) {
  SION_TRY(const exec::Genesis genesis, exec::read_genesis_file(options.genesis));
  const std::string key_dir =
      options.keys ? *options.keys : (std::filesystem::path(options.genesis).parent_path() / "keys").string();
  SION_TRY(std::vector<wallet::LoadAccount> accounts, wallet::load_accounts(genesis, key_dir, options.accounts));
  if (accounts.empty()) return base::fail(Errc::invalid_argument, "no account key files in " + key_dir);
  const std::uint64_t total = options.rate * options.duration_s;
  wallet::PlanOptions plan_options;
  base::Executor executor;
  plan_options.executor = &executor;
  plan_options.progress = [err](std::uint64_t done, std::uint64_t all) {
    std::fputs(fmt::format("\rsigning transfers: {}/{}", done, all).c_str(), err);
    std::fflush(err);
  };
  SION_TRY(const wallet::LoadPlan plan, wallet::plan_node_load(options.node, accounts, total, plan_options));
  std::fputs(fmt::format("\nsigned {} dual-signed transfers from {} accounts ({} each)\n", plan.txs.size(),
                         accounts.size(), plan.per_account)
                 .c_str(),
             err);

  wallet::NodeLoadOptions load_options;
  load_options.submitters = options.submitters;
  load_options.load.batch = options.batch;
  load_options.load.rate = options.rate;
  load_options.load.duration_ms = options.duration_s * 1000;
  load_options.load.drain_ms = options.drain_s * 1000;
  const wallet::LoadProgressCallback show = [err](const wallet::LoadProgress& progress) {
    std::fputs(fmt::format("\r{}", wallet::format_progress(progress)).c_str(), err);
    std::fflush(err);
  };
  SION_TRY(const wallet::LoadReport report, wallet::run_node_load(options.node, plan, load_options, show));
  std::fputs("\n", err);
  std::fputs(wallet::format_report(report).c_str(), out);
  return {};
}

}  // namespace sion::cli
