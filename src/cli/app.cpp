#include "sion/cli/app.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <system_error>

#include "sion/bench/group.hpp"
#include "sion/cli/agent_commands.hpp"
#include "sion/cli/commands.hpp"
#include "sion/cli/keys.hpp"
#include "sion/cli/node_commands.hpp"
#include "sion/cli/stream_commands.hpp"
#include "sion/cli/tx_decode.hpp"
#include "sion/cli/wallet_commands.hpp"
#include "sion/node/devnet_dir.hpp"
#include "sion/wallet/tx_batch.hpp"

namespace sion::cli {
namespace {

int code(ExitCode exit_code) { return static_cast<int>(exit_code); }

// C stdio only: this also runs inside catch blocks, where it must not throw.
void print_error(const char* reason) { std::fprintf(stderr, "sion: error: %s\n", reason); }

// The environment's value, shown in help beside the option that reads it.
std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string{} : std::string(value);
}

// Options and help texts as README documents `sion bench --help`.
void add_bench(CLI::App& app, BenchOptions& options) {
  CLI::App* bench =
      app.add_subcommand("bench", "Measure the costs that decide how far this design scales, on this machine");
  bench
      ->add_option("--node", options.node,
                   fmt::format("A running devnet's API to measure [env: SION_NODE={}] [default: group devnet "
                               "starts its own]",
                               env_or_empty("SION_NODE")))
      ->envname("SION_NODE")
      ->option_text("<NODE>");
  bench
      ->add_option("--devnet-dir", options.devnet_dir,
                   fmt::format("With --node: the devnet's folder, for its genesis.json and keys/ [default: {}]",
                               bench::kDefaultDevnetDir))
      ->option_text("<DIR>");
  bench->add_flag("--quick", options.quick, "Smaller sizes");
  bench->add_flag("--no-devnet", options.no_devnet, "Skip the end-to-end devnet measurement");
  bench
      ->add_option("--only", options.only,
                   fmt::format("Run only these groups: {} (comma-separated)", bench::group_names()))
      ->option_text("<ONLY>");
  bench->add_option("--json", options.json, "Write the measurements as JSON to this file")->option_text("<JSON>");
  // Re-added so that it is listed last, as in the seed (it is inherited first).
  bench->set_help_flag();
  bench->set_help_flag("-h,--help", "Print help");

  std::string footer = "Groups:\n";
  for (const bench::Group& group : bench::all_groups()) {
    footer += fmt::format("  {:<14} {}\n", group.name, group.description);
  }
  bench->footer(footer);
}

void add_conformance(CLI::App& app, ConformanceOptions& options) {
  CLI::App* conformance = app.add_subcommand(
      "conformance", "Run signature test-vector files (NIST ACVP merged, Wycheproof) against this build");
  conformance->add_option("FILE", options.files, "Vector files (shared/vectors/README.md)")
      ->required()
      ->option_text("<FILE>...");
  conformance
      ->add_option("--max-failures", options.max_failures,
                   fmt::format("Failed cases to print per file [default: {}]", options.max_failures))
      ->option_text("<N>");
  conformance->set_help_flag();
  conformance->set_help_flag("-h,--help", "Print help");
  conformance->footer(
      "Prints `FILE: N passed, M failed[, K skipped]` per file with its failed cases, then the\n"
      "totals, `N passed, M failed`. Exit status: 0 if every case passed, 1 if any failed,\n"
      "2 if a file could not be run (unreadable, not JSON, unknown format).");
}

// Decimal digits only, within 2^64 - 1. CLI11's own conversion would take
// "-1" as 2^64 - 1, clamp values past the range and read "0x10" as 16.
CLI::Validator unsigned_decimal() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc{} || stop != end || text.front() < '0' || text.front() > '9') {
          return fmt::format("'{}' is not an unsigned decimal integer below 2^64", text);
        }
        return {};
      },
      "", "UNSIGNED");
}

void add_genesis(CLI::App& app, GenesisOptions& options) {
  CLI::App* genesis =
      app.add_subcommand("genesis", "Write a devnet genesis file and a key file for each of its funded accounts");
  genesis->add_option("--accounts", options.accounts, "Accounts to create")
      ->required()
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}))
      ->option_text("<N>");
  genesis->add_option("--out", options.out, "The genesis file to write")->required()->option_text("<FILE>");
  genesis->add_option("--keys", options.keys, "Directory for the key files [default: keys beside FILE]")
      ->option_text("<DIR>");
  genesis->add_option("--chain-id", options.chain_id, fmt::format("The chain id [default: {}]", options.chain_id))
      ->check(unsigned_decimal())
      ->option_text("<ID>");
  genesis->add_option("--amount", options.amount, fmt::format("Amount of each coin [default: {}]", options.amount))
      ->check(unsigned_decimal())
      ->option_text("<A>");
  genesis
      ->add_option("--coins-per-account", options.coins_per_account,
                   fmt::format("Coins given to each account [default: {}]", options.coins_per_account))
      ->check(unsigned_decimal())
      ->option_text("<C>");
  genesis
      ->add_option("--profile", options.profile,
                   fmt::format("Signature profile of the keys: dual, cold, strong, hybrid, classic "
                               "[default: {}]",
                               options.profile))
      ->option_text("<PROFILE>");
  genesis->add_flag("--force", options.force, "Replace an existing genesis file (key files are never replaced)");
  genesis->set_help_flag();
  genesis->set_help_flag("-h,--help", "Print help");
  genesis->footer(
      "Each key file, DIR/account-NNNN.json, holds an account's secret seed and is created\n"
      "with mode 0600 in a directory created with mode 0700; existing files are never\n"
      "overwritten. The file formats are in docs/genesis.md.\n");
}

