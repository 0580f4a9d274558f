#include "sion/cli/stream_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <utility>

#include "sion/base/bytes.hpp"
#include "sion/base/checked.hpp"
#include "sion/base/file.hpp"
#include "sion/base/random.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/streams/chain.hpp"
#include "sion/streams/payee.hpp"
#include "sion/streams/payer.hpp"
#include "sion/wallet/address.hpp"
#include "sion/wallet/agent_client.hpp"
#include "sion/wallet/node_api.hpp"
#include "sion/wallet/stream_client.hpp"
#include "sion/wallet/stream_files.hpp"

namespace sion::cli {
namespace {

using base::Errc;

// Pulses a stream stays open when neither --expiry nor --expiry-in is given.
constexpr std::uint64_t kDefaultExpiryPulses = 1000;

std::string micro_usd(exec::Amount fee) {
  const std::uint64_t nano = fee * exec::kDevnetNanoUsdPerUnit;  // fees stay far below 2^64 / 50
  return fmt::format("{}.{:03} µUSD at devnet prices", nano / 1000, nano % 1000);
}

base::Result<exec::Id> parse_id(std::string_view option, std::string_view text) {
  auto id = wallet::parse_address(text);
  if (!id) return base::fail(Errc::invalid_argument, std::string(option) + ": " + id.error().reason);
  return *id;
}

base::Status must_be_new(const std::string& path, std::string_view what) {
  std::error_code ignored;
  if (std::filesystem::symlink_status(path, ignored).type() != std::filesystem::file_type::not_found) {
    return base::fail(Errc::invalid_argument, std::string(what) + " " + base::quoted_path(path) + " already exists");
  }
  return {};
}

struct Connection {
  wallet::NodeApi api;
  wallet::NodeStatus status;
};

base::Result<Connection> connect(const std::string& node) {
  SION_TRY(wallet::HttpCall call, http_call_for(node));
  wallet::NodeApi api(std::move(call));
  SION_TRY(wallet::NodeStatus status, api.status());
  return Connection{std::move(api), std::move(status)};
}

// Submits `tx` and waits for its receipt; a receipt other than success is
// an error naming its status.
base::Result<wallet::TxState> submit_and_wait(wallet::NodeApi& api, const StreamCommon& common,
                                              const exec::Transaction& tx, std::FILE* out, std::FILE* err) {
  SION_TRY_STATUS(wallet::submit_or_fail(api, tx));
  const exec::Id id = exec::tx_id(tx.payload);
  std::fputs(
      fmt::format("submitted {} (fee {}, {})\n", base::to_hex(id), tx.payload.fee, micro_usd(tx.payload.fee)).c_str(),
      out);
  std::fflush(out);
  const auto start = std::chrono::steady_clock::now();
  SION_TRY(wallet::TxState state, wallet::wait_for_execution(api, id, common.timeout, err));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  std::fputs(describe_execution(state, waited).c_str(), out);
  if (state.receipt->status != "success") {
    return base::fail(Errc::invalid_value, "the transaction failed: " + state.receipt->status);
  }
  return state;
}

// What the ledger's rules say of a settlement or close before it is sent:
// one they reject is left out of every Pulse and never gets a receipt.
base::Result<wallet::StreamPreview> preview_or_fail(wallet::NodeApi& api, const exec::Transaction& tx,
                                                    std::string_view what, std::FILE* out) {
  SION_TRY(wallet::StreamPreview preview, wallet::preview_stream_tx(api, tx));
  if (preview.status != exec::TxStatus::success) {
    const std::string_view name = exec::status_name(preview.status);
    std::fputs(fmt::format("rejected: {}\n", name).c_str(), out);
    return base::fail(Errc::invalid_value,
                      fmt::format("the {} would be rejected at height {}: {} (status {}); not submitted", what,
                                  preview.height, name, static_cast<unsigned>(preview.status)));
  }
  return preview;
}

// The amount of the coin a receipt created at `index`, as the chain holds
// it now; nullopt if it was spent since.
base::Result<std::optional<exec::Amount>> created_coin(wallet::NodeApi& api, const wallet::TxState& state,
                                                       std::size_t index) {
  if (!state.receipt || index >= state.receipt->coin_ids.size()) return std::optional<exec::Amount>{};
  SION_TRY(const wallet::ObjectReply reply, api.object(state.receipt->coin_ids[index], /*with_proof=*/false));
  if (!reply.object) return std::optional<exec::Amount>{};
  SION_TRY(const ledger::Coin coin, ledger::coin_from(*reply.object));
  return std::optional<exec::Amount>{coin.amount};
}

}  // namespace

base::Result<PaymentLine> parse_payment_line(std::string_view line) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  while (!line.empty() && blank(line.back())) line.remove_suffix(1);
  std::size_t gap = 0;
  while (gap < line.size() && !blank(line[gap])) ++gap;
  if (gap == line.size()) return base::fail(Errc::invalid_argument, "expected '<index> <element hex>'");
  const std::string_view digits = line.substr(0, gap);
  std::string_view hex = line.substr(gap);
  while (!hex.empty() && blank(hex.front())) hex.remove_prefix(1);
  PaymentLine payment;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), payment.index);
  if (error != std::errc{} || end != digits.data() + digits.size() || digits.front() == '+') {
    return base::fail(Errc::invalid_argument,
                      "index '" + std::string(digits.substr(0, 20)) + "' is not a decimal from 0 to 4294967295");
  }
  if (hex.size() != 64) {
    return base::fail(Errc::invalid_argument,
                      "element: expected 64 lower-case hex digits, got " + std::to_string(hex.size()) + " characters");
  }
  const auto bytes = base::from_hex(hex);
  if (!bytes || std::any_of(hex.begin(), hex.end(), [](char c) { return c >= 'A' && c <= 'F'; })) {
    return base::fail(Errc::invalid_argument, "element: expected 64 lower-case hex digits");
  }
  std::copy(bytes->begin(), bytes->end(), payment.element.begin());
  return payment;
}

