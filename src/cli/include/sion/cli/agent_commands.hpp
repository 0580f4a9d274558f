#pragma once
// `sion agent ...` (docs/wallet.md, "Agents"): spawn agents, pay as a keyed
// agent, pay through a batch of keyless agents, spawn and materialize
// cohorts, restrict agents, and show what the node knows of one. Each
// builds its transaction with sion/wallet/agent_client.hpp, submits it and
// (unless told not to) waits for its receipt.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "sion/agents/caveats.hpp"
#include "sion/base/result.hpp"
#include "sion/cli/wallet_commands.hpp"
#include "sion/exec/tx_builder.hpp"

namespace sion::cli {

// Who sends and how the command waits.
struct AgentCommon {
  std::optional<std::string> key;  // the signer's key file (default: the only one in ~/.sion/keys)
  std::optional<std::string> as;   // send as this keyed agent, whose keys `key` holds
  std::string node = kDefaultNodeUrl;
  bool wait = true;
  std::chrono::seconds timeout{60};
};

// Caveat options as typed; unset ones take their default (caveats_from).
struct CaveatOptions {
  std::optional<std::uint64_t> expiry;
  std::optional<std::uint64_t> per_payment;
  std::optional<std::uint64_t> period_cap;
  std::optional<std::uint64_t> period_length;
  std::optional<std::string> actions;        // "pay,spawn,..." or "all"
  std::optional<std::string> payee_classes;  // "any", "root", "any,root" or "none"
  std::optional<std::string> payees;         // addresses, comma-separated
};
// The caveats the options name; unset ones from `base` (the parent's, or
// the widest for a child of an account). invalid_argument naming the
// option for an unknown action or class or a bad address.
base::Result<agents::Caveats> caveats_from(const CaveatOptions& options, const agents::Caveats& base);

struct AgentSpawnOptions {
  AgentCommon common;
  std::optional<std::uint32_t> index;  // default: the first free one
  std::uint64_t allotment = 0;
  std::optional<std::string> agent_key;   // keyed: the agent's own key file
  std::optional<std::string> controller;  // keyless: its controller (default: the sender)
  CaveatOptions caveats;
};
base::Status run_agent_spawn(const AgentSpawnOptions& options, std::FILE* out, std::FILE* err);

struct AgentPayOptions {
  AgentCommon common;  // `as` is the paying agent
  std::string to;
  std::uint64_t amount = 0;
};
base::Status run_agent_pay(const AgentPayOptions& options, std::FILE* out, std::FILE* err);

struct AgentFundOptions {
  AgentCommon common;
  std::string agent;  // any agent (anyone may fund one)
  std::uint64_t amount = 0;
};
base::Status run_agent_fund(const AgentFundOptions& options, std::FILE* out, std::FILE* err);

// One --pay value, AGENT:ADDRESS:AMOUNT: an AgentPay by the keyless agent
// AGENT (its nonce left 0). invalid_argument naming --pay otherwise.
base::Result<exec::MemberIntent> parse_pay(const std::string& text);

struct AgentBatchOptions {
  AgentCommon common;             // the controller
  std::vector<std::string> pays;  // AGENT:ADDRESS:AMOUNT
  std::uint64_t expiry_pulses = 100;
};
// Opens one batch over the payments (one signature), waits for it, then
// submits the members (no signatures) and waits for each.
base::Status run_agent_batch(const AgentBatchOptions& options, std::FILE* out, std::FILE* err);

struct AgentCohortOptions {
  AgentCommon common;
  std::optional<std::uint32_t> index;
  std::uint32_t members = 0;
  std::uint64_t allotment = 0;  // each member's
  std::optional<std::string> controller;
  CaveatOptions caveats;  // each member's, and the cohort's bound
  std::string out;        // the cohort file to write
};
base::Status run_agent_cohort(const AgentCohortOptions& options, std::FILE* out, std::FILE* err);

struct AgentMaterializeOptions {
  AgentCommon common;
  std::string cohort;  // the cohort file
  std::uint32_t first = 0;
  std::uint32_t count = 1;
};
base::Status run_agent_materialize(const AgentMaterializeOptions& options, std::FILE* out, std::FILE* err);

enum class RestrictKind { revoke, suspend, narrow };
struct AgentRestrictOptions {
  AgentCommon common;
  RestrictKind kind = RestrictKind::revoke;
  std::string agent;
  std::uint64_t until = 0;  // suspend
  CaveatOptions caveats;    // narrow
};
base::Status run_agent_restrict(const AgentRestrictOptions& options, std::FILE* out, std::FILE* err);

struct AgentShowOptions {
  std::string agent;
  std::string node = kDefaultNodeUrl;
};
base::Status run_agent_show(const AgentShowOptions& options, std::FILE* out);

}  // namespace sion::cli