CLI::App* add_keygen(CLI::App& app, KeygenOptions& options) {
  CLI::App* keygen = app.add_subcommand("keygen", "Make a new account key and write its key file");
  keygen
      ->add_option("--profile", options.profile,
                   fmt::format("Signature profile: dual, cold, strong, hybrid, classic [default: {}]", options.profile))
      ->option_text("<PROFILE>");
  keygen
      ->add_option("--out", options.out,
                   "The key file to write [default: ~/.sion/keys/<first 16 hex digits of the address>.json]")
      ->option_text("<FILE>");
  keygen->set_help_flag("-h,--help", "Print help");
  keygen->footer(
      "The key file holds the account's secret seed: it is created with mode 0600 in a folder\n"
      "only its owner may write to (created with mode 0700), and never overwrites a file.\n"
      "Prints the address (docs/wallet.md).");
  return keygen;
}

CLI::App* add_address(CLI::App& app, AddressOptions& options) {
  CLI::App* address = app.add_subcommand("address", "Print the address (account id) of a key file");
  address->add_option("--key", options.key, "The key file [default: the only key file in ~/.sion/keys]")
      ->option_text("<FILE>");
  address->set_help_flag("-h,--help", "Print help");
  return address;
}

// `sion tx decode`: one subcommand per action on transactions.
// The wallet commands that talk to a node.
struct WalletCommands {
  BalanceOptions balance;
  TransferOptions transfer;
  TxStatusOptions status;
  LightOptions light;
  std::uint64_t light_interval_ms = 1000;
  LoadCommandOptions load;
  std::uint64_t timeout_s = 60;
  bool no_wait = false;
  CLI::App* balance_app = nullptr;
  CLI::App* transfer_app = nullptr;
  CLI::App* status_app = nullptr;
  CLI::App* light_app = nullptr;
  CLI::App* load_app = nullptr;
};

void add_node_option(CLI::App* command, std::string& node) {
  command->add_option("--node", node, fmt::format("The node's API [env: SION_NODE] [default: {}]", kDefaultNodeUrl))
      ->envname("SION_NODE")
      ->option_text("<URL>");
}

