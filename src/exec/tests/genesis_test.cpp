#include "sion/exec/genesis.hpp"
#include "sion/base/testing/fifo.hpp"
#include "sion/base/testing/temp_dir.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "sion/commit/smt.hpp"
#include "sion/state/object_store.hpp"

namespace sion::exec {
namespace {

namespace fs = std::filesystem;

crypto::SigningBundle test_bundle(std::uint8_t seed_byte, crypto::Profile profile = crypto::Profile::dual) {
  crypto::KeySeed seed{};
  seed.fill(seed_byte);
  return crypto::SigningBundle::from_seed(profile, seed).value();
}

std::string keys_hex(const crypto::KeyBundle& keys) { return base::to_hex(codec::encode(keys)); }

Genesis sample_genesis() {
  Genesis genesis;
  genesis.params.chain_id = 77;
  genesis.params.fees = {3, 5};
  genesis.params.limits = {1'000, 2'000, 3'000, 40};
  genesis.accounts.push_back({test_bundle(1).public_bundle(), {10, 20}});
  genesis.accounts.push_back({test_bundle(2, crypto::Profile::hybrid).public_bundle(), {}});
  genesis.accounts.push_back({test_bundle(3, crypto::Profile::classic).public_bundle(), {18'446'744'073'709'551'000u}});
  return genesis;
}

using base::testing::TempDir;

void write_text(const std::string& path, const std::string& text, fs::perms perms) {
  std::ofstream(path, std::ios::binary) << text;
  fs::permissions(path, perms);
}

// ---- Format ---------------------------------------------------------------------------

TEST(Genesis, JsonRoundTripsAndIsCanonical) {
  const Genesis genesis = sample_genesis();
  ASSERT_TRUE(check_genesis(genesis));
  const std::string text = genesis_to_json(genesis);
  const auto parsed = parse_genesis(text);
  ASSERT_TRUE(parsed) << parsed.error().reason;
  EXPECT_EQ(*parsed, genesis);
  EXPECT_EQ(genesis_to_json(*parsed), text);
  EXPECT_EQ(text.back(), '\n');
  // Fixed key order, integers as written.
  const auto at = [&text](const std::string& needle) { return text.find(needle); };
  EXPECT_LT(at("\"chain_id\": 77"), at("\"fees\""));
  EXPECT_LT(at("\"fees\""), at("\"limits\""));
  EXPECT_LT(at("\"limits\""), at("\"accounts\""));
  EXPECT_NE(at("18446744073709551000"), std::string::npos);
  EXPECT_EQ(at("e+"), std::string::npos);
}

TEST(Genesis, ValidatorsAreOptionalCheckedAndOutsideTheState) {
  Genesis genesis = sample_genesis();
  const std::string without = genesis_to_json(genesis);
  EXPECT_EQ(without.find("validators"), std::string::npos);
  genesis.validators.push_back({test_bundle(9).public_bundle()});
  genesis.validators.push_back({test_bundle(10, crypto::Profile::hybrid).public_bundle(), 7});
  // A hybrid bundle (Ed25519, ML-DSA-44) cannot give the default Pulse vote's SLH-DSA leg.
  EXPECT_NE(check_genesis(genesis).error().reason.find(
                "$.validators[1].keys: has no SLH-DSA-SHA2-128f key, which $.consensus.legs.pulse_vote requires"),
            std::string::npos)
      << check_genesis(genesis).error().reason;
  genesis.consensus.pulse_vote_legs = {crypto::Scheme::ml_dsa_44};
  const std::string with = genesis_to_json(genesis);
  EXPECT_NE(with.find("\"stake\": 7"), std::string::npos) << with;
  EXPECT_EQ(with.find("\"stake\": 1"), std::string::npos) << with;
  EXPECT_NE(with.find("\"pulse_vote\": [\n        \"ML-DSA-44\"\n      ]"), std::string::npos) << with;
  const auto parsed = parse_genesis(with);
  ASSERT_TRUE(parsed) << parsed.error().reason;
  EXPECT_EQ(*parsed, genesis);
  EXPECT_EQ(genesis_state_root(*parsed).value(), genesis_state_root(sample_genesis()).value());

  genesis.validators.push_back(genesis.validators[0]);
  const auto twice = check_genesis(genesis);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().reason.find("$.validators[2].keys: the same keys as $.validators[0]"), std::string::npos)
      << twice.error().reason;

  std::string unknown = with;
  unknown.replace(unknown.find("\"validators\": [\n    {"), 24, "\"validators\": [\n    {\"x\": 1, ");
  const auto refused = parse_genesis(unknown);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().reason.find("$.validators[0]"), std::string::npos) << refused.error().reason;
}

TEST(Genesis, StakesAndConsensusRulesAreChecked) {
  Genesis genesis = sample_genesis();
  genesis.validators.push_back({test_bundle(9).public_bundle(), 0});
  EXPECT_NE(check_genesis(genesis).error().reason.find("$.validators[0].stake: a validator's stake must be at least 1"),
            std::string::npos);
  genesis.validators[0].stake = kMaxTotalStake - 1;
  genesis.validators.push_back({test_bundle(10).public_bundle(), 1});
  EXPECT_NE(
      check_genesis(genesis).error().reason.find("$.validators[1].stake: the validators' total stake reaches 2^62"),
      std::string::npos);
  genesis.validators[0].stake = 3;
  ASSERT_TRUE(check_genesis(genesis));
  genesis.consensus.vote_legs.clear();
  EXPECT_NE(check_genesis(genesis).error().reason.find("$.consensus.legs.vote: names no scheme"), std::string::npos);
  genesis.consensus.vote_legs = {crypto::Scheme::ml_dsa_44, crypto::Scheme::ml_dsa_44};
  EXPECT_NE(check_genesis(genesis).error().reason.find("$.consensus.legs.vote: names ML-DSA-44 twice"),
            std::string::npos);
  genesis.consensus.vote_legs = {crypto::Scheme::ml_dsa_44};
  genesis.consensus.max_lane_gap = 0;
  EXPECT_NE(check_genesis(genesis).error().reason.find("$.consensus.max_lane_gap: must be from 1 to 1024"),
            std::string::npos);
  genesis.consensus.max_lane_gap = 9;
  const std::string text = genesis_to_json(genesis);
  const auto parsed = parse_genesis(text);
  ASSERT_TRUE(parsed) << parsed.error().reason;
  EXPECT_EQ(*parsed, genesis);

  std::string unknown_scheme = text;
  unknown_scheme.replace(unknown_scheme.find("\"ML-DSA-44\""), 11, "\"ML-DSA-99\"");
  EXPECT_NE(parse_genesis(unknown_scheme).error().reason.find("$.consensus.legs.proposal[0]: no such signature scheme"),
            std::string::npos)
      << parse_genesis(unknown_scheme).error().reason;
  std::string missing = text;
  missing.replace(missing.find("\"max_lane_gap\""), 14, "\"lane_gap\"");
  EXPECT_FALSE(parse_genesis(missing));
}

TEST(Genesis, AcceptsAnyLayoutAndFieldOrder) {
  const std::string keys = keys_hex(test_bundle(4).public_bundle());
  const std::string text = R"({"accounts":[{"coins":[1,2,3],"keys":")" + keys +
                           R"("}],"limits":{"max_transactions":4294967295,"max_bytes":0,
      "max_auth_bytes":18446744073709551615,"max_verify_units":9},
      "fees":{"per_verify_unit":0,"per_byte":0},"chain_id":-0})";
  const auto genesis = parse_genesis(text);
  ASSERT_TRUE(genesis) << genesis.error().reason;
  EXPECT_EQ(genesis->params.chain_id, 0u);
  EXPECT_EQ(genesis->params.limits.max_transactions, 4294967295u);
  EXPECT_EQ(genesis->params.limits.max_auth_bytes, 18446744073709551615u);
  EXPECT_EQ(genesis->accounts.at(0).coins, (std::vector<Amount>{1, 2, 3}));
}

