#pragma once
// The node's configuration file, node.toml (docs/node-config.md): TOML read
// strictly. Every field is checked when the node starts: a missing required
// field, a wrong type, a value out of range, an address that does not parse
// or an unknown key (a typo would otherwise silently fall back to a default)
// stops the node with an error naming the file and the field's dotted path:
//
//   node.toml: pulse.interval_ms: 50 is below the minimum 100
//
// Relative paths in the file are resolved against the file's own folder, so
// a config works whatever the working directory of the process.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "sion/base/result.hpp"
#include "sion/ledger/objects.hpp"

namespace sion::node {

// A host and a port, written "host:port": a DNS name or IPv4 address, or an
// IPv6 address in brackets, "[::1]:8730".
struct HostPort {
  std::string host;
  std::uint16_t port = 0;
  bool operator==(const HostPort&) const = default;
};

// Parses "host:port". `allow_port_zero`: for addresses to listen on, where 0
// asks the system for a free port. invalid_value naming why.
base::Result<HostPort> parse_host_port(std::string_view text, bool allow_port_zero);
std::string to_string(const HostPort& address);

enum class LogLevel : std::uint8_t { trace, debug, info, warn, error, off };
std::string_view log_level_name(LogLevel level) noexcept;
std::optional<LogLevel> log_level_from_name(std::string_view name) noexcept;

struct ApiConfig {
  HostPort address{"127.0.0.1", 8730};
  std::uint64_t max_body_bytes = 4u << 20;  // a request body; above the largest transaction
  std::uint32_t max_connections = 256;      // open at once; more wait to be accepted
  std::uint32_t rate_per_client = 100;      // requests per second from one address; 0: no limit
  std::uint32_t request_timeout_ms = 10'000;
  bool operator==(const ApiConfig&) const = default;
};

// The least time between Pulses: a leader proposes a block at least this
// long after its parent (consensus::Timing::min_block_interval_ms).
struct PulseConfig {
  std::uint32_t interval_ms = 50;
  bool operator==(const PulseConfig&) const = default;
};

struct MempoolConfig {
  std::uint64_t max_transactions = 100'000;
  std::uint64_t max_bytes = 256u << 20;
  std::uint32_t max_per_sender = 64;            // pending transactions of one account
  std::uint32_t expiry_seconds = 600;           // a transaction not included by then is dropped
  std::uint64_t min_fee_per_byte = 1;           // policy::MempoolPolicy::min_fee_per_byte
  std::uint32_t replacement_bump_percent = 10;  // a replacement pays at least this much more fee
  bool operator==(const MempoolConfig&) const = default;
};

struct LogConfig {
  LogLevel level = LogLevel::info;
  std::optional<std::string> file;  // none: standard error
  bool operator==(const LogConfig&) const = default;
};

// The validator network: where this validator listens for the others.
struct ConsensusConfig {
  HostPort listen{"127.0.0.1", 8731};
  std::uint32_t round_timeout_ms = 1500;  // doubling while rounds fail, up to 8 times this
  std::uint32_t idle_interval_ms = 500;   // a leader with nothing to order waits this long
  std::uint32_t batch_interval_ms = 10;   // this validator cuts a batch at most this often
  std::uint32_t max_batch_transactions = 256;
  bool operator==(const ConsensusConfig&) const = default;
};

// Test hooks (docs/node-config.md, "[testing]"): each makes the validator
// misbehave or fail on purpose, for the fault tests. Never on a real network.
struct TestingConfig {
  bool equivocate = false;                        // as leader, sign two conflicting proposals per round
  std::uint32_t link_delay_ms = 0;                // hold every frame to a peer this long
  std::uint64_t fail_consensus_writes_after = 0;  // 0: never; else every consensus write after this many fails
  bool control_routes = false;                    // POST /v1/testing/links: block links at run time
  bool operator==(const TestingConfig&) const = default;
};

struct NodeConfig {
  std::string data_dir;            // required
  std::string genesis_file;        // required
  std::string validator_key_file;  // required: a wallet key file (docs/genesis.md, "Key files")
  ApiConfig api;
  PulseConfig pulse;
  MempoolConfig mempool;
  LogConfig log;
  ConsensusConfig consensus;
  TestingConfig testing;
  // The other validators: validator id (the account id of its key, 64 hex
  // digits in the file) to its consensus address. Empty for one validator.
  std::map<ledger::Id, HostPort> peers;
  bool operator==(const NodeConfig&) const = default;
};

// Limits of the values (docs/node-config.md lists them all).
inline constexpr std::uint32_t kMinPulseIntervalMs = 10;
inline constexpr std::uint32_t kMaxPulseIntervalMs = 60'000;
// Config files larger than this are refused unread.
inline constexpr std::size_t kMaxConfigFileBytes = 1u << 20;

// Parses a config's text; `path` names the file in errors and its folder
// resolves relative paths. Errors are invalid_value, "<path>: <field>: why"
// (or "<path>:<line>: ..." for text that is not TOML).
base::Result<NodeConfig> parse_node_config(std::string_view text, const std::string& path);
// Reads and parses the file (at most kMaxConfigFileBytes; not_found,
// io_error as base::read_file).
base::Result<NodeConfig> load_node_config(const std::string& path);

// The config as a commented node.toml, every field written (defaults too).
// Paths are written as they are: parse_node_config(config_to_toml(c), p) == c
// for a config whose paths are absolute (or relative to p's folder, as
// resolved).
std::string config_to_toml(const NodeConfig& config);

}  // namespace sion::node