void add_wallet_commands(CLI::App& app, CLI::App* tx, WalletCommands& commands) {
  CLI::App* balance = app.add_subcommand("balance", "Print an account's balance and coins as the node sees them");
  balance->add_option("--key", commands.balance.key, "The account's key file")->option_text("<FILE>");
  balance->add_option("--address", commands.balance.address, "The account's address")->option_text("<ADDR>");
  add_node_option(balance, commands.balance.node);
  balance->set_help_flag("-h,--help", "Print help");
  commands.balance_app = balance;

  CLI::App* transfer =
      app.add_subcommand("transfer", "Sign and submit a transfer, wait for its execution and print the receipt");
  transfer->add_option("--key", commands.transfer.key, "The sender's key file [default: the only one in ~/.sion/keys]")
      ->option_text("<FILE>");
  transfer->add_option("--to", commands.transfer.to, "The payee's address")->required()->option_text("<ADDR>");
  transfer->add_option("--amount", commands.transfer.amount, "The amount to pay")
      ->required()
      ->check(unsigned_decimal())
      ->option_text("<N>");
  transfer->add_flag("--no-wait", commands.no_wait, "Return once the node admitted it");
  transfer->add_option("--timeout", commands.timeout_s, "Seconds to wait for execution [default: 60]")
      ->check(unsigned_decimal())
      ->option_text("<S>");
  add_node_option(transfer, commands.transfer.node);
  transfer->set_help_flag("-h,--help", "Print help");
  commands.transfer_app = transfer;

  CLI::App* status =
      tx->add_subcommand("status", "What became of a transaction: pending, executed (with its receipt), ...");
  status->add_option("ID", commands.status.id, "The transaction id (64 hex digits)")->required()->option_text("<ID>");
  add_node_option(status, commands.status.node);
  status->set_help_flag("-h,--help", "Print help");
  commands.status_app = status;

  CLI::App* light = app.add_subcommand(
      "light", "A light client: follow the node's signed header log, sample data availability, check a state proof");
  light->add_option("--genesis", commands.light.genesis, "The genesis file, all the light client trusts")
      ->required()
      ->option_text("<FILE>");
  light
      ->add_option("--object", commands.light.object,
                   "The object (or account) to prove [default: the first genesis account]")
      ->option_text("<ID>");
  light->add_option("--samples", commands.light.samples, "Shares to sample per Pulse [default: 16]")
      ->check(unsigned_decimal())
      ->option_text("<N>");
  light
      ->add_option("--rounds", commands.light.rounds,
                   "Syncs to make, one per interval; 0: until interrupted [default: 1]")
      ->check(unsigned_decimal())
      ->option_text("<N>");
  light->add_option("--interval-ms", commands.light_interval_ms, "Time between syncs [default: 1000]")
      ->check(unsigned_decimal())
      ->option_text("<MS>");
  add_node_option(light, commands.light.node);
  light->set_help_flag("-h,--help", "Print help");
  commands.light_app = light;

  CLI::App* load = app.add_subcommand(
      "load", "Submit pre-signed dual-signed transfers at a rate; report admitted and executed tx/s and latency");
  load->add_option("--genesis", commands.load.genesis, "The devnet's genesis file")->required()->option_text("<FILE>");
  load->add_option("--keys", commands.load.keys, "Its key directory [default: keys beside the genesis file]")
      ->option_text("<DIR>");
  load->add_option("--rate", commands.load.rate, "Transfers per second [default: 1000]")
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000}))
      ->option_text("<TX/S>");
  load->add_option("--duration", commands.load.duration_s, "Seconds of sending [default: 10]")
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{3600}))
      ->option_text("<S>");
  load->add_option("--accounts", commands.load.accounts, "Sending accounts [default: every key file]")
      ->check(unsigned_decimal())
      ->option_text("<N>");
  load->add_option("--submitters", commands.load.submitters, "Concurrent connections [default: 4]")
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::size_t{1}, std::size_t{256}))
      ->option_text("<N>");
  load->add_option("--batch", commands.load.batch,
                   "Transfers per request: 1 sends each alone (POST /v1/transactions), more go together "
                   "(POST /v1/transactions/batch) [default: 1]")
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{wallet::kMaxBatchTransactions}))
      ->option_text("<N>");
  load->add_option("--drain", commands.load.drain_s, "Seconds to wait for executions after sending [default: 30]")
      ->check(unsigned_decimal())
      ->option_text("<S>");
  add_node_option(load, commands.load.node);
  load->set_help_flag("-h,--help", "Print help");
  commands.load_app = load;
}

// `sion agent ...`: one subcommand per action on agents.
struct AgentCommands {
  AgentSpawnOptions spawn;
  AgentPayOptions pay;
  AgentFundOptions fund;
  AgentBatchOptions batch;
  AgentCohortOptions cohort;
  AgentMaterializeOptions materialize;
  AgentRestrictOptions revoke;
  AgentRestrictOptions suspend;
  AgentRestrictOptions narrow;
  AgentShowOptions show;
  std::uint64_t timeout_s = 60;
  bool no_wait = false;
  CLI::App* agent = nullptr;
};

void add_agent_common(CLI::App* command, AgentCommon& common, AgentCommands& commands, std::string_view as_help) {
  command->add_option("--key", common.key, "The signer's key file [default: the only one in ~/.sion/keys]")
      ->option_text("<FILE>");
  command->add_option("--as", common.as, std::string(as_help))->option_text("<AGENT>");
  command->add_flag("--no-wait", commands.no_wait, "Return once the node admitted it");
  command->add_option("--timeout", commands.timeout_s, "Seconds to wait for execution [default: 60]")
      ->check(unsigned_decimal())
      ->option_text("<S>");
  add_node_option(command, common.node);
  command->set_help_flag("-h,--help", "Print help");
}

void add_caveat_options(CLI::App* command, CaveatOptions& caveats, std::string_view defaults) {
  command->add_option("--expiry", caveats.expiry, "The last Pulse height it may act in")
      ->check(unsigned_decimal())
      ->option_text("<H>");
  command->add_option("--per-payment", caveats.per_payment, "The most one payment may move")
      ->check(unsigned_decimal())
      ->option_text("<N>");
  command->add_option("--period-cap", caveats.period_cap, "The most it may move per period")
      ->check(unsigned_decimal())
      ->option_text("<N>");
  command->add_option("--period-length", caveats.period_length, "Pulses per period")
      ->check(unsigned_decimal())
      ->option_text("<P>");
  command
      ->add_option("--actions", caveats.actions,
                   "What it may send: pay, spawn, cohort, control, restrict, fund, all, none")
      ->option_text("<LIST>");
  command->add_option("--payee-classes", caveats.payee_classes, "Whom it may pay by class: any, root, none")
      ->option_text("<LIST>");
  command->add_option("--payees", caveats.payees, "Addresses it may pay besides its classes (at most 16)")
      ->option_text("<LIST>");
  command->footer(std::string(defaults));
}

