// Fault tests of a four-validator devnet, each validator its own `sion node`
// process on loopback (docs/node-config.md, "Devnet folder" and the
// [testing] hooks): a validator killed outright catches up after a restart,
// an equivocating leader is caught while the honest ones agree, a two
// against two partition stalls without forking and heals, 50 ms links keep
// the chain live, and a validator whose consensus store fails halts instead
// of voting. Every wait has a deadline; a failure prints the tail of every
// validator's node.log.

#include <arpa/inet.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sion/base/executor.hpp"
#include "sion/base/file.hpp"
#include "sion/base/json.hpp"
#include "sion/base/process_group.hpp"
#include "sion/base/testing/sanitizers.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/consensus/messages.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/http/client.hpp"
#include "sion/net/free_ports.hpp"
#include "sion/node/config.hpp"
#include "sion/node/devnet_dir.hpp"
#include "sion/wallet/load_plan.hpp"
#include "sion/wallet/node_api.hpp"

#ifndef SION_BINARY
#error "SION_BINARY must name the sion executable (src/cli/CMakeLists.txt)"
#endif

namespace sion::cli {
namespace {

using namespace std::chrono_literals;
using base::Errc;
using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

constexpr std::size_t kValidators = 4;
constexpr std::uint16_t kPorts = 2 * kValidators;  // validator K: API P + 2K, consensus P + 1 + 2K
constexpr std::size_t kLogLines = 40;              // of each node.log shown on a failure
// A healthy devnet starts in under a second and executes a transfer within a
// few (a round whose leader is down waits out its 1.5 s timeout, doubling
// while rounds fail); the margin is for a loaded host and sanitizer builds.
constexpr Milliseconds kStartLimit = 30s;
constexpr Milliseconds kExecuteLimit = 30s;

// A step that must succeed: its error says what failed or was waited for.
#define SION_ASSERT_OK(...)                                                               \
  do {                                                                                    \
    const auto& sion_step = (__VA_ARGS__);                                                \
    ASSERT_TRUE(sion_step.ok()) << (sion_step.ok() ? "" : sion_step.error().to_string()); \
  } while (0)

// ---- Ports and logs ------------------------------------------------------------------------

std::string file_tail(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  if (!in) return "(no " + path + ")";
  std::deque<std::string> kept;
  std::string line;
  while (std::getline(in, line)) {
    kept.push_back(std::move(line));
    if (kept.size() > lines) kept.pop_front();
  }
  std::string out;
  for (const std::string& kept_line : kept) out += "    " + kept_line + "\n";
  return out;
}

// ---- One validator's API -------------------------------------------------------------------

// Over a connection of its own, with short timeouts: a validator that stops
// answering fails a wait instead of hanging it.
class ValidatorApi {
 public:
  explicit ValidatorApi(std::shared_ptr<http::Client> client)
      : client_(client),
        wallet_([client](std::string_view method, std::string_view path, std::string_view body,
                         std::string_view content_type) -> base::Result<wallet::HttpReply> {
          auto response = method == "POST" ? client->post(path, body, content_type) : client->get(path);
          if (!response) return base::fail(std::move(response).error());
          const std::string* type = response->header("Content-Type");
          return wallet::HttpReply{response->status, type != nullptr ? *type : "", std::move(response->body)};
        }) {}

  static base::Result<std::unique_ptr<ValidatorApi>> connect(const node::HostPort& address) {
    http::ClientOptions options;
    options.connect_timeout = 2s;
    options.read_timeout = 10s;
    SION_TRY(http::Client client, http::Client::create(fmt::format("http://{}", node::to_string(address)), options));
    return std::make_unique<ValidatorApi>(std::make_shared<http::Client>(std::move(client)));
  }

  wallet::NodeApi& wallet() { return wallet_; }

  // GET `path`: a 200 reply's JSON body.
  base::Result<base::JsonValue> get_json(const std::string& path) {
    SION_TRY(http::ClientResponse response, client_->get(path));
    if (response.status != 200) {
      return base::fail(Errc::io_error, fmt::format("GET {}: status {}: {}", path, response.status, response.body));
    }
    return base::parse_json(response.body);
  }

  base::Status post_json(const std::string& path, const std::string& body) {
    SION_TRY(http::ClientResponse response, client_->post(path, body));
    if (response.status != 200) {
      return base::fail(Errc::io_error,
                        fmt::format("POST {} {}: status {}: {}", path, body, response.status, response.body));
    }
    return {};
  }

