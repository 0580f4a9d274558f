#pragma once
// `sion stream ...` (docs/wallet.md, "Streams"): open a payment stream, pay
// through it off the ledger, check payments as the payee, settle, close and
// show one. The files are sion/wallet/stream_files.hpp's; the transactions
// are built with sion/wallet/stream_client.hpp.

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/cli/wallet_commands.hpp"

namespace sion::cli {

// How a command that sends a transaction reaches the node and waits.
struct StreamCommon {
  std::string node = kDefaultNodeUrl;
  std::chrono::seconds timeout{60};
};

struct StreamOpenOptions {
  StreamCommon common;
  std::optional<std::string> from;  // the payer's key file (default: the only one in ~/.sion/keys)
  std::string payee;
  std::uint64_t price = 0;
  std::uint32_t steps = 0;
  std::optional<std::uint64_t> deposit;    // default price * steps
  std::optional<std::uint64_t> expiry;     // an absolute height
  std::optional<std::uint64_t> expiry_in;  // pulses after the node's height (default 1000)
  std::string file;                        // the payer file to write
  std::optional<std::string> offer;        // default <file>.offer.json
};
base::Status run_stream_open(const StreamOpenOptions& options, std::FILE* out, std::FILE* err);

struct StreamPayOptions {
  std::string file;
  std::uint32_t count = 1;
};
base::Status run_stream_pay(const StreamPayOptions& options, std::FILE* out);

// Outcome of `sion stream check`: the lines refused (the exit code says
// whether any was).
struct StreamCheckOptions {
  std::string file;                    // the payee file
  std::optional<std::string> offer;    // start the payee file from this offer
  std::vector<std::string> payments;   // --payment lines; stdin when none
  std::string node = kDefaultNodeUrl;  // read with --offer only
};
// invalid_value "N of M payments refused" when any line was refused or
// malformed (each was printed), after the payee file was saved.
base::Status run_stream_check(const StreamCheckOptions& options, std::FILE* in, std::FILE* out);

struct StreamSettleOptions {
  StreamCommon common;
  std::string file;                 // the payee file
  std::optional<std::string> from;  // the payee's key file
  bool walk = false;
};
base::Status run_stream_settle(const StreamSettleOptions& options, std::FILE* out, std::FILE* err);

struct StreamCloseOptions {
  StreamCommon common;
  std::string stream;
  std::optional<std::string> from;  // the payer's key file
};
base::Status run_stream_close(const StreamCloseOptions& options, std::FILE* out, std::FILE* err);

struct StreamShowOptions {
  std::string stream;
  std::string node = kDefaultNodeUrl;
};
base::Status run_stream_show(const StreamShowOptions& options, std::FILE* out);

// One payment line, "<index> <element hex>" (spaces or tabs between, none
// else); invalid_argument saying what is wrong.
struct PaymentLine {
  std::uint32_t index = 0;
  std::array<std::uint8_t, 32> element{};
};
base::Result<PaymentLine> parse_payment_line(std::string_view line);

}  // namespace sion::cli