void add_agent_commands(CLI::App& app, AgentCommands& c) {
  CLI::App* agent = app.add_subcommand("agent", "Spawn, pay as, batch, restrict and show agents (docs/agents.md)");
  agent->require_subcommand(1);
  agent->set_help_flag("-h,--help", "Print help");
  c.agent = agent;
  constexpr std::string_view kSendAs = "Send as this keyed agent, whose keys --key holds";
  constexpr std::string_view kChildDefaults =
      "Unset caveats are the parent agent's; below an account: no expiry, no caps, one-Pulse\n"
      "periods, actions pay, payee classes any. Prints the new agent's id (its lineage id).";

  CLI::App* spawn = agent->add_subcommand("spawn", "Spawn an agent below the sender, with caveats and an allotment");
  add_agent_common(spawn, c.spawn.common, c, kSendAs);
  spawn->add_option("--index", c.spawn.index, "Its child index [default: the first free one]")
      ->check(unsigned_decimal())
      ->option_text("<I>");
  spawn->add_option("--allotment", c.spawn.allotment, "What it may spend, drawn from the sender")
      ->required()
      ->check(unsigned_decimal())
      ->option_text("<N>");
  CLI::Option* agent_key =
      spawn->add_option("--agent-key", c.spawn.agent_key, "Keyed: the agent's own key file (`sion keygen`)")
          ->option_text("<FILE>");
  spawn->add_option("--controller", c.spawn.controller, "Keyless: whose batches it acts in [default: the sender]")
      ->option_text("<ADDR>")
      ->excludes(agent_key);
  add_caveat_options(spawn, c.spawn.caveats, kChildDefaults);

  CLI::App* pay = agent->add_subcommand("pay", "Pay as a keyed agent, from its allotment");
  add_agent_common(pay, c.pay.common, c, "The paying agent (required), whose keys --key holds");
  pay->add_option("--to", c.pay.to, "The payee's address")->required()->option_text("<ADDR>");
  pay->add_option("--amount", c.pay.amount, "The amount")->required()->check(unsigned_decimal())->option_text("<N>");

  CLI::App* fund = agent->add_subcommand("fund", "Add to an agent's allotment from the sender's coins (or allotment)");
  add_agent_common(fund, c.fund.common, c, kSendAs);
  fund->add_option("--agent", c.fund.agent, "The agent to fund")->required()->option_text("<AGENT>");
  fund->add_option("--amount", c.fund.amount, "The amount")->required()->check(unsigned_decimal())->option_text("<N>");

  CLI::App* batch = agent->add_subcommand(
      "batch", "Sign one batch of payments by keyless agents this sender controls, then submit its members");
  add_agent_common(batch, c.batch.common, c, kSendAs);
  batch->add_option("--pay", c.batch.pays, "A member payment AGENT:ADDRESS:AMOUNT (repeat; at most 65,536)")
      ->required()
      ->option_text("<P>");
  batch->add_option("--expiry-pulses", c.batch.expiry_pulses, "Pulses the batch stays open [default: 100]")
      ->check(unsigned_decimal())
      ->option_text("<N>");

  CLI::App* cohort =
      agent->add_subcommand("cohort", "Spawn a cohort of keyless agents committed by one sum tree; write its file");
  add_agent_common(cohort, c.cohort.common, c, kSendAs);
  cohort->add_option("--index", c.cohort.index, "The cohort node's child index [default: the first free one]")
      ->check(unsigned_decimal())
      ->option_text("<I>");
  cohort->add_option("--members", c.cohort.members, "Members, 1 to 1,048,576")
      ->required()
      ->check(unsigned_decimal())
      ->option_text("<N>");
  cohort->add_option("--allotment", c.cohort.allotment, "Each member's allotment")
      ->required()
      ->check(unsigned_decimal())
      ->option_text("<N>");
  cohort->add_option("--controller", c.cohort.controller, "Whose batches the members act in [default: the sender]")
      ->option_text("<ADDR>");
  cohort->add_option("--out", c.cohort.out, "The cohort file to write (never replaced)")
      ->required()
      ->option_text("<FILE>");
  add_caveat_options(cohort, c.cohort.caveats, kChildDefaults);

  CLI::App* materialize =
      agent->add_subcommand("materialize", "Reveal members of a cohort with their sum proofs, making them agents");
  add_agent_common(materialize, c.materialize.common, c, kSendAs);
  materialize->add_option("--cohort", c.materialize.cohort, "The cohort file `sion agent cohort` wrote")
      ->required()
      ->option_text("<FILE>");
  materialize->add_option("--first", c.materialize.first, "The first member's index [default: 0]")
      ->check(unsigned_decimal())
      ->option_text("<I>");
  materialize->add_option("--count", c.materialize.count, "Members to reveal, 1 to 128 [default: 1]")
      ->check(unsigned_decimal())
      ->option_text("<N>");

  const auto add_restrict = [&](const char* name, const char* help, AgentRestrictOptions& options, RestrictKind kind) {
    CLI::App* command = agent->add_subcommand(name, help);
    options.kind = kind;
    add_agent_common(command, options.common, c, kSendAs);
    command->add_option("--agent", options.agent, "The descendant to restrict")->required()->option_text("<AGENT>");
    return command;
  };
  add_restrict("revoke", "Revoke a descendant agent and, at once, every agent below it", c.revoke,
               RestrictKind::revoke);
  CLI::App* suspend = add_restrict("suspend", "Suspend a descendant agent and every agent below it until a height",
                                   c.suspend, RestrictKind::suspend);
  suspend->add_option("--until", c.suspend.until, "The last Pulse height of the suspension")
      ->required()
      ->check(unsigned_decimal())
      ->option_text("<H>");
  CLI::App* narrow = add_restrict("narrow", "Tighten a descendant agent's caveats (and so its descendants')", c.narrow,
                                  RestrictKind::narrow);
  add_caveat_options(narrow, c.narrow.caveats, "Unset caveats are the agent's charter's: they narrow nothing.");

  CLI::App* show = agent->add_subcommand("show", "Print the node's view of an agent: caveats, allotment, standing");
  show->add_option("AGENT", c.show.agent, "The agent's id (its lineage id)")->required()->option_text("<AGENT>");
  add_node_option(show, c.show.node);
  show->set_help_flag("-h,--help", "Print help");
}