 private:
  std::shared_ptr<http::Client> client_;
  wallet::NodeApi wallet_;
};

// ---- The devnet ----------------------------------------------------------------------------

using ConfigEdit = std::function<void(std::size_t validator, node::NodeConfig& config)>;

// What one height holds at one validator.
struct PulseSummary {
  commit::Hash hash{};
  commit::Hash state_root{};
  std::uint64_t time_ms = 0;
};

class Devnet {
 public:
  // A devnet folder for four validators on free loopback ports, each
  // validator's node.toml rewritten after `edit` changed it.
  static base::Result<std::unique_ptr<Devnet>> create(const ConfigEdit& edit = {}) {
    std::unique_ptr<Devnet> net(new Devnet());
    node::DevnetDirSpec spec;
    spec.dir = net->temp_ / "devnet";
    spec.validators = kValidators;
    SION_TRY(spec.api_address.port, net::free_loopback_ports(kPorts));
    SION_TRY(net->devnet_, node::create_devnet_dir(spec));
    for (std::size_t k = 0; k < kValidators; ++k) {
      node::NodeConfig config = net->devnet_.configs[k];
      // The tests poll and submit from one address faster than a client should.
      config.api.rate_per_client = 0;
      if (edit) edit(k, config);
      SION_TRY_STATUS(base::replace_file(net->devnet_.config_paths[k], node::config_to_toml(config),
                                         base::WriteFileOptions{"node.toml", 0600, false}));
      net->devnet_.configs[k] = std::move(config);
      SION_TRY(auto api, ValidatorApi::connect(net->devnet_.configs[k].api.address));
      net->apis_.push_back(std::move(api));
    }
    net->process_of_.resize(kValidators);
    SION_TRY(net->genesis_, exec::read_genesis_file(net->devnet_.dir + "/genesis.json"));
    return net;
  }

  ~Devnet() {
    if (::testing::Test::HasFailure()) {
      std::string dump = fmt::format("devnet in {} (heights: {}); the end of each validator's log:\n", devnet_.dir,
                                     describe_heights());
      for (std::size_t k = 0; k < kValidators; ++k) {
        dump += fmt::format("--- validator {} ({}):\n{}", k, log_path(k), file_tail(log_path(k), kLogLines));
      }
      std::fputs(dump.c_str(), stderr);
    }
    processes_.stop(5s);
  }
  Devnet(const Devnet&) = delete;
  Devnet& operator=(const Devnet&) = delete;

  const exec::Genesis& genesis() const noexcept { return genesis_; }
  std::string key_dir() const { return devnet_.dir + "/keys"; }
  std::string log_path(std::size_t k) const {
    return devnet_.configs[k].log.file.value_or(devnet_.dir + fmt::format("/validator-{}/node.log", k));
  }
  ValidatorApi& api(std::size_t k) { return *apis_.at(k); }

  // Runs `sion node --config` for validator k, its output appended to its log.
  base::Status spawn(std::size_t k) {
    SION_TRY(const std::size_t index,
             processes_.spawn(SION_BINARY, {"sion", "node", "--config", devnet_.config_paths[k]}, log_path(k)));
    process_of_[k] = index;
    return {};
  }

  // Starts every validator, then waits for every API and for every
  // validator to be connected to the three others.
  base::Status start_all() {
    for (std::size_t k = 0; k < kValidators; ++k) SION_TRY_STATUS(spawn(k));
    for (std::size_t k = 0; k < kValidators; ++k) SION_TRY_STATUS(wait_api(k));
    return wait("every validator connected to the three others", kStartLimit, [&]() -> base::Result<bool> {
      for (std::size_t k = 0; k < kValidators; ++k) {
        SION_TRY(const base::JsonValue status, api(k).get_json("/v1/consensus"));
        if (status.value("connected", base::JsonValue::array()).size() != kValidators - 1) return false;
      }
      return true;
    });
  }

  base::Status wait_api(std::size_t k) {
    return wait(fmt::format("validator {}'s API", k), kStartLimit,
                [&]() -> base::Result<bool> { return api(k).wallet().status().ok(); });
  }

  // SIGKILL, then reaped.
  base::Status kill(std::size_t k) {
    if (!process_of_[k]) return base::fail(Errc::internal, fmt::format("validator {} was not started", k));
    return processes_.kill_and_reap(*process_of_[k], SIGKILL);
  }

