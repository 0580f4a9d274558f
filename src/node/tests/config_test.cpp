#include "sion/node/config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sion/base/bytes.hpp"
#include "sion/base/testing/temp_dir.hpp"

namespace sion::node {
namespace {

using base::testing::TempDir;

// The three required fields, absolute so that no folder resolves them.
const std::string kRequired =
    "data_dir = \"/srv/sion/data\"\n"
    "genesis_file = \"/srv/sion/genesis.json\"\n"
    "validator_key_file = \"/srv/sion/keys/validator.json\"\n";

const std::string kPeer = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";

base::Result<NodeConfig> parse(const std::string& text) { return parse_node_config(text, "/etc/sion/node.toml"); }

// The error parsing `text` gives (the test fails if it parses).
std::string error_of(const std::string& text) {
  const auto config = parse(text);
  if (config) {
    ADD_FAILURE() << "parsed: " << text;
    return {};
  }
  EXPECT_EQ(config.error().code, base::Errc::invalid_value) << config.error().reason;
  return config.error().reason;
}

TEST(Config, DefaultsOfEveryOptionalField) {
  const auto config = parse(kRequired);
  ASSERT_TRUE(config) << config.error().reason;
  EXPECT_EQ(config->data_dir, "/srv/sion/data");
  EXPECT_EQ(config->genesis_file, "/srv/sion/genesis.json");
  EXPECT_EQ(config->validator_key_file, "/srv/sion/keys/validator.json");
  EXPECT_EQ(config->api.address, (HostPort{"127.0.0.1", 8730}));
  EXPECT_EQ(config->api.max_body_bytes, 4u << 20);
  EXPECT_EQ(config->api.max_connections, 256u);
  EXPECT_EQ(config->api.rate_per_client, 100u);
  EXPECT_EQ(config->api.request_timeout_ms, 10'000u);
  EXPECT_EQ(config->pulse.interval_ms, 50u);
  EXPECT_EQ(config->mempool.max_transactions, 100'000u);
  EXPECT_EQ(config->mempool.max_bytes, 256u << 20);
  EXPECT_EQ(config->mempool.max_per_sender, 64u);
  EXPECT_EQ(config->mempool.expiry_seconds, 600u);
  EXPECT_EQ(config->mempool.min_fee_per_byte, 1u);
  EXPECT_EQ(config->mempool.replacement_bump_percent, 10u);
  EXPECT_EQ(config->log.level, LogLevel::info);
  EXPECT_FALSE(config->log.file);
  EXPECT_EQ(config->consensus.listen, (HostPort{"127.0.0.1", 8731}));
  EXPECT_TRUE(config->peers.empty());
  // The defaults are NodeConfig's own.
  NodeConfig expected;
  expected.data_dir = config->data_dir;
  expected.genesis_file = config->genesis_file;
  expected.validator_key_file = config->validator_key_file;
  EXPECT_EQ(*config, expected);
}

TEST(Config, ReadsEveryField) {
  const auto config = parse(kRequired +
                            "[api]\naddress = \"[::1]:9000\"\nmax_body_bytes = 2048\nmax_connections = 8\n"
                            "rate_per_client = 0\nrequest_timeout_ms = 500\n"
                            "[pulse]\ninterval_ms = 250\n"
                            "[mempool]\nmax_transactions = 10\nmax_bytes = 1048576\nmax_per_sender = 2\n"
                            "expiry_seconds = 30\nmin_fee_per_byte = 0\nreplacement_bump_percent = 25\n"
                            "[log]\nlevel = \"debug\"\nfile = \"/var/log/sion.log\"\n"
                            "[consensus]\nlisten = \"0.0.0.0:0\"\n"
                            "[peers]\n" +
                            kPeer + " = \"validator-2.example:8731\"\n");
  ASSERT_TRUE(config) << config.error().reason;
  EXPECT_EQ(config->api.address, (HostPort{"::1", 9000}));
  EXPECT_EQ(config->api.max_body_bytes, 2048u);
  EXPECT_EQ(config->api.max_connections, 8u);
  EXPECT_EQ(config->api.rate_per_client, 0u);
  EXPECT_EQ(config->api.request_timeout_ms, 500u);
  EXPECT_EQ(config->pulse.interval_ms, 250u);
  EXPECT_EQ(config->mempool.max_transactions, 10u);
  EXPECT_EQ(config->mempool.max_bytes, 1048576u);
  EXPECT_EQ(config->mempool.max_per_sender, 2u);
  EXPECT_EQ(config->mempool.expiry_seconds, 30u);
  EXPECT_EQ(config->mempool.min_fee_per_byte, 0u);
  EXPECT_EQ(config->mempool.replacement_bump_percent, 25u);
  EXPECT_EQ(config->log.level, LogLevel::debug);
  EXPECT_EQ(config->log.file, "/var/log/sion.log");
  EXPECT_EQ(config->consensus.listen, (HostPort{"0.0.0.0", 0}));
  ASSERT_EQ(config->peers.size(), 1u);
  EXPECT_EQ(base::to_hex(config->peers.begin()->first), kPeer);
  EXPECT_EQ(config->peers.begin()->second, (HostPort{"validator-2.example", 8731}));
}

TEST(Config, EveryLogLevel) {
  for (const char* name : {"trace", "debug", "info", "warn", "error", "off"}) {
    const auto config = parse(kRequired + "[log]\nlevel = \"" + name + "\"\n");
    ASSERT_TRUE(config) << config.error().reason;
    EXPECT_EQ(log_level_name(config->log.level), name);
  }
  EXPECT_EQ(error_of(kRequired + "[log]\nlevel = \"verbose\"\n"),
            "/etc/sion/node.toml: log.level: \"verbose\" is not one of trace, debug, info, warn, error, off");
}

TEST(Config, MissingRequiredFieldNamesItAndTheFile) {
  EXPECT_EQ(error_of("genesis_file = \"g.json\"\nvalidator_key_file = \"k.json\"\n"),
            "/etc/sion/node.toml: data_dir: missing (required)");
  EXPECT_EQ(error_of("data_dir = \"d\"\nvalidator_key_file = \"k.json\"\n"),
            "/etc/sion/node.toml: genesis_file: missing (required)");
  EXPECT_EQ(error_of("data_dir = \"d\"\ngenesis_file = \"g.json\"\n"),
            "/etc/sion/node.toml: validator_key_file: missing (required)");
  EXPECT_EQ(error_of("data_dir = \"\"\ngenesis_file = \"g.json\"\nvalidator_key_file = \"k.json\"\n"),
            "/etc/sion/node.toml: data_dir: an empty path");
}

TEST(Config, WrongTypeNamesTheField) {
  EXPECT_EQ(error_of("data_dir = 5\ngenesis_file = \"g\"\nvalidator_key_file = \"k\"\n"),
            "/etc/sion/node.toml: data_dir: expected a string, got an integer");
  EXPECT_EQ(error_of(kRequired + "[pulse]\ninterval_ms = \"1000\"\n"),
            "/etc/sion/node.toml: pulse.interval_ms: expected an integer, got a string");
  EXPECT_EQ(error_of(kRequired + "[pulse]\ninterval_ms = 1000.0\n"),
            "/etc/sion/node.toml: pulse.interval_ms: expected an integer, got a floating-point number");
  EXPECT_EQ(error_of(kRequired + "api = 3\n"), "/etc/sion/node.toml: api: expected a table, got an integer");
  EXPECT_EQ(error_of(kRequired + "[api]\naddress = [\"127.0.0.1:1\"]\n"),
            "/etc/sion/node.toml: api.address: expected a string, got an array");
  EXPECT_EQ(error_of(kRequired + "[log]\nfile = true\n"),
            "/etc/sion/node.toml: log.file: expected a string, got a boolean");
}

TEST(Config, OutOfRangeNamesTheFieldAndTheLimit) {
  EXPECT_EQ(error_of(kRequired + "[pulse]\ninterval_ms = 5\n"),
            "/etc/sion/node.toml: pulse.interval_ms: 5 is below the minimum 10");
  EXPECT_EQ(error_of(kRequired + "[pulse]\ninterval_ms = 60001\n"),
            "/etc/sion/node.toml: pulse.interval_ms: 60001 is above the maximum 60000");
  EXPECT_EQ(error_of(kRequired + "[pulse]\ninterval_ms = -1\n"),
            "/etc/sion/node.toml: pulse.interval_ms: -1 is below the minimum 10");
  EXPECT_EQ(error_of(kRequired + "[api]\nmax_connections = 0\n"),
            "/etc/sion/node.toml: api.max_connections: 0 is below the minimum 1");
  EXPECT_EQ(error_of(kRequired + "[mempool]\nreplacement_bump_percent = 1001\n"),
            "/etc/sion/node.toml: mempool.replacement_bump_percent: 1001 is above the maximum 1000");
  EXPECT_EQ(error_of(kRequired + "[mempool]\nmin_fee_per_byte = -3\n"),
            "/etc/sion/node.toml: mempool.min_fee_per_byte: -3 is below the minimum 0");
  // Pulse bounds accepted at their ends.
  EXPECT_TRUE(parse(kRequired + "[pulse]\ninterval_ms = 10\n"));
  EXPECT_TRUE(parse(kRequired + "[pulse]\ninterval_ms = 60000\n"));
}

TEST(Config, UnknownKeysAreTypos) {
  EXPECT_EQ(error_of(kRequired + "data_dri = \"x\"\n"), "/etc/sion/node.toml: data_dri: unknown key");
  EXPECT_EQ(error_of(kRequired + "[pulse]\ninterval = 1000\n"), "/etc/sion/node.toml: pulse.interval: unknown key");
  EXPECT_EQ(error_of(kRequired + "[testing]\nequivocate = 1\n"),
            "/etc/sion/node.toml: testing.equivocate: expected true or false, got an integer");
  EXPECT_EQ(error_of(kRequired + "[consensus]\nmax_batch_transactions = 0\n"),
            "/etc/sion/node.toml: consensus.max_batch_transactions: 0 is below the minimum 1");
  EXPECT_EQ(error_of(kRequired + "[apii]\naddress = \"127.0.0.1:1\"\n"), "/etc/sion/node.toml: apii: unknown key");
  EXPECT_EQ(error_of(kRequired + "[log]\n\"le vel\" = \"info\"\n"), "/etc/sion/node.toml: log.\"le vel\": unknown key");
  EXPECT_EQ(error_of(kRequired + "[mempool.extra]\nx = 1\n"), "/etc/sion/node.toml: mempool.extra: unknown key");
}

TEST(Config, BadAddressesNameTheField) {
  const auto api = [](const std::string& address) {
    return error_of(kRequired + "[api]\naddress = \"" + address + "\"\n");
  };
  EXPECT_EQ(api("127.0.0.1"), "/etc/sion/node.toml: api.address: \"127.0.0.1\": expected host:port");
  EXPECT_EQ(api("127.0.0.1:65536"),
            "/etc/sion/node.toml: api.address: \"127.0.0.1:65536\": the port is not a number from 0 to 65535");
  EXPECT_EQ(api("127.0.0.1:+80"),
            "/etc/sion/node.toml: api.address: \"127.0.0.1:+80\": the port is not a number from 0 to 65535");
  EXPECT_EQ(api(":80"), "/etc/sion/node.toml: api.address: \":80\": the host is not a DNS name or IPv4 address");
  EXPECT_EQ(api("::1:80"),
            "/etc/sion/node.toml: api.address: \"::1:80\": an IPv6 address goes in brackets, [::1]:8730");
  EXPECT_EQ(api("[::1]80"), "/etc/sion/node.toml: api.address: \"[::1]80\": expected host:port");
  EXPECT_EQ(api("[zz]:80"), "/etc/sion/node.toml: api.address: \"[zz]:80\": not an IPv6 address between the brackets");
  EXPECT_EQ(api("bad host:80"),
            "/etc/sion/node.toml: api.address: \"bad host:80\": the host is not a DNS name or IPv4 address");
  EXPECT_EQ(error_of(kRequired + "[consensus]\nlisten = \"localhost\"\n"),
            "/etc/sion/node.toml: consensus.listen: \"localhost\": expected host:port");
}

TEST(Config, PeersAreValidatorIdsToAddresses) {
  EXPECT_EQ(error_of(kRequired + "[peers]\nabc = \"h:1\"\n"),
            "/etc/sion/node.toml: peers.abc: not a validator id: an address is 64 hex digits, got 3 characters");
  std::string upper = kPeer;
  upper[0] = 'A';
  EXPECT_EQ(error_of(kRequired + "[peers]\n" + upper + " = \"h:1\"\n"),
            "/etc/sion/node.toml: peers." + upper +
                ": not a validator id: an address is lower-case hex digits; character 0 is not one");
  EXPECT_EQ(error_of(kRequired + "[peers]\n" + kPeer + " = \"h:0\"\n"),
            "/etc/sion/node.toml: peers." + kPeer + ": \"h:0\": port 0");
  EXPECT_EQ(error_of(kRequired + "[peers]\n" + kPeer + " = 8731\n"),
            "/etc/sion/node.toml: peers." + kPeer + ": expected a string, got an integer");
}

TEST(Config, NotTomlNamesTheFileAndLine) {
  const std::string reason = error_of(kRequired + "[pulse]\ninterval_ms = = 3\n");
  EXPECT_EQ(reason.rfind("/etc/sion/node.toml:5: ", 0), 0u) << reason;
  // A key given twice is TOML's own error.
  const std::string twice = error_of(kRequired + "data_dir = \"again\"\n");
  EXPECT_EQ(twice.rfind("/etc/sion/node.toml:", 0), 0u) << twice;
  const std::string deep = error_of(kRequired + "x = " + std::string(40, '[') + std::string(40, ']') + "\n");
  EXPECT_EQ(deep, "/etc/sion/node.toml: arrays or tables nested deeper than 32");
}

// A TOML file must be UTF-8; a malformed byte is refused with its place, in
// strings and keys alike (the fuzzer found a parser fault on the latter).
TEST(Config, MalformedUtf8NamesTheLineAndByte) {
  EXPECT_EQ(error_of(kRequired + "'\xE5nesis'\xE5nee = \"x\"\n"), "/etc/sion/node.toml:4: the bytes from offset " +
                                                                      std::to_string(kRequired.size() + 1) +
                                                                      " are not UTF-8 (a TOML file must be UTF-8)");
  EXPECT_EQ(error_of("data_dir = \"\xC0\xAF\"\n"),
            "/etc/sion/node.toml:1: the bytes from offset 12 are not UTF-8 (a TOML file must be UTF-8)");
  // Well-formed non-ASCII text is a path like any other.
  const auto config = parse(kRequired + "[log]\nfile = \"/var/log/s\xC3\xAFon.log\"\n");
  ASSERT_TRUE(config) << config.error().reason;
  EXPECT_EQ(config->log.file, "/var/log/s\xC3\xAFon.log");
}

TEST(Config, RelativePathsResolveAgainstTheFilesFolder) {
  const auto config = parse_node_config(
      "data_dir = \"data\"\ngenesis_file = \"../shared/genesis.json\"\nvalidator_key_file = \"keys/v.json\"\n"
      "[log]\nfile = \"./logs/node.log\"\n",
      "/etc/sion/node.toml");
  ASSERT_TRUE(config) << config.error().reason;
  EXPECT_EQ(config->data_dir, "/etc/sion/data");
  EXPECT_EQ(config->genesis_file, "/etc/shared/genesis.json");
  EXPECT_EQ(config->validator_key_file, "/etc/sion/keys/v.json");
  EXPECT_EQ(config->log.file, "/etc/sion/logs/node.log");
}

TEST(Config, WriteThenReadGivesTheSameConfig) {
  NodeConfig config;
  config.data_dir = "/d i r/with \"quotes\" and \\ backslash";
  config.genesis_file = "/g/genesis.json";
  config.validator_key_file = "/k/v.json";
  config.api.address = {"::1", 0};
  config.api.rate_per_client = 7;
  config.pulse.interval_ms = 123;
  config.mempool.max_bytes = 1u << 20;
  config.log.level = LogLevel::warn;
  config.log.file = "/var/log/tab\there.log";
  config.consensus.listen = {"10.0.0.1", 9999};
  config.consensus.round_timeout_ms = 900;
  config.consensus.max_batch_transactions = 64;
  config.testing.equivocate = true;
  config.testing.link_delay_ms = 50;
  config.testing.fail_consensus_writes_after = 7;
  auto id = ledger::Id{};
  id.fill(0xab);
  config.peers[id] = {"peer.example", 1};
  id.fill(0x01);
  config.peers[id] = {"fe80::1", 2};
  const std::string text = config_to_toml(config);
  const auto back = parse_node_config(text, "/anywhere/node.toml");
  ASSERT_TRUE(back) << back.error().reason << "\n" << text;
  EXPECT_EQ(*back, config) << text;
  EXPECT_NE(text.find("# "), std::string::npos);  // commented

  NodeConfig defaults;
  defaults.data_dir = "/a";
  defaults.genesis_file = "/b";
  defaults.validator_key_file = "/c";
  const auto read = parse_node_config(config_to_toml(defaults), "/x/node.toml");
  ASSERT_TRUE(read) << read.error().reason;
  EXPECT_EQ(*read, defaults);
}

TEST(Config, LoadReadsTheFile) {
  TempDir dir;
  const std::string path = dir / "node.toml";
  std::ofstream(path) << "data_dir = \"data\"\ngenesis_file = \"genesis.json\"\nvalidator_key_file = \"k.json\"\n";
  const auto config = load_node_config(path);
  ASSERT_TRUE(config) << config.error().reason;
  EXPECT_EQ(config->data_dir, (dir.path() / "data").lexically_normal().string());
  const auto missing = load_node_config(dir / "none.toml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, base::Errc::not_found);
  std::ofstream(dir / "bad.toml") << "[pulse]\ninterval_ms = 1\n";
  const auto bad = load_node_config(dir / "bad.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().reason, dir / "bad.toml" + ": data_dir: missing (required)");
}

TEST(Config, HostPortText) {
  EXPECT_EQ(to_string(HostPort{"::1", 80}), "[::1]:80");
  EXPECT_EQ(to_string(HostPort{"example.org", 443}), "example.org:443");
  const auto parsed = parse_host_port("[2001:db8::1]:8731", false);
  ASSERT_TRUE(parsed) << parsed.error().reason;
  EXPECT_EQ(*parsed, (HostPort{"2001:db8::1", 8731}));
  EXPECT_FALSE(parse_host_port("h:0", false));
  EXPECT_TRUE(parse_host_port("h:0", true));
}

}  // namespace
}  // namespace sion::node