// Runs the agent subcommand that was parsed.
base::Status run_agent_command(AgentCommands& c) {
  for (AgentCommon* common : {&c.spawn.common, &c.pay.common, &c.fund.common, &c.batch.common, &c.cohort.common,
                              &c.materialize.common, &c.revoke.common, &c.suspend.common, &c.narrow.common}) {
    common->wait = !c.no_wait;
    common->timeout = std::chrono::seconds(c.timeout_s);
  }
  const std::string parsed = c.agent->get_subcommands().front()->get_name();
  if (parsed == "spawn") return run_agent_spawn(c.spawn, stdout, stderr);
  if (parsed == "pay") return run_agent_pay(c.pay, stdout, stderr);
  if (parsed == "fund") return run_agent_fund(c.fund, stdout, stderr);
  if (parsed == "batch") return run_agent_batch(c.batch, stdout, stderr);
  if (parsed == "cohort") return run_agent_cohort(c.cohort, stdout, stderr);
  if (parsed == "materialize") return run_agent_materialize(c.materialize, stdout, stderr);
  if (parsed == "revoke") return run_agent_restrict(c.revoke, stdout, stderr);
  if (parsed == "suspend") return run_agent_restrict(c.suspend, stdout, stderr);
  if (parsed == "narrow") return run_agent_restrict(c.narrow, stdout, stderr);
  return run_agent_show(c.show, stdout);
}

// `sion stream ...`: one subcommand per step of a payment stream.
struct StreamCommands {
  StreamOpenOptions open;
  StreamPayOptions pay;
  StreamCheckOptions check;
  StreamSettleOptions settle;
  StreamCloseOptions close;
  StreamShowOptions show;
  std::uint64_t timeout_s = 60;
  CLI::App* stream = nullptr;
};

// --node and --timeout of a command that sends a transaction and waits for it.
void add_stream_sending(CLI::App* command, StreamCommon& common, StreamCommands& c) {
  command->add_option("--timeout", c.timeout_s, "Seconds to wait for execution [default: 60]")
      ->check(unsigned_decimal())
      ->option_text("<S>");
  add_node_option(command, common.node);
  command->set_help_flag("-h,--help", "Print help");
}

