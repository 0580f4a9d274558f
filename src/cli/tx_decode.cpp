#include "sion/cli/tx_decode.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <span>
#include <variant>

#include "sion/codec/codec.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/crypto/verify_units.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/node/json_views.hpp"

namespace sion::cli {
namespace {

using ordered_json = nlohmann::ordered_json;

// Far above the largest transaction (four 2,592-byte keys and four
// 35,664-byte signatures), as hex with line breaks.
constexpr std::size_t kMaxInputFileBytes = 1u << 20;

bool is_hex_text(std::string_view text) {
  const bool digits_only = std::all_of(text.begin(), text.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0 || std::isspace(static_cast<unsigned char>(c)) != 0;
  });
  return digits_only && std::any_of(text.begin(), text.end(),
                                    [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

base::Result<base::Bytes> from_hex_text(std::string_view text, const std::string& what) {
  std::string hex;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0)
      hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  auto bytes = base::from_hex(hex);
  if (!bytes) return base::fail(base::Errc::invalid_argument, what + ": " + bytes.error().reason);
  return bytes;
}

// The whole of a regular file. O_NONBLOCK: opening a FIFO must not wait for
// a writer; it is then refused as not a regular file.
base::Result<std::string> read_small_file(const std::string& path, int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return base::fail(base::Errc::invalid_argument, "'" + path + "' is not a regular file");
  }
  std::string text;
  char buffer[16384];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      return base::fail(base::Errc::io_error, fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    if (got == 0) return text;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > kMaxInputFileBytes) {
      return base::fail(
          base::Errc::invalid_argument,
          fmt::format("'{}' is larger than {} bytes, too large for a transaction", path, kMaxInputFileBytes));
    }
  }
}

std::string hex(base::ByteView bytes) { return base::to_hex(bytes); }

ordered_json id_list(std::span<const exec::Id> ids) {
  ordered_json out = ordered_json::array();
  for (const exec::Id& id : ids) out.push_back(hex(id));
  return out;
}

// One overload per kind: a new kind of body fails to compile here until it
// is described.
struct BodyDescriber {
  ordered_json operator()(const exec::Transfer& transfer) const {
    ordered_json outputs = ordered_json::array();
    for (const exec::Output& output : transfer.outputs) {
      outputs.push_back(ordered_json{{"owner", hex(output.owner)}, {"amount", output.amount}});
    }
    return ordered_json{{"kind", "transfer"}, {"inputs", id_list(transfer.inputs)}, {"outputs", outputs}};
  }
  ordered_json operator()(const exec::SpawnAgent& b) const {
    return ordered_json{{"kind", "spawn_agent"},
                        {"index", b.index},
                        {"authority", node::authority_json(b.authority)},
                        {"caveats", node::caveats_json(b.caveats)},
                        {"allotment", b.allotment},
                        {"coins", id_list(b.coins)}};
  }
  ordered_json operator()(const exec::FundAgent& b) const {
    return ordered_json{
        {"kind", "fund_agent"}, {"agent", hex(b.agent)}, {"amount", b.amount}, {"coins", id_list(b.coins)}};
  }
  ordered_json operator()(const exec::AgentPay& b) const {
    return ordered_json{{"kind", "agent_pay"}, {"payee", hex(b.payee)}, {"amount", b.amount}};
  }
  ordered_json operator()(const exec::OpenBatch& b) const {
    return ordered_json{{"kind", "open_batch"},
                        {"root", hex(b.root)},
                        {"count", b.count},
                        {"expiry_height", b.expiry_height},
                        {"coins", id_list(b.coins)}};
  }
  ordered_json operator()(const exec::SpawnCohort& b) const {
    return ordered_json{
        {"kind", "spawn_cohort"},
        {"index", b.index},
        {"controller", hex(b.controller)},
        {"caveats", node::caveats_json(b.caveats)},
        {"members",
         ordered_json{{"root", hex(b.members.root)}, {"total", b.members.total}, {"count", b.members.count}}},
        {"coins", id_list(b.coins)}};
  }
  ordered_json operator()(const exec::MaterializeAgents& b) const {
    ordered_json members = ordered_json::array();
    for (const agents::CohortMember& m : b.members) {
      members.push_back(ordered_json{{"index", m.index},
                                     {"caveats", node::caveats_json(m.caveats)},
                                     {"allotment", m.allotment},
                                     {"proof_siblings", m.proof.path.size()}});
    }
    return ordered_json{
        {"kind", "materialize_agents"}, {"cohort", hex(b.cohort)}, {"members", members}, {"coins", id_list(b.coins)}};
  }
  ordered_json operator()(const exec::Restrict& b) const {
    ordered_json action;
    if (std::holds_alternative<agents::Revoke>(b.action)) {
      action = ordered_json{{"revoke", true}};
    } else if (const auto* suspend = std::get_if<agents::Suspend>(&b.action)) {
      action = ordered_json{{"suspend_until", suspend->until_height}};
    } else {
      action = ordered_json{{"narrow", node::narrowing_json(std::get<agents::Narrow>(b.action).narrowing)}};
    }
    return ordered_json{
        {"kind", "restrict"}, {"target", hex(b.target)}, {"action", action}, {"coins", id_list(b.coins)}};
  }
  ordered_json operator()(const exec::OpenStream& b) const {
    return ordered_json{{"kind", "open_stream"},    {"payee", hex(b.payee)},
                        {"price", b.price},         {"length", b.length},
                        {"anchor", hex(b.anchor)},  {"checkpoints", hex(b.checkpoints)},
                        {"deposit", b.deposit},     {"expiry_height", b.expiry_height},
                        {"coins", id_list(b.coins)}};
  }
  ordered_json operator()(const exec::SettleStream& b) const {
    ordered_json out{{"kind", "settle_stream"},
                     {"stream", hex(b.stream)},
                     {"from", b.from},
                     {"index", b.index},
                     {"element", hex(b.element)}};
    if (b.path) {
      out["path"] = id_list(*b.path);
    } else {
      out["path"] = nullptr;  // walked
    }
    return out;
  }
  ordered_json operator()(const exec::CloseStream& b) const {
    return ordered_json{{"kind", "close_stream"}, {"stream", hex(b.stream)}};
  }
};

ordered_json describe_body(const exec::TxBody& body) { return std::visit(BodyDescriber{}, body); }

// The objects a transaction may create, each kind's own count
// (docs/ledger.md, "Applying a transaction").
std::uint32_t coins_it_may_create(const exec::TxBody& body) {
  return std::visit([](const auto& kind) { return max_created_objects(kind); }, body);
}

ordered_json describe_keys(const crypto::KeyBundle& keys) {
  ordered_json parts = ordered_json::array();
  for (const crypto::PublicKeyPart& part : keys.parts) {
    parts.push_back(ordered_json{{"scheme", static_cast<unsigned>(part.scheme)},
                                 {"scheme_name", crypto::scheme_name(part.scheme)},
                                 {"key_bytes", part.key.size()},
                                 {"key", hex(part.key)}});
  }
  const base::Status well_formed = crypto::check_key_bundle(keys);
  const auto profile = keys.profile();
  ordered_json out{{"bundle_id", hex(crypto::bundle_id(keys))},
                   {"account_id", hex(exec::account_id(keys))},
                   {"profile", profile ? ordered_json(crypto::profile_name(*profile)) : ordered_json(nullptr)},
                   {"well_formed", well_formed.ok()}};
  if (!well_formed) out["problem"] = well_formed.error().reason;
  out["encoded_bytes"] = codec::encoded_size(keys);
  out["verify_units"] = crypto::verify_units(keys);
  out["parts"] = parts;
  return out;
}

}  // namespace

