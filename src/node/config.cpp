#include "sion/node/config.hpp"

#include <toml.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <exception>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "sion/base/file.hpp"
#include "sion/base/utf8.hpp"
#include "sion/wallet/address.hpp"

namespace sion::node {
namespace {

namespace fs = std::filesystem;
using base::Errc;

// std::map, not toml11's default unordered_map: unknown keys are reported in
// one order on every run.
using Value = toml::basic_value<toml::discard_comments, std::map, std::vector>;
using Table = Value::table_type;

constexpr std::array<std::string_view, 6> kLogLevelNames = {"trace", "debug", "info", "warn", "error", "off"};

// Deeper nesting of arrays and inline tables than any config needs; checked
// before toml11's recursive parser sees the text.
constexpr std::size_t kMaxNesting = 32;

base::Failure invalid(std::string reason) { return base::fail(Errc::invalid_value, std::move(reason)); }

bool is_bare_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      static constexpr char kDigits[] = "0123456789ABCDEF";
      out += "\\u00";
      out += kDigits[byte >> 4];
      out += kDigits[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string key_text(std::string_view key) { return is_bare_key(key) ? std::string(key) : toml_quoted(key); }

std::string type_name(const Value& value) {
  switch (value.type()) {
    case toml::value_t::string: return "a string";
    case toml::value_t::integer: return "an integer";
    case toml::value_t::floating: return "a floating-point number";
    case toml::value_t::boolean: return "a boolean";
    case toml::value_t::table: return "a table";
    case toml::value_t::array: return "an array";
    case toml::value_t::empty: return "nothing";
    default: return "a date or time";
  }
}

// One table of the file: hands out its fields by name, remembering which
// were asked for, so that finish() can refuse the rest as unknown keys.
class TableReader {
 public:
  TableReader(const std::string& file, const Table& table, std::string prefix)
      : file_(file), table_(table), prefix_(std::move(prefix)) {}

  std::string path(std::string_view key) const {
    return prefix_.empty() ? key_text(key) : prefix_ + "." + key_text(key);
  }
  base::Failure error(std::string_view key, const std::string& why) const {
    return invalid(file_ + ": " + path(key) + ": " + why);
  }

  const Value* find(const std::string& key) {
    known_.insert(key);
    const auto it = table_.find(key);
    return it == table_.end() ? nullptr : &it->second;
  }

  base::Result<std::optional<std::string>> string(const std::string& key) {
    const Value* value = find(key);
    if (value == nullptr) return std::optional<std::string>{};
    if (!value->is_string()) return error(key, "expected a string, got " + type_name(*value));
    return std::optional<std::string>{value->as_string().str};
  }

  base::Result<std::string> required_string(const std::string& key) {
    SION_TRY(std::optional<std::string> text, string(key));
    if (!text) return error(key, "missing (required)");
    return std::move(*text);
  }

  // An integer within [min, max], into `out` if present (out keeps its
  // default otherwise).
  template <class T>
  base::Status integer(const std::string& key, T& out, std::uint64_t min, std::uint64_t max) {
    const Value* value = find(key);
    if (value == nullptr) return {};
    if (!value->is_integer()) return error(key, "expected an integer, got " + type_name(*value));
    const std::int64_t number = value->as_integer();
    if (number < 0 || static_cast<std::uint64_t>(number) < min) {
      return error(key, std::to_string(number) + " is below the minimum " + std::to_string(min));
    }
    if (static_cast<std::uint64_t>(number) > max) {
      return error(key, std::to_string(number) + " is above the maximum " + std::to_string(max));
    }
    out = static_cast<T>(number);
    return {};
  }

  base::Status boolean(const std::string& key, bool& out) {
    const Value* value = find(key);
    if (value == nullptr) return {};
    if (!value->is_boolean()) return error(key, "expected true or false, got " + type_name(*value));
    out = value->as_boolean();
    return {};
  }

  // The sub-table `key` (empty if absent).
  base::Result<const Table*> table(const std::string& key) {
    static const Table kEmpty;
    const Value* value = find(key);
    if (value == nullptr) return &kEmpty;
    if (!value->is_table()) return error(key, "expected a table, got " + type_name(*value));
    return &value->as_table();
  }

  base::Status finish() const {
    for (const auto& entry : table_) {
      if (!known_.contains(entry.first)) return error(entry.first, "unknown key");
    }
    return {};
  }

  const Table& entries() const noexcept { return table_; }

 private:
  const std::string& file_;
  const Table& table_;
  std::string prefix_;
  std::set<std::string> known_;
};

// A path from the file: absolute as written, relative to the file's folder.
base::Result<std::string> resolve_path(TableReader& reader, const std::string& key, const std::string& text,
                                       const fs::path& folder) {
  if (text.empty()) return reader.error(key, "an empty path");
  const fs::path path(text);
  if (path.is_absolute()) return text;
  return (folder / path).lexically_normal().string();
}

base::Result<std::optional<std::string>> optional_path(TableReader& reader, const std::string& key,
                                                       const fs::path& folder) {
  SION_TRY(std::optional<std::string> text, reader.string(key));
  if (!text) return std::optional<std::string>{};
  SION_TRY(std::string path, resolve_path(reader, key, *text, folder));
  return std::optional<std::string>{std::move(path)};
}

base::Result<std::string> required_path(TableReader& reader, const std::string& key, const fs::path& folder) {
  SION_TRY(const std::string text, reader.required_string(key));
  return resolve_path(reader, key, text, folder);
}

base::Status read_address(TableReader& reader, const std::string& key, HostPort& out, bool allow_port_zero) {
  SION_TRY(const std::optional<std::string> text, reader.string(key));
  if (!text) return {};
  auto address = parse_host_port(*text, allow_port_zero);
  if (!address) return reader.error(key, std::move(address).error().reason);
  out = std::move(*address);
  return {};
}

base::Status read_api(const std::string& file, const Table& table, ApiConfig& api) {
  TableReader reader(file, table, "api");
  SION_TRY_STATUS(read_address(reader, "address", api.address, true));
  SION_TRY_STATUS(reader.integer("max_body_bytes", api.max_body_bytes, 1024, 1u << 30));
  SION_TRY_STATUS(reader.integer("max_connections", api.max_connections, 1, 65'536));
  SION_TRY_STATUS(reader.integer("rate_per_client", api.rate_per_client, 0, 1'000'000));
  SION_TRY_STATUS(reader.integer("request_timeout_ms", api.request_timeout_ms, 100, 600'000));
  return reader.finish();
}

base::Status read_mempool(const std::string& file, const Table& table, MempoolConfig& mempool) {
  TableReader reader(file, table, "mempool");
  SION_TRY_STATUS(reader.integer("max_transactions", mempool.max_transactions, 1, 10'000'000));
  SION_TRY_STATUS(reader.integer("max_bytes", mempool.max_bytes, 1u << 16, std::uint64_t{1} << 36));
  SION_TRY_STATUS(reader.integer("max_per_sender", mempool.max_per_sender, 1, 1'000'000));
  SION_TRY_STATUS(reader.integer("expiry_seconds", mempool.expiry_seconds, 1, 7 * 86'400));
  SION_TRY_STATUS(reader.integer("min_fee_per_byte", mempool.min_fee_per_byte, 0,
                                 std::uint64_t{std::numeric_limits<std::int64_t>::max()}));
  SION_TRY_STATUS(reader.integer("replacement_bump_percent", mempool.replacement_bump_percent, 1, 1000));
  return reader.finish();
}

base::Status read_log(const std::string& file, const Table& table, const fs::path& folder, LogConfig& log) {
  TableReader reader(file, table, "log");
  SION_TRY(const std::optional<std::string> level, reader.string("level"));
  if (level) {
    const auto parsed = log_level_from_name(*level);
    if (!parsed)
      return reader.error("level", toml_quoted(*level) + " is not one of trace, debug, info, warn, error, off");
    log.level = *parsed;
  }
  SION_TRY(log.file, optional_path(reader, "file", folder));
  return reader.finish();
}

base::Status read_consensus(const std::string& file, const Table& table, ConsensusConfig& consensus) {
  TableReader reader(file, table, "consensus");
  SION_TRY_STATUS(read_address(reader, "listen", consensus.listen, true));
  SION_TRY_STATUS(reader.integer("round_timeout_ms", consensus.round_timeout_ms, 100, 600'000));
  SION_TRY_STATUS(reader.integer("idle_interval_ms", consensus.idle_interval_ms, 10, 600'000));
  SION_TRY_STATUS(reader.integer("batch_interval_ms", consensus.batch_interval_ms, 1, 60'000));
  SION_TRY_STATUS(reader.integer("max_batch_transactions", consensus.max_batch_transactions, 1, 4096));
  return reader.finish();
}

base::Status read_testing(const std::string& file, const Table& table, TestingConfig& testing) {
  TableReader reader(file, table, "testing");
  SION_TRY_STATUS(reader.boolean("equivocate", testing.equivocate));
  SION_TRY_STATUS(reader.integer("link_delay_ms", testing.link_delay_ms, 0, 60'000));
  SION_TRY_STATUS(
      reader.integer("fail_consensus_writes_after", testing.fail_consensus_writes_after, 0, std::uint64_t{1} << 62));
  SION_TRY_STATUS(reader.boolean("control_routes", testing.control_routes));
  return reader.finish();
}

base::Status read_peers(const std::string& file, const Table& table, std::map<ledger::Id, HostPort>& peers) {
  TableReader reader(file, table, "peers");
  for (const auto& entry : reader.entries()) {
    const std::string& key = entry.first;
    auto id = wallet::parse_address(key);
    if (!id) return reader.error(key, "not a validator id: " + std::move(id).error().reason);
    HostPort address;
    SION_TRY_STATUS(read_address(reader, key, address, false));
    peers.emplace(*id, std::move(address));
  }
  return reader.finish();
}

base::Result<NodeConfig> read_config(const std::string& file, const Table& root, const fs::path& folder) {
  NodeConfig config;
  TableReader reader(file, root, "");
  SION_TRY(config.data_dir, required_path(reader, "data_dir", folder));
  SION_TRY(config.genesis_file, required_path(reader, "genesis_file", folder));
  SION_TRY(config.validator_key_file, required_path(reader, "validator_key_file", folder));

  SION_TRY(const Table* api, reader.table("api"));
  SION_TRY_STATUS(read_api(file, *api, config.api));

  SION_TRY(const Table* pulse, reader.table("pulse"));
  TableReader pulse_reader(file, *pulse, "pulse");
  SION_TRY_STATUS(
      pulse_reader.integer("interval_ms", config.pulse.interval_ms, kMinPulseIntervalMs, kMaxPulseIntervalMs));
  SION_TRY_STATUS(pulse_reader.finish());

  SION_TRY(const Table* mempool, reader.table("mempool"));
  SION_TRY_STATUS(read_mempool(file, *mempool, config.mempool));

  SION_TRY(const Table* log, reader.table("log"));
  SION_TRY_STATUS(read_log(file, *log, folder, config.log));

  SION_TRY(const Table* consensus, reader.table("consensus"));
  SION_TRY_STATUS(read_consensus(file, *consensus, config.consensus));

  SION_TRY(const Table* testing, reader.table("testing"));
  SION_TRY_STATUS(read_testing(file, *testing, config.testing));

  SION_TRY(const Table* peers, reader.table("peers"));
  SION_TRY_STATUS(read_peers(file, *peers, config.peers));

  SION_TRY_STATUS(reader.finish());
  return config;
}

// The deepest nesting of brackets and braces, counted over the raw text (a
// bracket inside a string counts too, which can only over-estimate).
std::size_t nesting(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  for (const char c : text) {
    if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// toml11's messages span several lines (the line quoted, a caret); the first
// says what is wrong: "[error] toml::parse_table: why".
std::string first_line_reason(const char* what) {
  std::string_view text(what);
  text = text.substr(0, text.find('\n'));
  if (text.starts_with("[error] ")) text.remove_prefix(8);
  if (text.starts_with("toml::")) {
    const auto colon = text.find(": ");
    if (colon != std::string_view::npos) text.remove_prefix(colon + 2);
  }
  return std::string(text.empty() ? std::string_view("not valid TOML") : text);
}

}  // namespace

base::Result<HostPort> parse_host_port(std::string_view text, bool allow_port_zero) {
  HostPort out;
  std::string_view port_text;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos)
      return invalid(toml_quoted(text) + ": an IPv6 address without its closing ']'");
    const std::string_view host = text.substr(1, close - 1);
    const bool ipv6_chars = std::all_of(host.begin(), host.end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    });
    if (host.empty() || !ipv6_chars || host.find(':') == std::string_view::npos) {
      return invalid(toml_quoted(text) + ": not an IPv6 address between the brackets");
    }
    if (close + 1 >= text.size() || text[close + 1] != ':') return invalid(toml_quoted(text) + ": expected host:port");
    out.host = std::string(host);
    port_text = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return invalid(toml_quoted(text) + ": expected host:port");
    const std::string_view host = text.substr(0, colon);
    if (host.find(':') != std::string_view::npos) {
      return invalid(toml_quoted(text) + ": an IPv6 address goes in brackets, [::1]:8730");
    }
    const bool name_chars = std::all_of(host.begin(), host.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    });
    if (host.empty() || host.size() > 253 || !name_chars || host.front() == '-' || host.front() == '.') {
      return invalid(toml_quoted(text) + ": the host is not a DNS name or IPv4 address");
    }
    out.host = std::string(host);
    port_text = text.substr(colon + 1);
  }
  unsigned port = 0;
  const char* end = port_text.data() + port_text.size();
  const auto [stop, error] = std::from_chars(port_text.data(), end, port);
  if (port_text.empty() || port_text.size() > 5 || error != std::errc{} || stop != end || port > 65'535) {
    return invalid(toml_quoted(text) + ": the port is not a number from " + (allow_port_zero ? "0" : "1") +
                   " to 65535");
  }
  if (port == 0 && !allow_port_zero) return invalid(toml_quoted(text) + ": port 0");
  out.port = static_cast<std::uint16_t>(port);
  return out;
}

std::string to_string(const HostPort& address) {
  const bool ipv6 = address.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + address.host + "]" : address.host) + ":" + std::to_string(address.port);
}

std::string_view log_level_name(LogLevel level) noexcept {
  const auto index = static_cast<std::size_t>(level);
  return index < kLogLevelNames.size() ? kLogLevelNames[index] : std::string_view("?");
}

std::optional<LogLevel> log_level_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kLogLevelNames.size(); ++i) {
    if (kLogLevelNames[i] == name) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

base::Result<NodeConfig> parse_node_config(std::string_view text, const std::string& path) {
  // TOML 1.0 ("Spec"): a TOML file must be valid UTF-8. Checked here, before
  // the parser, which mishandles some malformed sequences inside strings.
  if (const auto bad = base::first_invalid_utf8(text)) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(*bad), '\n');
    return invalid(path + ":" + std::to_string(line) + ": the bytes from offset " + std::to_string(*bad) +
                   " are not UTF-8 (a TOML file must be UTF-8)");
  }
  if (nesting(text) > kMaxNesting) {
    return invalid(path + ": arrays or tables nested deeper than " + std::to_string(kMaxNesting));
  }
  std::error_code error;
  const fs::path absolute = fs::absolute(fs::path(path), error);
  if (error) return base::fail(Errc::io_error, path + ": cannot find its folder: " + error.message());
  const fs::path folder = absolute.parent_path();
  try {
    std::istringstream stream{std::string(text)};
    const Value root = toml::parse<toml::discard_comments, std::map, std::vector>(stream, path);
    return read_config(path, root.as_table(), folder);
  } catch (const toml::exception& e) {
    return invalid(path + ":" + std::to_string(e.location().line()) + ": " + first_line_reason(e.what()));
  } catch (const std::exception& e) {
    return invalid(path + ": " + first_line_reason(e.what()));
  }
}

base::Result<NodeConfig> load_node_config(const std::string& path) {
  SION_TRY(const std::string text, base::read_file(path, {.what = "config file", .max_bytes = kMaxConfigFileBytes}));
  return parse_node_config(text, path);
}

std::string config_to_toml(const NodeConfig& config) {
  std::ostringstream out;
  out << "# Sion node configuration (docs/node-config.md). Relative paths are\n"
         "# resolved against this file's folder.\n\n"
         "# The node's state: blocks, objects, indexes (created if missing).\n"
      << "data_dir = " << toml_quoted(config.data_dir) << "\n"
      << "# The chain's genesis file (docs/genesis.md).\n"
      << "genesis_file = " << toml_quoted(config.genesis_file) << "\n"
      << "# This validator's key file (docs/genesis.md, \"Key files\"; mode 0600).\n"
      << "validator_key_file = " << toml_quoted(config.validator_key_file) << "\n";

  const ApiConfig& api = config.api;
  out << "\n[api]\n"
      << "# The HTTP API's host:port (port 0: any free port).\n"
      << "address = " << toml_quoted(to_string(api.address)) << "\n"
      << "# Largest request body accepted, in bytes.\n"
      << "max_body_bytes = " << api.max_body_bytes << "\n"
      << "# Connections served at once.\n"
      << "max_connections = " << api.max_connections << "\n"
      << "# Requests per second from one client address (0: no limit).\n"
      << "rate_per_client = " << api.rate_per_client << "\n"
      << "# A request not answered by then is cut off.\n"
      << "request_timeout_ms = " << api.request_timeout_ms << "\n";

  out << "\n[pulse]\n"
      << "# The least time between Pulses, " << kMinPulseIntervalMs << " to " << kMaxPulseIntervalMs
      << " ms:\n# a leader proposes a block at least this long after its parent.\n"
      << "interval_ms = " << config.pulse.interval_ms << "\n";

  const MempoolConfig& mempool = config.mempool;
  out << "\n[mempool]\n"
      << "max_transactions = " << mempool.max_transactions << "\n"
      << "max_bytes = " << mempool.max_bytes << "\n"
      << "# Pending transactions of one sender.\n"
      << "max_per_sender = " << mempool.max_per_sender << "\n"
      << "# A transaction still pending after this is dropped.\n"
      << "expiry_seconds = " << mempool.expiry_seconds << "\n"
      << "# The lowest fee per byte of a transaction's encoding admitted.\n"
      << "min_fee_per_byte = " << mempool.min_fee_per_byte << "\n"
      << "# A transaction replacing a pending one (same sender and nonce) pays this\n"
      << "# much more fee, in percent.\n"
      << "replacement_bump_percent = " << mempool.replacement_bump_percent << "\n";

  out << "\n[log]\n"
      << "# trace, debug, info, warn, error or off.\n"
      << "level = " << toml_quoted(log_level_name(config.log.level)) << "\n";
  if (config.log.file) {
    out << "# Where to write the log (absent: standard error).\n"
        << "file = " << toml_quoted(*config.log.file) << "\n";
  } else {
    out << "# Where to write the log, instead of standard error:\n"
        << "# file = \"node.log\"\n";
  }

  const ConsensusConfig& consensus = config.consensus;
  out << "\n[consensus]\n"
      << "# Where this validator listens for the other validators.\n"
      << "listen = " << toml_quoted(to_string(consensus.listen)) << "\n"
      << "# A round without progress times out after this (doubling while rounds fail).\n"
      << "round_timeout_ms = " << consensus.round_timeout_ms << "\n"
      << "# With nothing to order, a leader proposes this long after its parent.\n"
      << "idle_interval_ms = " << consensus.idle_interval_ms << "\n"
      << "# This validator cuts a batch of its mempool at most this often ...\n"
      << "batch_interval_ms = " << consensus.batch_interval_ms << "\n"
      << "# ... of at most this many transactions.\n"
      << "max_batch_transactions = " << consensus.max_batch_transactions << "\n";

  const TestingConfig& testing = config.testing;
  if (testing != TestingConfig{}) {
    out << "\n# Test hooks: never on a real network.\n"
        << "[testing]\n"
        << "equivocate = " << (testing.equivocate ? "true" : "false") << "\n"
        << "link_delay_ms = " << testing.link_delay_ms << "\n"
        << "fail_consensus_writes_after = " << testing.fail_consensus_writes_after << "\n"
        << "control_routes = " << (testing.control_routes ? "true" : "false") << "\n";
  }

  out << "\n# The other validators: validator id (64 hex digits) = \"host:port\".\n"
      << "[peers]\n";
  for (const auto& [id, address] : config.peers) {
    out << wallet::address_to_text(id) << " = " << toml_quoted(to_string(address)) << "\n";
  }
  return out.str();
}

}  // namespace sion::node