void add_stream_commands(CLI::App& app, StreamCommands& c) {
  CLI::App* stream = app.add_subcommand(
      "stream", "Pay many small amounts through one deposit: open, pay off-ledger, check, settle, close, show");
  stream->require_subcommand(1);
  stream->set_help_flag("-h,--help", "Print help");
  stream->footer(
      "Exit status: 0 on success; 1 if the node, the ledger or the payments said no (a refused\n"
      "payment, a settlement or close the ledger would reject, a failed receipt, a file that does\n"
      "not read); 2 for a usage error (a bad option or value, a file to write that exists).\n"
      "docs/wallet.md, \"Streams\".");
  c.stream = stream;

  CLI::App* open = stream->add_subcommand(
      "open", "Open a stream to a payee: write the payer file (the chain's seed) and the payee's offer file");
  open->add_option("--key", c.open.from, "The payer's key file [default: the only one in ~/.sion/keys]")
      ->option_text("<FILE>");
  open->add_option("--payee", c.open.payee, "The payee's address")->required()->option_text("<ADDR>");
  open->add_option("--price", c.open.price, "What each payment (one step of the chain) pays")
      ->required()
      ->check(unsigned_decimal())
      ->option_text("<N>");
  open->add_option("--steps", c.open.steps, "Payments the chain holds, 1 to 4294967295")
      ->required()
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{UINT32_MAX}))
      ->option_text("<N>");
  open->add_option("--deposit", c.open.deposit, "What the payer locks, price to price * steps [default: price * steps]")
      ->check(unsigned_decimal())
      ->option_text("<N>");
  CLI::Option* expiry = open->add_option("--expiry", c.open.expiry, "The last Pulse height a settlement may run at")
                            ->check(unsigned_decimal())
                            ->option_text("<H>");
  open->add_option("--expiry-in", c.open.expiry_in, "Pulses from the node's height to the expiry [default: 1000]")
      ->check(unsigned_decimal())
      ->option_text("<P>")
      ->excludes(expiry);
  open->add_option("--file", c.open.file, "The payer file to write (never replaced; mode 0600: it holds the seed)")
      ->required()
      ->option_text("<FILE>");
  open->add_option("--offer", c.open.offer, "The offer file to write for the payee [default: <FILE>.offer.json]")
      ->option_text("<FILE>");
  add_stream_sending(open, c.open.common, c);
  open->footer(
      "Writes both files before it submits the OpenStream, then waits for its receipt and prints\n"
      "the stream's id. Hand the offer file to the payee (it holds no secret).");

  CLI::App* pay = stream->add_subcommand(
      "pay", "Reveal the next payments of a stream, one line each: '<index> <element hex>' (no node needed)");
  pay->add_option("--file", c.pay.file, "The payer file `sion stream open` wrote (updated in place)")
      ->required()
      ->option_text("<FILE>");
  pay->add_option("--count", c.pay.count, "Payments to reveal [default: 1]")
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{UINT32_MAX}))
      ->option_text("<N>");
  pay->set_help_flag("-h,--help", "Print help");
  pay->footer(
      "Prints the lines on stdout, then records them as revealed in the payer file; refuses more\n"
      "payments than the deposit covers. Send the lines to the payee, who runs `sion stream check`.");

  CLI::App* check = stream->add_subcommand(
      "check", "As the payee, check payment lines (one hash each) and keep the last accepted in the payee file");
  check->add_option("--file", c.check.file, "The payee file (created with --offer, else read and updated)")
      ->required()
      ->option_text("<FILE>");
  check
      ->add_option("--offer", c.check.offer,
                   "Start a new payee file from the payer's offer file, checked against the stream on the chain")
      ->option_text("<FILE>");
  check->add_option("--payment", c.check.payments, "A payment line '<index> <hex>' (repeat) [default: read stdin]")
      ->option_text("<LINE>");
  add_node_option(check, c.check.node);
  check->set_help_flag("-h,--help", "Print help");
  check->footer(
      "Prints 'accepted I' or 'refused I <reason>: <why>' per line (reasons: replayed, out_of_order,\n"
      "forged, past_end, beyond_deposit, checkpoint_mismatch) and what is owed. The node is read only\n"
      "with --offer. Exit status 1 if any line was refused or malformed (the others are kept).");

  CLI::App* settle = stream->add_subcommand(
      "settle", "As the payee, settle every payment accepted: the stream pays the payee, less the fee");
  settle->add_option("--file", c.settle.file, "The payee file `sion stream check` keeps")
      ->required()
      ->option_text("<FILE>");
  settle->add_option("--key", c.settle.from, "The payee's key file [default: the only one in ~/.sion/keys]")
      ->option_text("<FILE>");
  settle->add_flag("--walk", c.settle.walk,
                   "Prove the payment by walking the chain down to the settled element (one hash a payment) "
                   "instead of from the checkpoint below it");
  add_stream_sending(settle, c.settle.common, c);
  settle->footer(
      "Checks the settlement against the ledger's rules on the stream as the node holds it and\n"
      "submits nothing the ledger would reject (the reason is printed: stream_expired,\n"
      "index_not_above_settled, beyond_deposit, ...). The fee comes out of what is settled.");

  CLI::App* close = stream->add_subcommand(
      "close", "As the payer, after the expiry height, close a stream: what is left returns to the payer");
  close->add_option("--stream", c.close.stream, "The stream's id (64 hex digits)")->required()->option_text("<ID>");
  close->add_option("--key", c.close.from, "The payer's key file [default: the only one in ~/.sion/keys]")
      ->option_text("<FILE>");
  add_stream_sending(close, c.close.common, c);
  close->footer(
      "Refused before it is sent while the stream has not expired (stream_not_expired), by anyone\n"
      "but the payer (not_stream_payer) and once it is gone (unknown_stream). The fee comes out of\n"
      "the refund.");

  CLI::App* show = stream->add_subcommand("show", "Print the node's view of a stream: terms, settled, deposit left");
  show->add_option("STREAM", c.show.stream, "The stream's id (64 hex digits)")->required()->option_text("<ID>");
  add_node_option(show, c.show.node);
  show->set_help_flag("-h,--help", "Print help");
}

// Runs the stream subcommand that was parsed.
base::Status run_stream_command(StreamCommands& c) {
  for (StreamCommon* common : {&c.open.common, &c.settle.common, &c.close.common}) {
    common->timeout = std::chrono::seconds(c.timeout_s);
  }
  const std::string parsed = c.stream->get_subcommands().front()->get_name();
  if (parsed == "open") return run_stream_open(c.open, stdout, stderr);
  if (parsed == "pay") return run_stream_pay(c.pay, stdout);
  if (parsed == "check") return run_stream_check(c.check, stdin, stdout);
  if (parsed == "settle") return run_stream_settle(c.settle, stdout, stderr);
  if (parsed == "close") return run_stream_close(c.close, stdout, stderr);
  return run_stream_show(c.show, stdout);
}