  // Polls `done` until it answers true. An error from `done` counts as "not
  // yet" (a validator still starting refuses connections) and is quoted if
  // the wait fails. Fails when `limit` has passed, naming `what` and every
  // height, or as soon as a validator this started has exited.
  base::Status wait(const std::string& what, Milliseconds limit, const std::function<base::Result<bool>()>& done) {
    const auto deadline = Clock::now() + limit;
    std::string last_error;
    for (;;) {
      SION_TRY_STATUS(check_running());
      auto answer = done();
      if (answer.ok() && *answer) return {};
      if (!answer.ok()) last_error = "; last error: " + answer.error().to_string();
      if (Clock::now() >= deadline) {
        return base::fail(Errc::io_error, fmt::format("waited {} ms for {}; heights now: {}{}", limit.count(), what,
                                                      describe_heights(), last_error));
      }
      std::this_thread::sleep_for(50ms);
    }
  }

  // A validator that ended on its own is a failure whatever the test waits for.
  base::Status check_running() {
    if (const auto ended = processes_.wait_any([] { return true; })) {
      for (std::size_t k = 0; k < kValidators; ++k) {
        if (process_of_[k] == ended->index) {
          return base::fail(Errc::internal, fmt::format("validator {} {}", k, ended->describe()));
        }
      }
    }
    return {};
  }

  base::Result<std::uint64_t> height(std::size_t k) {
    SION_TRY(const wallet::NodeStatus status, api(k).wallet().status());
    return status.height;
  }

  std::string describe_heights() {
    std::string out;
    for (std::size_t k = 0; k < kValidators; ++k) {
      auto h = height(k);
      out += fmt::format("{}{}", k == 0 ? "" : " ", h ? std::to_string(*h) : "-");
    }
    return out;
  }

  // Pulses 1 ..= the validator's height now.
  base::Result<std::vector<PulseSummary>> chain(std::size_t k, std::uint64_t from = 1) {
    SION_TRY(const std::uint64_t top, height(k));
    std::vector<PulseSummary> out;
    for (std::uint64_t h = from; h <= top; ++h) {
      SION_TRY_CONTEXT(const wallet::PulseReply pulse, fmt::format("validator {} Pulse {}", k, h),
                       api(k).wallet().pulse(h));
      out.push_back({pulse.hash, pulse.header.state_root, pulse.header.time_ms});
    }
    return out;
  }

  // Every height two of `validators` both have holds the same Pulse hash and
  // state root at both.
  base::Status agree(const std::vector<std::size_t>& validators) {
    std::vector<std::vector<PulseSummary>> chains;
    for (const std::size_t k : validators) {
      SION_TRY(auto c, chain(k));
      chains.push_back(std::move(c));
    }
    for (std::size_t a = 0; a < validators.size(); ++a) {
      for (std::size_t b = a + 1; b < validators.size(); ++b) {
        const std::size_t common = std::min(chains[a].size(), chains[b].size());
        for (std::size_t i = 0; i < common; ++i) {
          if (chains[a][i].hash != chains[b][i].hash || chains[a][i].state_root != chains[b][i].state_root) {
            return base::fail(
                Errc::internal,
                fmt::format("validators {} and {} disagree at height {}: Pulse {} root {} against Pulse {} root {}",
                            validators[a], validators[b], i + 1, base::to_hex(chains[a][i].hash),
                            base::to_hex(chains[a][i].state_root), base::to_hex(chains[b][i].hash),
                            base::to_hex(chains[b][i].state_root)));
          }
        }
      }
    }
    return {};
  }

  // Waits until every one of `ids` has executed at every one of `validators`.
  base::Status wait_executed(const std::vector<exec::Id>& ids, const std::vector<std::size_t>& validators,
                             Milliseconds limit = kExecuteLimit) {
    // Per validator, how many of `ids` (in order) are known to have executed.
    std::vector<std::size_t> seen(kValidators, 0);
    return wait(fmt::format("{} transfers to execute at validators {}", ids.size(), fmt::join(validators, ",")), limit,
                [&]() -> base::Result<bool> {
                  for (const std::size_t k : validators) {
                    while (seen[k] < ids.size()) {
                      SION_TRY(const wallet::TxState state, api(k).wallet().tx_status(ids[seen[k]]));
                      if (!state.executed()) return false;
                      ++seen[k];
                    }
                  }
                  return true;
                });
  }