// A document from its four parts, each given as JSON text.
std::string document(const std::string& chain_id, const std::string& fees, const std::string& limits,
                     const std::string& accounts, const std::string& extra = "") {
  return "{\"chain_id\": " + chain_id + ", \"fees\": " + fees + ", \"limits\": " + limits +
         ", \"accounts\": " + accounts + extra + "}";
}

const std::string kFees = R"({"per_byte": 1, "per_verify_unit": 2})";
const std::string kLimits = R"({"max_verify_units": 1, "max_auth_bytes": 2, "max_bytes": 3, "max_transactions": 4})";

std::string account_json(const std::string& keys, const std::string& coins) {
  return "{\"keys\": \"" + keys + "\", \"coins\": " + coins + "}";
}

TEST(Genesis, MalformedInputIsRefusedNamingThePath) {
  const std::string a = keys_hex(test_bundle(5).public_bundle());
  const std::string b = keys_hex(test_bundle(6).public_bundle());
  const std::string good_accounts = "[" + account_json(a, "[5]") + ", " + account_json(b, "[7, 8]") + "]";
  ASSERT_TRUE(parse_genesis(document("1", kFees, kLimits, good_accounts)));

  crypto::KeyBundle short_key;
  short_key.parts.push_back(
      {crypto::Scheme::ml_dsa_44, codec::VarBytes<crypto::kMaxPublicKeyBytes>(base::Bytes{1, 2, 3})});
  std::string deep = "1";
  for (int i = 0; i < 40; ++i) deep = "[" + deep + "]";

  struct Case {
    std::string text;
    std::string message;  // the start of the expected reason
  };
  const std::vector<Case> cases = {
      // numbers
      {document("1.5", kFees, kLimits, good_accounts), "genesis: $.chain_id: expected an unsigned integer, got 1.5"},
      {document("1e3", kFees, kLimits, good_accounts), "genesis: $.chain_id: expected an unsigned integer, got 1e3"},
      {document("1.0", kFees, kLimits, good_accounts), "genesis: $.chain_id: expected an unsigned integer, got 1.0"},
      {document("-1", kFees, kLimits, good_accounts), "genesis: $.chain_id: expected an unsigned integer, got -1"},
      {document("-99999999999999999999", kFees, kLimits, good_accounts),
       "genesis: $.chain_id: expected an unsigned integer, got -99999999999999999999"},
      {document("\"1\"", kFees, kLimits, good_accounts),
       "genesis: $.chain_id: expected an unsigned integer, got the string \"1\""},
      {document("null", kFees, kLimits, good_accounts), "genesis: $.chain_id: expected an unsigned integer, got null"},
      {document("true", kFees, kLimits, good_accounts), "genesis: $.chain_id: expected an unsigned integer, got true"},
      {document("18446744073709551616", kFees, kLimits, good_accounts),
       "genesis: $.chain_id: value 18446744073709551616 is over the maximum 18446744073709551615"},
      {document(std::string(50, '9') + ".5", kFees, kLimits, good_accounts),
       "genesis: $.chain_id: expected an unsigned integer, got " + std::string(40, '9') + "..."},
      {document(std::string(50, '9'), kFees, kLimits, good_accounts),
       "genesis: $.chain_id: value " + std::string(40, '9') + "... is over the maximum 18446744073709551615"},
      {document("1", R"({"per_byte": 1, "per_verify_unit": -2})", kLimits, good_accounts),
       "genesis: $.fees.per_verify_unit: expected an unsigned integer, got -2"},
      {document("1", kFees,
                R"({"max_verify_units": 1, "max_auth_bytes": 2, "max_bytes": 3, "max_transactions": 4294967296})",
                good_accounts),
       "genesis: $.limits.max_transactions: value 4294967296 is over the maximum 4294967295"},
      {document("1", kFees, kLimits, "[" + account_json(a, "[5]") + ", " + account_json(b, "[7, -5]") + "]"),
       "genesis: $.accounts[1].coins[1]: expected an unsigned integer, got -5"},
      {document("1", kFees, kLimits, "[" + account_json(a, "[2.5]") + "]"),
       "genesis: $.accounts[0].coins[0]: expected an unsigned integer, got 2.5"},
      // missing, unknown, duplicate and mistyped fields
      {"{\"fees\": " + kFees + ", \"limits\": " + kLimits + ", \"accounts\": " + good_accounts + "}",
       "genesis: $: missing field \"chain_id\""},
      {document("1", R"({"per_byte": 1})", kLimits, good_accounts),
       "genesis: $.fees: missing field \"per_verify_unit\""},
      {document("1", R"({"per_byte": 1, "per_verify_unit": 2, "per_kb": 3})", kLimits, good_accounts),
       "genesis: $.fees: unknown field \"per_kb\""},
      {document("1", kFees, kLimits, good_accounts, ", \"extra\": 1"), "genesis: $: unknown field \"extra\""},
      {document("1", kFees, kLimits, good_accounts, ", \"chain_id\": 2"), "genesis: $: duplicate field \"chain_id\""},
      {document("1", kFees, kLimits, "[{\"keys\": \"" + a + "\"}]"), "genesis: $.accounts[0]: missing field \"coins\""},
      {document("1", kFees, kLimits, "[{\"keys\": \"" + a + "\", \"coins\": [], \"nonce\": 0}]"),
       "genesis: $.accounts[0]: unknown field \"nonce\""},
      {document("1", "[]", kLimits, good_accounts), "genesis: $.fees: expected an object, got an array"},
      {document("1", kFees, kLimits, "{}"), "genesis: $.accounts: expected an array, got an object"},
      {document("1", kFees, kLimits, "[5]"), "genesis: $.accounts[0]: expected an object, got 5"},
      {document("1", kFees, kLimits, "[" + account_json(a, "5") + "]"),
       "genesis: $.accounts[0].coins: expected an array, got 5"},
      {document("1", kFees, kLimits, "[{\"keys\": 5, \"coins\": []}]"),
       "genesis: $.accounts[0].keys: expected a string of hex digits, got 5"},
      // keys
      {document("1", kFees, kLimits, "[" + account_json("zz", "[1]") + "]"),
       "genesis: $.accounts[0].keys: expected lower-case hex digits"},
      {document("1", kFees, kLimits, "[" + account_json("AB", "[1]") + "]"),
       "genesis: $.accounts[0].keys: expected lower-case hex digits"},
      {document("1", kFees, kLimits, "[" + account_json("abc", "[1]") + "]"),
       "genesis: $.accounts[0].keys: an odd number of hex digits"},
      {document("1", kFees, kLimits, "[" + account_json("", "[1]") + "]"), "genesis: $.accounts[0].keys: empty"},
      {document("1", kFees, kLimits, "[" + account_json(a + "00", "[1]") + "]"),
       "genesis: $.accounts[0].keys: not the encoding of a key bundle: "},
      {document("1", kFees, kLimits, "[" + account_json(keys_hex(short_key), "[1]") + "]"),
       "genesis: $.accounts[0].keys: "},
      {document("1", kFees, kLimits,
                "[" + account_json(a, "[1]") + ", " + account_json(b, "[]") + ", " + account_json(a, "[2]") + "]"),
       "genesis: $.accounts[2].keys: the same account as $.accounts[0]"},
      // amounts and supply
      {document("1", kFees, kLimits, "[" + account_json(a, "[1, 0]") + "]"),
       "genesis: $.accounts[0].coins[1]: a coin's amount must be at least 1"},
      {document("1", kFees, kLimits,
                "[" + account_json(a, "[18446744073709551615]") + ", " + account_json(b, "[1]") + "]"),
       "genesis: $.accounts[1].coins[0]: the total supply passes 2^64 - 1"},
      {document("1", kFees, kLimits, "[]"), "genesis: $.accounts: no accounts"},
      // not a genesis document at all
      {"", "genesis: not JSON: "},
      {document("1", kFees, kLimits, good_accounts) + "x", "genesis: not JSON: "},
      {"[1, 2]", "genesis: $: expected an object, got an array"},
      {"{\"chain_id\": " + deep + "}", "genesis: $.chain_id"},
  };
  for (const Case& c : cases) {
    const auto parsed = parse_genesis(c.text);
    ASSERT_FALSE(parsed) << c.message;
    EXPECT_EQ(parsed.error().code, base::Errc::invalid_value) << c.message;
    EXPECT_EQ(parsed.error().reason.rfind(c.message, 0), 0u)
        << "got: " << parsed.error().reason << "\nexpected: " << c.message;
  }
}

