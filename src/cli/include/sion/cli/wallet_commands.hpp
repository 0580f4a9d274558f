#pragma once
// The wallet commands that talk to a node (docs/wallet.md): `sion balance`,
// `sion transfer`, `sion tx status`. Each speaks docs/api.md through
// wallet::NodeApi over the HTTP client.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "sion/base/result.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/wallet/api_replies.hpp"
#include "sion/wallet/http_transport.hpp"

namespace sion::cli {

inline constexpr const char* kDefaultNodeUrl = "http://127.0.0.1:8730";

using wallet::http_call_for;

// The key file an option names, or the only one in ~/.sion/keys.
base::Result<crypto::SigningBundle> signer_of(const std::optional<std::string>& key);

// "executed in Pulse H at position I after N ms" and the receipt's line,
// for an executed transaction.
std::string describe_execution(const wallet::TxState& state, std::chrono::milliseconds waited);

struct BalanceOptions {
  std::optional<std::string> key;      // a key file; or
  std::optional<std::string> address;  // an address
  std::string node = kDefaultNodeUrl;
};
base::Status run_balance(const BalanceOptions& options, std::FILE* out);

struct TransferOptions {
  std::optional<std::string> key;  // the sender's key file (default: the only one in ~/.sion/keys)
  std::string to;                  // the payee's address
  std::uint64_t amount = 0;
  std::string node = kDefaultNodeUrl;
  bool wait = true;
  std::chrono::seconds timeout{60};
};
// Builds, signs and submits a transfer, then (unless told not to) waits
// for its execution with a progress line on `err` and prints the receipt.
base::Status run_transfer(const TransferOptions& options, std::FILE* out, std::FILE* err);

struct TxStatusOptions {
  std::string id;
  std::string node = kDefaultNodeUrl;
};
base::Status run_tx_status(const TxStatusOptions& options, std::FILE* out);

struct LightOptions {
  std::string genesis;                // the genesis file: all the light client trusts
  std::optional<std::string> object;  // the object to prove (default: the first genesis account)
  std::uint32_t samples = 16;         // shares sampled per Pulse
  std::uint64_t rounds = 1;           // syncs to make; 0: until interrupted
  std::chrono::milliseconds interval{1000};
  std::string node = kDefaultNodeUrl;
};
// `sion light`: follows the node's signed header log (each new head
// consistent with the last), and for the newest Pulse samples its data
// availability and checks the object's state proof, printing what it
// verified.
base::Status run_light(const LightOptions& options, std::FILE* out);

struct LoadCommandOptions {
  std::string genesis;              // the devnet's genesis file
  std::optional<std::string> keys;  // its key directory (default: keys beside the genesis file)
  std::uint64_t rate = 1000;        // transfers per second
  std::uint64_t duration_s = 10;
  std::size_t accounts = 0;    // senders (0: every account with a key file)
  std::size_t submitters = 4;  // concurrent HTTP connections
  std::uint64_t batch = 1;     // transfers per request (1: POST /v1/transactions)
  std::uint64_t drain_s = 30;
  std::string node = kDefaultNodeUrl;
};
// `sion load`: pre-signs dual-signed transfer chains from many accounts
// (before the clock starts), submits them at the rate for the duration
// with a live progress line on `err`, follows executions on the event
// stream, and prints admitted and executed tx/s and the submit -> executed
// latency percentiles.
base::Status run_load_command(const LoadCommandOptions& options, std::FILE* out, std::FILE* err);

}  // namespace sion::cli