 private:
  Devnet() = default;

  base::testing::TempDir temp_;  // outlives the processes below
  node::DevnetDir devnet_;
  exec::Genesis genesis_;
  std::vector<std::unique_ptr<ValidatorApi>> apis_;
  base::ProcessGroup processes_;
  std::vector<std::optional<std::size_t>> process_of_;  // validator -> its current process
};

// ---- Transfers -----------------------------------------------------------------------------

// Transfers signed before the clock starts, from the devnet's first
// accounts: each account's are a chain (each spends its predecessor's
// change), so one account's go to one validator, in order.
class Transfers {
 public:
  static base::Result<Transfers> sign(const Devnet& net, std::size_t accounts, std::uint64_t per_account) {
    SION_TRY(const std::vector<wallet::LoadAccount> senders,
             wallet::load_accounts(net.genesis(), net.key_dir(), accounts));
    if (senders.size() != accounts) {
      return base::fail(Errc::internal, fmt::format("{} accounts asked for, {} found", accounts, senders.size()));
    }
    base::Executor executor;
    wallet::PlanOptions options;
    options.per_account = per_account;
    options.executor = &executor;
    Transfers out;
    SION_TRY(out.plan_, wallet::plan_transfers(senders, net.genesis().params, options));
    out.sent_.assign(accounts, 0);
    return out;
  }

  std::size_t accounts() const noexcept { return plan_.accounts; }

  // Submits account `account`'s next transfer to validator `to`.
  base::Result<exec::Id> send(Devnet& net, std::size_t account, std::size_t to) {
    if (sent_.at(account) == plan_.per_account) {
      return base::fail(Errc::internal, fmt::format("account {} has no signed transfer left", account));
    }
    const wallet::PlannedTx& tx = plan_.txs[sent_[account] * plan_.accounts + account];
    SION_TRY_CONTEXT(const wallet::Submission submission, fmt::format("submitting to validator {}", to),
                     net.api(to).wallet().submit_encoded(tx.encoding, tx.id));
    if (!submission.admitted()) {
      return base::fail(Errc::internal, fmt::format("validator {} refused account {}'s transfer {}: {}", to, account,
                                                    sent_[account], submission.refusal->to_string()));
    }
    ++sent_[account];
    return tx.id;
  }

  // `rounds` transfers of every account, account a's to validator targets[a].
  base::Result<std::vector<exec::Id>> send_rounds(Devnet& net, std::uint64_t rounds,
                                                  const std::vector<std::size_t>& targets) {
    std::vector<exec::Id> ids;
    for (std::uint64_t r = 0; r < rounds; ++r) {
      for (std::size_t a = 0; a < plan_.accounts; ++a) {
        SION_TRY(const exec::Id id, send(net, a, targets.at(a)));
        ids.push_back(id);
      }
    }
    return ids;
  }