TEST(Genesis, NestingIsBounded) {
  std::string deep = "1";
  for (int i = 0; i < 40; ++i) deep = "[" + deep + "]";
  const auto parsed = parse_genesis("{\"chain_id\": " + deep + "}");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().reason.find("nested more than 32 levels deep"), std::string::npos) << parsed.error().reason;
}

// ---- Derived state ---------------------------------------------------------------------------

TEST(Genesis, WritesHoldAccountsAndNumberedCoins) {
  const Genesis genesis = sample_genesis();
  const auto writes = genesis_writes(genesis);
  ASSERT_EQ(writes.size(), 3u + 3u);
  EXPECT_TRUE(std::is_sorted(writes.begin(), writes.end(), [](const auto& x, const auto& y) { return x.id < y.id; }));
  const auto find = [&writes](const Id& id) -> const state::Object& {
    const auto it = std::find_if(writes.begin(), writes.end(), [&id](const auto& w) { return w.id == id; });
    EXPECT_NE(it, writes.end());
    return *it->object;
  };
  for (const GenesisAccount& account : genesis.accounts) {
    const state::Object& object = find(account_id(account.keys));
    EXPECT_EQ(object.version, 1u);
    EXPECT_EQ(account_from(object).value(), (Account{crypto::bundle_id(account.keys), 0}));
  }
  // Coins numbered across accounts in file order; the all-zero tx id.
  const Id first = account_id(genesis.accounts[0].keys);
  const Id third = account_id(genesis.accounts[2].keys);
  const std::vector<Coin> expected = {{first, 10}, {first, 20}, {third, 18'446'744'073'709'551'000u}};
  for (std::uint32_t j = 0; j < expected.size(); ++j) {
    EXPECT_EQ(genesis_coin_id(j), coin_id(Id{}, j));
    const state::Object& object = find(genesis_coin_id(j));
    EXPECT_EQ(object.version, 1u);
    EXPECT_EQ(coin_from(object).value(), expected[j]);
  }
  EXPECT_EQ(total_supply(genesis).value(), 18'446'744'073'709'551'030u);
}