CLI::App* add_tx(CLI::App& app, std::string& input) {
  CLI::App* tx = app.add_subcommand("tx", "Work with transactions");
  tx->require_subcommand(1);
  tx->set_help_flag("-h,--help", "Print help");
  CLI::App* decode =
      tx->add_subcommand("decode", "Print a transaction as JSON, with its id and the coin ids it may create");
  decode->add_option("INPUT", input, "A file holding the transaction (raw bytes or hex), or the hex itself")
      ->required()
      ->option_text("<FILE|HEX>");
  decode->set_help_flag("-h,--help", "Print help");
  decode->footer(
      "Exit status: 0 if the input is a transaction (its signature is reported in\n"
      "signature_valid, not checked for the status), 2 if it is not (the reason names the\n"
      "field where decoding stopped), 1 if the file cannot be read.");
  return decode;
}

void add_node(CLI::App& app, std::string& config_path) {
  CLI::App* node = app.add_subcommand("node", "Run a validator node from its config file until SIGINT or SIGTERM");
  node->add_option("--config", config_path, "The node's config file (docs/node-config.md)")
      ->required()
      ->option_text("<FILE>");
  node->set_help_flag("-h,--help", "Print help");
}

void add_devnet(CLI::App& app, DevnetOptions& options) {
  CLI::App* devnet = app.add_subcommand(
      "devnet", "Create (or resume) a local devnet in a folder and run its validators in the foreground");
  devnet
      ->add_option("--validators", options.validators,
                   fmt::format("Validators, when creating: 1 runs in this process, more run one `sion node` "
                               "process each [default: {}]",
                               options.validators))
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::size_t{1}, node::kMaxDevnetValidators))
      ->option_text("<N>");
  devnet->add_option("--dir", options.dir, fmt::format("The devnet folder [default: {}]", options.dir))
      ->option_text("<DIR>");
  devnet
      ->add_option("--accounts", options.accounts,
                   fmt::format("Funded accounts, when creating [default: {}]", options.accounts))
      ->check(unsigned_decimal())
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000}))
      ->option_text("<N>");
  devnet
      ->add_option("--interval-ms", options.interval_ms,
                   fmt::format("The least time between Pulses, when creating [default: {}]", options.interval_ms))
      ->check(unsigned_decimal())
      ->check(CLI::Range(node::kMinPulseIntervalMs, node::kMaxPulseIntervalMs))
      ->option_text("<MS>");
  devnet->add_option("--api", options.api, fmt::format("API address, when creating [default: {}]", options.api))
      ->option_text("<HOST:PORT>");
  devnet->set_help_flag("-h,--help", "Print help");
  devnet->footer(
      "The folder holds node.toml, genesis.json, keys/ and data/; run again with the same --dir\n"
      "to resume the same chain. Ctrl-C stops the node cleanly. With N validators it holds\n"
      "validator-K/ (node.toml, data/, node.log) for each, validator K's API on the --api port + 2K\n"
      "and its consensus on the port + 1 + 2K; Ctrl-C stops every validator.");
}

CLI::App* add_replay(CLI::App& app, ReplayCommandOptions& options) {
  CLI::App* replay = app.add_subcommand(
      "replay", "Check a stopped node's chain: replay every stored Pulse from genesis and compare what is stored");
  CLI::Option* config = replay->add_option("--config", options.config, "The node's config file (docs/node-config.md)")
                            ->option_text("<FILE>");
  replay->add_option("--dir", options.dir, "A devnet folder (its node.toml)")->option_text("<DIR>")->excludes(config);
  replay->set_help_flag("-h,--help", "Print help");
  replay->footer(
      "Opens the node's chain read-only (refused while the node runs) and re-executes each stored\n"
      "Pulse body on a fresh state made from the genesis file, checking every header field, receipt,\n"
      "index entry and the final state. Exit status: 0 if everything matches, 1 if something differs\n"
      "(the message names the height and the field) or the chain cannot be read, 2 for a usage error.");
  return replay;
}