base::Status run_stream_open(const StreamOpenOptions& options, std::FILE* out, std::FILE* err) {
  if (options.price == 0) return base::fail(Errc::invalid_argument, "--price: must be at least 1");
  if (options.steps == 0) return base::fail(Errc::invalid_argument, "--steps: must be at least 1");
  const auto whole = base::checked_mul(options.price, std::uint64_t{options.steps});
  if (!whole && !options.deposit) {
    return base::fail(Errc::invalid_argument, "--price times --steps passes 2^64 - 1: give --deposit");
  }
  const exec::Amount deposit = options.deposit.value_or(whole.value_or(0));
  if (deposit < options.price) {
    return base::fail(Errc::invalid_argument,
                      fmt::format("--deposit {}: must cover at least one step of {}", deposit, options.price));
  }
  if (whole && deposit > *whole) {
    return base::fail(Errc::invalid_argument,
                      fmt::format("--deposit {}: more than all {} steps cost ({})", deposit, options.steps, *whole));
  }
  SION_TRY(const exec::Id payee, parse_id("--payee", options.payee));
  const std::string offer_path = options.offer.value_or(options.file + ".offer.json");
  SION_TRY_STATUS(must_be_new(options.file, "payer file"));
  SION_TRY_STATUS(must_be_new(offer_path, "offer file"));
  SION_TRY(crypto::SigningBundle signer, signer_of(options.from));
  SION_TRY(Connection node, connect(options.common.node));
  const std::uint64_t height = node.status.height;
  std::uint64_t expiry = 0;
  if (options.expiry) {
    expiry = *options.expiry;
    if (expiry <= height) {
      return base::fail(Errc::invalid_argument,
                        fmt::format("--expiry {}: the chain is at height {} already", expiry, height));
    }
  } else {
    const std::uint64_t pulses = options.expiry_in.value_or(kDefaultExpiryPulses);
    if (pulses == 0) return base::fail(Errc::invalid_argument, "--expiry-in: must be at least 1");
    const auto sum = base::checked_add(height, pulses);
    if (!sum) return base::fail(Errc::invalid_argument, "--expiry-in: the height passes 2^64 - 1");
    expiry = *sum;
  }

  // The seed from the operating system, as key generation draws keys.
  SION_TRY(const streams::Hash seed, base::random_array<32>());
  SION_TRY(const streams::StreamPayer payer, streams::StreamPayer::create(seed, options.steps));
  const wallet::StreamTerms terms{payee, options.price, deposit, expiry};
  const wallet::Sender sender{std::move(signer), std::nullopt};
  SION_TRY(const exec::Transaction tx, wallet::sign_open_stream(node.api, sender, node.status.params, terms, payer));
  const exec::Id stream = streams::stream_id(exec::tx_id(tx.payload));

  // The seed is on disk before the stream can exist: the deposit is only
  // ever paid out through it or closed back after expiry.
  const wallet::PayerFile payer_file{stream, payee, options.price, deposit, expiry, payer.record()};
  SION_TRY_STATUS(wallet::write_new_payer_file(options.file, payer_file));
  SION_TRY_STATUS(
      wallet::write_new_offer_file(offer_path, wallet::OfferFile{stream, payer.length(), payer.checkpoints()}));
  std::fputs(fmt::format("stream {}\npayer file {}, offer file {} (for the payee)\n", base::to_hex(stream),
                         options.file, offer_path)
                 .c_str(),
             out);
  auto executed = submit_and_wait(node.api, options.common, tx, out, err);
  if (!executed) {
    // The node's refusal stays a usage error (2), a failed receipt a failure (1).
    return base::fail(executed.error().code, executed.error().reason + "; the payer file " +
                                                 base::quoted_path(options.file) +
                                                 " names a stream that may not be open: `sion stream show " +
                                                 base::to_hex(stream) + "` tells");
  }
  std::fputs(fmt::format("fee {} ({})\ndeposit {} ({} a step, {} steps, expiry height {})\n", tx.payload.fee,
                         micro_usd(tx.payload.fee), deposit, options.price, options.steps, expiry)
                 .c_str(),
             out);
  return {};
}