 private:
  wallet::LoadPlan plan_;
  std::vector<std::uint64_t> sent_;
};

std::uint64_t median(std::vector<std::uint64_t> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

const std::vector<std::size_t> kAll = {0, 1, 2, 3};

// ---- The tests -----------------------------------------------------------------------------

TEST(DevnetFaults, OneOfFourKilledThenRestartedCatchesUp) {
  auto net = Devnet::create();
  SION_ASSERT_OK(net);
  Devnet& d = **net;
  SION_ASSERT_OK(d.start_all());
  constexpr int kRoundsWhileDown = 3;
  auto transfers = Transfers::sign(d, 3, 2 + kRoundsWhileDown);
  SION_ASSERT_OK(transfers);

  auto first = transfers->send_rounds(d, 1, {0, 1, 2});
  SION_ASSERT_OK(first);
  SION_ASSERT_OK(d.wait_executed(*first, kAll));

  SION_ASSERT_OK(d.kill(3));
  const auto killed_at = d.height(0);
  SION_ASSERT_OK(killed_at);
  // Three of four are a quorum: Pulses go on without validator 3, one at
  // least for each round of transfers (each waits for the one before).
  for (int r = 0; r < kRoundsWhileDown; ++r) {
    auto ids = transfers->send_rounds(d, 1, {0, 1, 2});
    SION_ASSERT_OK(ids);
    SION_ASSERT_OK(d.wait_executed(*ids, {0, 1, 2}));
  }
  const auto target = d.height(0);
  SION_ASSERT_OK(target);
  EXPECT_GE(*target, *killed_at + kRoundsWhileDown);

  SION_ASSERT_OK(d.spawn(3));
  SION_ASSERT_OK(d.wait_api(3));
  SION_ASSERT_OK(
      d.wait(fmt::format("validator 3 to catch up to height {}", *target), kExecuteLimit, [&]() -> base::Result<bool> {
        SION_TRY(const std::uint64_t h, d.height(3));
        return h >= *target;
      }));
  // It takes part again: what it is sent executes everywhere.
  auto third = transfers->send_rounds(d, 1, {3, 3, 3});
  SION_ASSERT_OK(third);
  SION_ASSERT_OK(d.wait_executed(*third, kAll));
  SION_ASSERT_OK(d.agree(kAll));
}

TEST(DevnetFaults, AnEquivocatingLeaderIsCaughtAndSafetyHolds) {
  constexpr std::uint32_t kLiar = 1;
  auto net = Devnet::create([](std::size_t k, node::NodeConfig& config) { config.testing.equivocate = k == kLiar; });
  SION_ASSERT_OK(net);
  Devnet& d = **net;
  SION_ASSERT_OK(d.start_all());
  auto transfers = Transfers::sign(d, 3, 6);
  SION_ASSERT_OK(transfers);

  // Leaders rotate every round; a few seconds of Pulses give validator 1
  // several rounds to lead.
  std::vector<exec::Id> sent;
  for (int r = 0; r < 6; ++r) {
    auto ids = transfers->send_rounds(d, 1, {0, 2, 3});
    SION_ASSERT_OK(ids);
    sent.insert(sent.end(), ids->begin(), ids->end());
    std::this_thread::sleep_for(400ms);
  }
  SION_ASSERT_OK(d.wait_executed(sent, {0, 2, 3}));

  // The API names a message's kind as consensus::message_name does.
  const std::string proposal(consensus::message_name(consensus::Message{consensus::ProposalMessage{}}));
  base::JsonValue found;
  SION_ASSERT_OK(d.wait("evidence against validator 1 at validator 0", kExecuteLimit, [&]() -> base::Result<bool> {
    SION_TRY(const base::JsonValue reply, d.api(0).get_json("/v1/evidence"));
    for (const base::JsonValue& record : reply.at("evidence")) {
      if (record.at("offender") == kLiar && record.at("first_kind") == proposal &&
          record.at("second_kind") == proposal) {
        found = record;
        return true;
      }
    }
    return false;
  }));
  const auto first_bytes = base::from_hex(found.at("first_hex").get<std::string>());
  const auto second_bytes = base::from_hex(found.at("second_hex").get<std::string>());
  SION_ASSERT_OK(first_bytes);
  SION_ASSERT_OK(second_bytes);
  const auto first = consensus::decode_message(*first_bytes);
  const auto second = consensus::decode_message(*second_bytes);
  SION_ASSERT_OK(first);
  SION_ASSERT_OK(second);
  const auto* one = std::get_if<consensus::ProposalMessage>(&*first);
  const auto* other = std::get_if<consensus::ProposalMessage>(&*second);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(one->block.author, kLiar);
  EXPECT_EQ(other->block.author, kLiar);
  EXPECT_EQ(one->block.round, other->block.round);
  EXPECT_NE(consensus::block_hash(one->block), consensus::block_hash(other->block));
  EXPECT_NE(*first_bytes, *second_bytes);

  SION_ASSERT_OK(d.agree({0, 2, 3}));
}

TEST(DevnetFaults, APartitionTwoAgainstTwoStallsWithoutForkingAndHeals) {
  auto net = Devnet::create([](std::size_t, node::NodeConfig& config) { config.testing.control_routes = true; });
  SION_ASSERT_OK(net);
  Devnet& d = **net;
  SION_ASSERT_OK(d.start_all());
  auto transfers = Transfers::sign(d, 2, 3);
  SION_ASSERT_OK(transfers);
  auto before = transfers->send_rounds(d, 1, {0, 2});
  SION_ASSERT_OK(before);
  SION_ASSERT_OK(d.wait_executed(*before, kAll));

  const auto set_partition = [&](bool blocked) -> base::Status {
    for (const std::size_t a : std::vector<std::size_t>{0, 1}) {
      for (const std::size_t b : std::vector<std::size_t>{2, 3}) {
        SION_TRY_STATUS(
            d.api(a).post_json("/v1/testing/links", fmt::format(R"({{"peer":{},"blocked":{}}})", b, blocked)));
        SION_TRY_STATUS(
            d.api(b).post_json("/v1/testing/links", fmt::format(R"({{"peer":{},"blocked":{}}})", a, blocked)));
      }
    }
    return {};
  };
  SION_ASSERT_OK(set_partition(true));
  // Account 0's to one side, account 1's to the other.
  auto during = transfers->send_rounds(d, 2, {0, 2});
  SION_ASSERT_OK(during);

  // What was under way when the links went down may still land; then nothing.
  std::this_thread::sleep_for(1s);
  std::vector<std::uint64_t> stalled;
  for (const std::size_t k : kAll) {
    const auto h = d.height(k);
    SION_ASSERT_OK(h);
    stalled.push_back(*h);
  }
  const auto watch_until = Clock::now() + 3s;
  while (Clock::now() < watch_until) {
    SION_ASSERT_OK(d.check_running());
    for (const std::size_t k : kAll) {
      const auto h = d.height(k);
      SION_ASSERT_OK(h);
      ASSERT_EQ(*h, stalled[k]) << "validator " << k << " made a Pulse without a quorum";
    }
    std::this_thread::sleep_for(100ms);
  }
  SION_ASSERT_OK(d.agree(kAll));
  for (const exec::Id& id : *during) {
    for (const std::size_t k : kAll) {
      const auto state = d.api(k).wallet().tx_status(id);
      EXPECT_FALSE(state.ok() && state->executed()) << "validator " << k << " executed a transfer while partitioned";
    }
  }

  SION_ASSERT_OK(set_partition(false));
  // Rounds time out with doubling waits while partitioned: the first round
  // after healing may start several seconds later.
  SION_ASSERT_OK(d.wait_executed(*during, kAll, 60s));
  SION_ASSERT_OK(d.agree(kAll));
}

struct LatencyRun {
  std::uint64_t median_interval_ms = 0;
  std::size_t intervals = 0;
};

// One transfer every 20 ms for 3 s (60 ms under a sanitizer; account a's to validator a) on a fresh
// devnet whose links hold every frame `delay_ms`; the median time between
// consecutive Pulses made meanwhile, as their headers' time_ms say.
base::Result<LatencyRun> run_trickle(std::uint32_t delay_ms) {
  SION_TRY(auto net,
           Devnet::create([&](std::size_t, node::NodeConfig& config) { config.testing.link_delay_ms = delay_ms; }));
  Devnet& d = *net;
  SION_TRY_STATUS(d.start_all());
  constexpr std::size_t kAccounts = 3;
  // Under a sanitizer the validators execute several times slower: 16
  // transfers per account at most, so that none is refused for running more
  // than the mempool's 16 nonces ahead of what executed.
  constexpr auto kGap = base::testing::kSanitized ? 60ms : 20ms;
  constexpr auto kSpan = base::testing::kSanitized ? 2880ms : 3000ms;
  constexpr std::uint64_t kCount = kSpan / kGap;
  SION_TRY(Transfers transfers, Transfers::sign(d, kAccounts, kCount / kAccounts));

  SION_TRY(const std::uint64_t start_height, d.height(0));
  std::vector<exec::Id> ids;
  auto next = Clock::now();
  for (std::uint64_t i = 0; i < kCount / kAccounts * kAccounts; ++i) {
    std::this_thread::sleep_until(next);
    next += kGap;
    SION_TRY(const exec::Id id, transfers.send(d, i % kAccounts, i % kAccounts));
    ids.push_back(id);
  }
  SION_TRY(const std::uint64_t end_height, d.height(0));
  // Live: every transfer executes everywhere.
  SION_TRY_STATUS(d.wait_executed(ids, kAll));
  SION_TRY(const std::vector<PulseSummary> pulses, d.chain(0, start_height + 1));
  std::vector<std::uint64_t> intervals;
  for (std::size_t i = 1; i < pulses.size() && start_height + 1 + i <= end_height; ++i) {
    intervals.push_back(pulses[i].time_ms - pulses[i - 1].time_ms);
  }
  if (intervals.empty()) {
    return base::fail(Errc::internal, fmt::format("fewer than two Pulses in the {} ms of transfers (heights {} to {})",
                                                  kSpan.count(), start_height, end_height));
  }
  return LatencyRun{median(intervals), intervals.size()};
}

TEST(DevnetFaults, FiftyMillisecondsOfLatencyKeepsItLive) {
  constexpr std::uint64_t kDelayMs = 50;
  const auto base_run = run_trickle(0);
  SION_ASSERT_OK(base_run);
  const auto delayed_run = run_trickle(kDelayMs);
  SION_ASSERT_OK(delayed_run);
  std::printf(
      "median Pulse interval under a 50/s trickle: %llu ms without delay (%zu intervals), %llu ms with %llu ms "
      "links (%zu intervals)\n",
      static_cast<unsigned long long>(base_run->median_interval_ms), base_run->intervals,
      static_cast<unsigned long long>(delayed_run->median_interval_ms), static_cast<unsigned long long>(kDelayMs),
      delayed_run->intervals);
  // Under a sanitizer only liveness counts (every transfer executed, above):
  // wall-clock bounds do not hold at its slowdown.
  if (base::testing::kSanitized) return;
  EXPECT_GE(base_run->intervals, 10u);
  EXPECT_GE(delayed_run->intervals, 10u);
  // A round needs the proposal to reach the voters and their votes the next
  // leader, two one-way delays, with lane certificates pipelined beside it
  // (measured: about 52 ms without delay, 130-140 ms with it). Four delays
  // bound it with room; the 100 ms more are two minimum Pulse intervals, for
  // four nodes and this client sharing two cores.
  EXPECT_LE(delayed_run->median_interval_ms, base_run->median_interval_ms + 4 * kDelayMs + 100);
}

TEST(DevnetFaults, AValidatorWhoseDiskFailsHaltsInsteadOfVoting) {
  constexpr std::size_t kBroken = 2;
  auto net = Devnet::create([](std::size_t k, node::NodeConfig& config) {
    if (k == kBroken) config.testing.fail_consensus_writes_after = 60;
  });
  SION_ASSERT_OK(net);
  Devnet& d = **net;
  SION_ASSERT_OK(d.start_all());
  auto transfers = Transfers::sign(d, 3, 12);
  SION_ASSERT_OK(transfers);

  // Transfers to the three others (a round every 200 ms, ten at most) until
  // validator 2's writes run out.
  const std::vector<std::size_t> others = {0, 1, 3};
  std::vector<exec::Id> sent;
  auto next_round = Clock::now();
  SION_ASSERT_OK(d.wait("validator 2 to halt", 60s, [&]() -> base::Result<bool> {
    SION_TRY(const base::JsonValue reply, d.api(kBroken).get_json("/v1/consensus"));
    if (reply.contains("halted")) return true;
    if (sent.size() < 10 * others.size() && Clock::now() >= next_round) {
      next_round += 200ms;
      SION_TRY(auto ids, transfers->send_rounds(d, 1, others));
      sent.insert(sent.end(), ids.begin(), ids.end());
    }
    return false;
  }));
  SION_ASSERT_OK(d.wait_executed(sent, others));

  const auto halted = d.api(kBroken).get_json("/v1/consensus");
  SION_ASSERT_OK(halted);
  EXPECT_NE(halted->value("halted", "").find("injected write failure"), std::string::npos) << halted->dump();
  const auto status = d.api(kBroken).wallet().status();
  SION_ASSERT_OK(status);
  EXPECT_FALSE(status->producing);
  ASSERT_TRUE(status->error.has_value());
  EXPECT_NE(status->error->find("injected write failure"), std::string::npos) << *status->error;
  const std::uint64_t halted_at = status->height;
  EXPECT_GE(halted_at, 1u) << "it should halt after a few Pulses";

  // The three others go on; validator 2 stays where it stopped, and still serves reads.
  auto more = transfers->send_rounds(d, 2, others);
  SION_ASSERT_OK(more);
  SION_ASSERT_OK(d.wait_executed(*more, others));
  for (const std::size_t k : others) {
    const auto h = d.height(k);
    SION_ASSERT_OK(h);
    EXPECT_GT(*h, halted_at) << "validator " << k;
  }
  const auto after = d.height(kBroken);
  SION_ASSERT_OK(after);
  EXPECT_EQ(*after, halted_at);
  SION_ASSERT_OK(d.check_running());
  SION_ASSERT_OK(d.agree(kAll));  // its chain is a prefix of theirs
}

}  // namespace
}  // namespace sion::cli