int run_app(int argc, const char* const* argv) {
  CLI::App app("Sion: a post-quantum ledger for agent payments", "sion");
  app.set_help_flag("-h,--help", "Print help");
  app.require_subcommand(1);
  // Subcommands copy this when they are added, so it comes first.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("sion: error: {}\nRun with --help for more information.\n", e.what());
  });
  app.get_formatter()->column_width(20);

  CLI::App* version = app.add_subcommand("version", "Print the version, build and CPU features");
  BenchOptions bench_options;
  add_bench(app, bench_options);
  ConformanceOptions conformance_options;
  add_conformance(app, conformance_options);
  GenesisOptions genesis_options;
  add_genesis(app, genesis_options);
  std::string tx_input;
  CLI::App* tx_decode = add_tx(app, tx_input);
  WalletCommands wallet_commands;
  add_wallet_commands(app, tx_decode->get_parent(), wallet_commands);
  AgentCommands agent_commands;
  add_agent_commands(app, agent_commands);
  StreamCommands stream_commands;
  add_stream_commands(app, stream_commands);
  KeygenOptions keygen_options;
  CLI::App* keygen = add_keygen(app, keygen_options);
  AddressOptions address_options;
  CLI::App* address = add_address(app, address_options);
  std::string node_config;
  add_node(app, node_config);
  DevnetOptions devnet_options;
  add_devnet(app, devnet_options);
  ReplayCommandOptions replay_options;
  CLI::App* replay = add_replay(app, replay_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help requests are ParseErrors too, with exit code 0.
    return app.exit(e) == 0 ? code(ExitCode::ok) : code(ExitCode::usage);
  }

  if (version->parsed()) {
    print_version(stdout);
    return code(ExitCode::ok);
  }
  if (app.got_subcommand("conformance")) {
    const ConformanceTotals totals = run_conformance(conformance_options, stdout, stderr);
    if (totals.unusable_files > 0) return code(ExitCode::usage);
    return code(totals.failed > 0 ? ExitCode::failure : ExitCode::ok);
  }
  if (tx_decode->parsed()) {
    const base::Status status = run_tx_decode(tx_input, stdout);
    if (status) return code(ExitCode::ok);
    print_error(status.error().reason.c_str());
    return code(status.error().is_invalid_input() ? ExitCode::usage : ExitCode::failure);
  }
  if (wallet_commands.load_app->parsed()) {
    const base::Status status = run_load_command(wallet_commands.load, stdout, stderr);
    if (status) return code(ExitCode::ok);
    print_error(status.error().reason.c_str());
    return code(status.error().code == base::Errc::invalid_argument ? ExitCode::usage : ExitCode::failure);
  }
  if (wallet_commands.light_app->parsed()) {
    wallet_commands.light.interval = std::chrono::milliseconds(wallet_commands.light_interval_ms);
    const base::Status status = run_light(wallet_commands.light, stdout);
    if (status) return code(ExitCode::ok);
    print_error(status.error().reason.c_str());
    return code(status.error().code == base::Errc::invalid_argument ? ExitCode::usage : ExitCode::failure);
  }
  if (wallet_commands.balance_app->parsed() || wallet_commands.transfer_app->parsed() ||
      wallet_commands.status_app->parsed()) {
    wallet_commands.transfer.timeout = std::chrono::seconds(wallet_commands.timeout_s);
    wallet_commands.transfer.wait = !wallet_commands.no_wait;
    const base::Status status = wallet_commands.balance_app->parsed() ? run_balance(wallet_commands.balance, stdout)
                                : wallet_commands.transfer_app->parsed()
                                    ? run_transfer(wallet_commands.transfer, stdout, stderr)
                                    : run_tx_status(wallet_commands.status, stdout);
    if (status) return code(ExitCode::ok);
    print_error(status.error().reason.c_str());
    return code(status.error().code == base::Errc::invalid_argument ? ExitCode::usage : ExitCode::failure);
  }
  if (agent_commands.agent->parsed()) {
    const base::Status status = run_agent_command(agent_commands);
    if (status) return code(ExitCode::ok);
    print_error(status.error().reason.c_str());
    return code(status.error().code == base::Errc::invalid_argument ? ExitCode::usage : ExitCode::failure);
  }
  if (stream_commands.stream->parsed()) {
    const base::Status status = run_stream_command(stream_commands);
    if (status) return code(ExitCode::ok);
    print_error(status.error().reason.c_str());
    return code(status.error().code == base::Errc::invalid_argument ? ExitCode::usage : ExitCode::failure);
  }
  if (keygen->parsed() || address->parsed()) {
    const base::Status status =
        keygen->parsed() ? run_keygen(keygen_options, stdout) : run_address(address_options, stdout);
    if (status) return code(ExitCode::ok);
    print_error(status.error().reason.c_str());
    // A bad option, a taken or unsafe key file, or one that does not read
    // as a key file blames the command line; a failing system does not.
    return code(status.error().is_invalid_input() ? ExitCode::usage : ExitCode::failure);
  }
  base::Status status;
  if (replay->parsed()) {
    status = run_replay(replay_options, stdout, stderr);
  } else if (app.got_subcommand("node")) {
    status = run_node(node_config, stdout);
  } else if (app.got_subcommand("devnet")) {
    status = run_devnet(devnet_options, stdout);
  } else if (app.got_subcommand("genesis")) {
    status = run_genesis(genesis_options, stdout);
  } else {
    status = run_bench(bench_options, stdout);
  }
  if (!status) {
    print_error(status.error().reason.c_str());
    // An option value that makes no sense (an unknown group, a file that
    // may not be replaced) is a usage error; anything else failed while
    // running.
    const bool usage = status.error().code == base::Errc::invalid_argument;
    return code(usage ? ExitCode::usage : ExitCode::failure);
  }
  return code(ExitCode::ok);
}

}  // namespace

int run(int argc, const char* const* argv) noexcept {
  try {
    return run_app(argc, argv);
  } catch (const std::exception& e) {
    print_error(e.what());
  } catch (...) {
    print_error("unexpected exception");
  }
  return code(ExitCode::failure);
}

}  // namespace sion::cli