base::Status run_stream_pay(const StreamPayOptions& options, std::FILE* out) {
  if (options.count == 0) return base::fail(Errc::invalid_argument, "--count: must be at least 1");
  SION_TRY(wallet::PayerFile file, wallet::read_payer_file(options.file));
  SION_TRY(streams::StreamPayer payer, streams::StreamPayer::resume(file.record));
  // The payee refuses what the deposit does not cover, so the payer does
  // not reveal it.
  const std::uint64_t covered = std::min<std::uint64_t>(file.record.length, file.deposit / file.price);
  const std::uint64_t left = covered > payer.revealed() ? covered - payer.revealed() : 0;
  if (options.count > left) {
    return base::fail(
        Errc::invalid_argument,
        fmt::format("--count {}: {} of the {} payments the deposit covers are left", options.count, left, covered));
  }
  std::string lines;
  for (std::uint32_t i = 0; i < options.count; ++i) {
    SION_TRY(const streams::Payment payment, payer.next());
    lines += fmt::format("{} {}\n", payment.index, base::to_hex(payment.element));
  }
  // Printed before saved: a payment shown twice is refused as a replay,
  // one saved but never shown would be lost to the payee.
  std::fputs(lines.c_str(), out);
  if (std::fflush(out) != 0) return base::fail(Errc::io_error, "could not write the payments to stdout");
  file.record = payer.record();
  return wallet::save_payer_file(options.file, file);
}

