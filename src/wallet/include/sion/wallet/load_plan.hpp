#pragma once
// The load generator's transactions, signed before the clock starts: per
// account a chain of dual-signed transfers where transfer k spends the
// change coin of transfer k - 1 (coin_id(tx id, number of outputs):
// docs/ledger.md, "Applying a transaction", step 8 creates the outputs'
// coins first, then the change). Payloads are built in chain order (each
// needs its predecessor's id, which hashes the payload only); the
// signatures, which are nearly all the work, are made on every core of a
// caller's executor.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/executor.hpp"
#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/wallet/node_api.hpp"

namespace sion::wallet {

// An account that sends load and where its chain starts.
struct LoadAccount {
  crypto::SigningBundle signer;
  exec::Id id{};            // account_id of the signer's keys
  std::uint64_t nonce = 0;  // the account's next nonce
  exec::Id coin{};          // the coin the chain spends first
  exec::Amount amount = 0;  // its amount
};

// The accounts of `genesis` that hold coins, with their key files
// `key_dir`/account-NNNN.json (wallet::key_file_name: account i's), each
// starting at nonce 0 from its largest genesis coin (the first of equals);
// at most `max_accounts` of them (0: all). invalid_argument for a key file
// whose keys are not the account's; the key file reader's errors as they are.
base::Result<std::vector<LoadAccount>> load_accounts(const exec::Genesis& genesis, const std::string& key_dir,
                                                     std::size_t max_accounts = 0);

// For a chain that has run: each account's nonce and largest coin as the
// node reports them (GET /v1/accounts/{id}). invalid_value for an account
// the node says has no coins.
base::Status refresh_accounts(NodeApi& api, std::vector<LoadAccount>& accounts);

struct PlanOptions {
  std::uint64_t per_account = 1;  // transfers in each account's chain
  exec::Amount payment = 1000;    // what each transfer pays (at least the mempool's dust threshold)
  crypto::Hedging hedging = crypto::Hedging::hedged;
  base::Executor* executor = nullptr;  // signs on it; nullptr: the calling thread
  // Called on the calling thread between batches: signed so far, total.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

struct PlannedTx {
  exec::Id id{};         // exec::tx_id of its payload
  base::Bytes encoding;  // the signed transaction, as submitted
};

struct LoadPlan {
  // In send order: every account's transfer 0, then every account's
  // transfer 1, ... (an account's transfers are its chain, in nonce order).
  std::vector<PlannedTx> txs;
  std::size_t accounts = 0;
  std::uint64_t per_account = 0;
  exec::Amount fee = 0;  // each transfer's (all have one size)
};

// Account i pays options.payment to account (i + 1) mod n, the rest of its
// coin returning as change to spend next. invalid_argument when an account's
// coin cannot pay per_account transfers with their fees and keep change, or
// for no accounts or per_account 0.
base::Result<LoadPlan> plan_transfers(const std::vector<LoadAccount>& accounts, const exec::ChainParams& params,
                                      const PlanOptions& options);

}  // namespace sion::wallet
