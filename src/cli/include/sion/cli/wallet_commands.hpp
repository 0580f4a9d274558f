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
#include "sion/wallet/http_call.hpp"

namespace sion::cli {

inline constexpr const char* kDefaultNodeUrl = "http://127.0.0.1:8730";

// A wallet::HttpCall over one HTTP client of `url`; the client connects on
// first use. invalid_argument for a URL that is not http://host[:port].
base::Result<wallet::HttpCall> http_call_for(const std::string& url);

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

}  // namespace sion::cli