TEST(Genesis, StateRootIsTheRootOfTheWrites) {
  const Genesis genesis = sample_genesis();
  const auto writes = genesis_writes(genesis);
  std::vector<commit::StateEntry> entries;
  for (const auto& write : writes) entries.push_back({write.id, state::object_hash(*write.object)});
  const auto root = genesis_state_root(genesis);
  ASSERT_TRUE(root);
  EXPECT_EQ(*root, commit::state_root(entries).value());

  // The same root an object store reaches by applying the writes.
  TempDir dir;
  auto store = state::ObjectStore::open(dir / "store", {.retain_versions = 2, .sync_writes = false});
  ASSERT_TRUE(store) << store.error().reason;
  ASSERT_TRUE((*store)->apply(writes));
  EXPECT_EQ((*store)->root(), *root);

  Genesis other = genesis;
  other.accounts[0].coins[1] += 1;
  EXPECT_NE(genesis_state_root(other).value(), *root);
}

// ---- Files -------------------------------------------------------------------------------------

TEST(GenesisFiles, GenesisFilesReadBackAndAreNotOverwritten) {
  TempDir dir;
  const Genesis genesis = sample_genesis();
  const std::string path = dir / "genesis.json";
  ASSERT_TRUE(write_genesis_file(path, genesis, false));
  EXPECT_EQ(read_genesis_file(path).value(), genesis);

  Genesis changed = genesis;
  changed.params.chain_id = 78;
  const auto refused = write_genesis_file(path, changed, false);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().reason.find("already exists"), std::string::npos);
  EXPECT_EQ(read_genesis_file(path).value(), genesis);
  ASSERT_TRUE(write_genesis_file(path, changed, true));
  EXPECT_EQ(read_genesis_file(path).value(), changed);

  write_text(dir / "bad.json", "{\"chain_id\": 1}", fs::perms::owner_read | fs::perms::owner_write);
  const auto bad = read_genesis_file(dir / "bad.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().reason, dir / "bad.json" + ": genesis: $: missing field \"fees\"");
  EXPECT_EQ(read_genesis_file(dir / "none.json").error().code, base::Errc::not_found);
}