base::Result<base::Bytes> read_transaction_input(const std::string& input) {
  const int fd = ::open(input.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (is_hex_text(input)) return from_hex_text(input, "the hex argument");
    return base::fail(base::Errc::invalid_argument,
                      fmt::format("'{}' is neither a readable file ({}) nor hex", input, std::strerror(error)));
  }
  auto text = read_small_file(input, fd);
  ::close(fd);
  if (!text) return base::fail(std::move(text).error());
  if (is_hex_text(*text)) return from_hex_text(*text, "'" + input + "' (hex)");
  return base::Bytes(text->begin(), text->end());
}

base::Result<std::string> describe_transaction(base::ByteView bytes) {
  SION_TRY(const exec::Transaction tx, codec::decode<exec::Transaction>(bytes));
  const exec::TxPayload& payload = tx.payload;
  const exec::Id id = exec::tx_id(payload);

  ordered_json coin_ids = ordered_json::array();
  for (const exec::Id& coin : exec::coin_ids(id, coins_it_may_create(payload.body))) coin_ids.push_back(hex(coin));
  ordered_json signatures = ordered_json::array();
  for (const auto& signature : tx.auth.parts) signatures.push_back(ordered_json{{"bytes", signature.size()}});
  const base::Bytes signed_payload = codec::encode(payload);

  ordered_json out{{"tx_id", hex(id)},
                   {"encoded_bytes", bytes.size()},
                   {"payload", ordered_json{{"chain_id", payload.chain_id},
                                            {"sender", hex(payload.sender)},
                                            {"nonce", payload.nonce},
                                            {"fee", payload.fee},
                                            {"body", describe_body(payload.body)},
                                            {"encoded_bytes", signed_payload.size()}}},
                   {"keys", describe_keys(tx.keys)},
                   {"auth", ordered_json{{"encoded_bytes", codec::encoded_size(tx.auth)}, {"parts", signatures}}},
                   {"signature_valid",
                    crypto::verify_bundle(tx.keys, signed_payload, base::as_bytes(exec::kTxSignatureContext), tx.auth)},
                   {"coin_ids", coin_ids}};
  return out.dump(2) + "\n";
}

base::Status run_tx_decode(const std::string& input, std::FILE* out) {
  SION_TRY(const auto bytes, read_transaction_input(input));
  auto json = describe_transaction(bytes);
  if (!json) {
    base::Error error = std::move(json).error();
    error.reason = "not a transaction: " + error.reason;
    return base::fail(std::move(error));
  }
  fmt::print(out, "{}", *json);
  return {};
}

}  // namespace sion::cli