base::Status run_stream_check(const StreamCheckOptions& options, std::FILE* in, std::FILE* out) {
  std::optional<streams::StreamPayee> payee;
  if (options.offer) {
    SION_TRY_STATUS(must_be_new(options.file, "payee file"));
    SION_TRY(const wallet::OfferFile offer, wallet::read_offer_file(*options.offer));
    SION_TRY(Connection node, connect(options.node));
    SION_TRY(const std::optional<wallet::StreamState> stream, wallet::fetch_stream(node.api, offer.stream));
    if (!stream) {
      return base::fail(Errc::invalid_value,
                        "stream " + base::to_hex(offer.stream) + " is not on the chain (not opened yet, or finished)");
    }
    if (stream->stream.length != offer.length) {
      return base::fail(Errc::invalid_argument, fmt::format("the offer is for {} steps, the stream on the chain has {}",
                                                            offer.length, stream->stream.length));
    }
    auto opened = streams::StreamPayee::open(offer.stream, stream->stream, offer.checkpoints);
    if (!opened) {
      return base::fail(Errc::invalid_argument,
                        "the offer does not match the stream on the chain: " + opened.error().reason);
    }
    SION_TRY_STATUS(wallet::write_new_payee_file(options.file, opened->record()));
    payee = std::move(*opened);
  } else {
    SION_TRY(streams::PayeeRecord record, wallet::read_payee_file(options.file));
    SION_TRY(streams::StreamPayee resumed, streams::StreamPayee::resume(std::move(record)));
    payee = std::move(resumed);
  }

  std::uint64_t lines = 0;
  std::uint64_t refused = 0;
  const auto check = [&](std::string_view line) {
    ++lines;
    const auto parsed = parse_payment_line(line);
    if (!parsed) {
      ++refused;
      std::fputs(fmt::format("malformed line {}: {}\n", lines, parsed.error().reason).c_str(), out);
      return;
    }
    const streams::PaymentVerdict verdict = payee->accept(streams::Payment{parsed->index, parsed->element});
    if (verdict) {
      std::fputs(fmt::format("accepted {}\n", parsed->index).c_str(), out);
    } else {
      ++refused;
      std::fputs(
          fmt::format("refused {} {}: {}\n", parsed->index, streams::refusal_name(*verdict.refusal), verdict.reason)
              .c_str(),
          out);
    }
  };
  if (!options.payments.empty()) {
    for (const std::string& line : options.payments) check(line);
  } else {
    std::string line;
    for (int c = std::fgetc(in); c != EOF; c = std::fgetc(in)) {
      if (c != '\n') {
        if (line.size() > 256) continue;  // too long to be a payment: refused below as malformed
        line.push_back(static_cast<char>(c));
        continue;
      }
      if (line.find_first_not_of(" \t\r") != std::string::npos) check(line);
      line.clear();
    }
    if (line.find_first_not_of(" \t\r") != std::string::npos) check(line);
  }
  SION_TRY_STATUS(wallet::save_payee_file(options.file, payee->record()));
  std::fputs(fmt::format("accepted up to {}: owed {} since the stream opened\n", payee->accepted(),
                         payee->owed_since(payee->record().terms.settled))
                 .c_str(),
             out);
  if (refused != 0) {
    return base::fail(Errc::invalid_value, fmt::format("{} of {} payments refused", refused, lines));
  }
  return {};
}