// The attack: a FIFO named as the genesis file made the reader wait forever
// for a writer. It is refused at once (base::read_file opens with
// O_NONBLOCK and checks the kind on the opened descriptor).
TEST(GenesisFiles, AFifoIsRefusedNotWaitedOn) {
  TempDir dir;
  const std::string fifo = dir / "genesis.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto blocked_or_read = base::testing::read_unless_blocked(fifo, [&] { return read_genesis_file(fifo); });
  ASSERT_TRUE(blocked_or_read.has_value()) << "read_genesis_file blocked on a FIFO";
  const auto& read = *blocked_or_read;
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, base::Errc::invalid_argument);
  EXPECT_EQ(read.error().reason, "genesis file '" + fifo + "': not a regular file (a FIFO)");
}

// The writer refuses exactly what the reader refuses: sizes up to
// kMaxGenesisFileBytes are written and read, one byte more is neither.
TEST(GenesisFiles, WriterAndReaderAgreeOnTheSizeLimit) {
  EXPECT_TRUE(check_genesis_file_size(kMaxGenesisFileBytes));
  const auto over = check_genesis_file_size(kMaxGenesisFileBytes + 1);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code, base::Errc::invalid_argument);
  EXPECT_NE(over.error().reason.find("over the 1073741824 a node reads"), std::string::npos) << over.error().reason;

  TempDir dir;
  const std::string path = dir / "big.json";
  { std::ofstream(path, std::ios::binary).put(' '); }
  fs::resize_file(path, kMaxGenesisFileBytes + 1);  // sparse: no disk used
  const auto read = read_genesis_file(path);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, base::Errc::length_over_max);
  EXPECT_EQ(read.error().reason, "genesis file '" + path + "': larger than 1073741824 bytes");
}

}  // namespace
}  // namespace sion::exec