base::Status run_stream_settle(const StreamSettleOptions& options, std::FILE* out, std::FILE* err) {
  SION_TRY(streams::PayeeRecord record, wallet::read_payee_file(options.file));
  SION_TRY(const streams::StreamPayee payee, streams::StreamPayee::resume(std::move(record)));
  const exec::Id id = payee.record().stream_id;
  SION_TRY(const crypto::SigningBundle signer, signer_of(options.from));
  SION_TRY(Connection node, connect(options.common.node));
  SION_TRY(const std::optional<wallet::StreamState> stream, wallet::fetch_stream(node.api, id));
  if (!stream) {
    std::fputs("rejected: unknown_stream\n", out);
    return base::fail(Errc::invalid_value, "stream " + base::to_hex(id) +
                                               " is not on the chain (settled to its end or closed): unknown_stream");
  }
  const std::uint32_t settled = stream->stream.settled;
  if (payee.accepted() <= settled) {
    // The ledger would reject it (index_not_above_settled); said here
    // because no settlement can even be built from nothing accepted.
    std::fputs("rejected: index_not_above_settled\n", out);
    return base::fail(Errc::invalid_value,
                      fmt::format("nothing new to settle: payments up to {} were accepted and the stream is settled "
                                  "to {} (index_not_above_settled); not submitted",
                                  payee.accepted(), settled));
  }
  SION_TRY(const exec::SettleStream body, options.walk ? payee.settle_walked(settled) : payee.settle_by_checkpoint());
  SION_TRY(const exec::Transaction tx, wallet::sign_paid_by_stream(node.api, signer, node.status.params, body));
  SION_TRY(const wallet::StreamPreview preview, preview_or_fail(node.api, tx, "settlement", out));
  const exec::Amount owed = exec::Amount{body.index - settled} * stream->stream.price;
  std::fputs(fmt::format("settling payments {} to {} ({}, from {}): owed {}\n", settled + 1, body.index,
                         options.walk ? "walked" : "by checkpoint", body.from, owed)
                 .c_str(),
             out);
  SION_TRY(const wallet::TxState state, submit_and_wait(node.api, options.common, tx, out, err));
  SION_TRY(const std::optional<exec::Amount> paid, created_coin(node.api, state, 0));
  const exec::Amount to_payee = paid.value_or(preview.coins.empty() ? 0 : preview.coins[0]);
  std::fputs(fmt::format("paid to the payee {} (owed {} - fee {}); fee {} ({})\n", to_payee, owed, tx.payload.fee,
                         tx.payload.fee, micro_usd(tx.payload.fee))
                 .c_str(),
             out);
  if (state.receipt->coin_ids.size() > 1) {
    SION_TRY(const std::optional<exec::Amount> refund, created_coin(node.api, state, 1));
    std::fputs(
        fmt::format("the stream is used up: {} returned to the payer\n", refund.value_or(preview.coins.back())).c_str(),
        out);
  }
  return {};
}

base::Status run_stream_close(const StreamCloseOptions& options, std::FILE* out, std::FILE* err) {
  SION_TRY(const exec::Id id, parse_id("--stream", options.stream));
  SION_TRY(const crypto::SigningBundle signer, signer_of(options.from));
  SION_TRY(Connection node, connect(options.common.node));
  SION_TRY(const std::optional<wallet::StreamState> stream, wallet::fetch_stream(node.api, id));
  SION_TRY(const exec::Transaction tx,
           wallet::sign_paid_by_stream(node.api, signer, node.status.params, exec::CloseStream{id}));
  SION_TRY(const wallet::StreamPreview preview, preview_or_fail(node.api, tx, "close", out));
  SION_TRY(const wallet::TxState state, submit_and_wait(node.api, options.common, tx, out, err));
  SION_TRY(const std::optional<exec::Amount> refund, created_coin(node.api, state, 0));
  const exec::Amount deposit = stream ? stream->stream.deposit : 0;
  std::fputs(fmt::format("refund {} to the payer (deposit left {} - fee {}); fee {} ({})\n",
                         refund.value_or(preview.coins.empty() ? 0 : preview.coins[0]), deposit, tx.payload.fee,
                         tx.payload.fee, micro_usd(tx.payload.fee))
                 .c_str(),
             out);
  return {};
}

base::Status run_stream_show(const StreamShowOptions& options, std::FILE* out) {
  SION_TRY(const exec::Id id, parse_id("STREAM", options.stream));
  SION_TRY(const wallet::HttpCall call, http_call_for(options.node));
  SION_TRY(const base::JsonValue view, wallet::fetch_stream_view(call, id));
  const auto text = [&](const char* key) -> std::string {
    if (!view.contains(key)) return "?";
    const base::JsonValue& value = view[key];
    if (value.is_string()) return value.get<std::string>();
    if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
    return value.dump();
  };
  std::fputs(
      fmt::format("stream {}\n"
                  "payer:        {}\n"
                  "payee:        {}\n"
                  "price:        {} a step\n"
                  "length:       {} steps (checkpoint spacing {})\n"
                  "settled:      {}\n"
                  "deposit left: {}\n"
                  "expiry:       height {}\n"
                  "expired:      {} (for the next Pulse; the node is at height {})\n",
                  text("id"), text("payer"), text("payee"), text("price"), text("length"), text("checkpoint_spacing"),
                  text("settled"), text("deposit"), text("expiry_height"), text("expired"), text("height"))
          .c_str(),
      out);
  return {};
}

}  // namespace sion::cli
