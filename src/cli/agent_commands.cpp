#include "sion/cli/agent_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <map>
#include <string_view>

#include "sion/agents/batch.hpp"
#include "sion/agents/cohort.hpp"
#include "sion/agents/lineage.hpp"
#include "sion/base/executor.hpp"
#include "sion/base/file.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/wallet/address.hpp"
#include "sion/wallet/agent_client.hpp"
#include "sion/wallet/cohort_file.hpp"
#include "sion/wallet/key_file.hpp"
#include "sion/wallet/node_api.hpp"
#include "sion/wallet/tx_batch.hpp"

namespace sion::cli {
namespace {

using base::Errc;

// Items of a comma-separated list, trimmed of spaces; empty items dropped.
std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    start = comma + 1;
  }
  return items;
}

base::Result<std::uint8_t> parse_actions(std::string_view text) {
  static const std::map<std::string, agents::Action, std::less<>> kNames = {
      {"pay", agents::Action::pay},         {"spawn", agents::Action::spawn},       {"cohort", agents::Action::cohort},
      {"control", agents::Action::control}, {"restrict", agents::Action::restrict}, {"fund", agents::Action::fund}};
  std::uint8_t bits = 0;
  for (const std::string& item : split_list(text)) {
    if (item == "all") {
      bits |= agents::kAllActions;
    } else if (item == "none") {
      continue;
    } else if (const auto found = kNames.find(item); found != kNames.end()) {
      bits |= static_cast<std::uint8_t>(found->second);
    } else {
      return base::fail(Errc::invalid_argument,
                        "--actions: unknown action '" + item + "' (pay, spawn, cohort, control, restrict, fund, all)");
    }
  }
  return bits;
}

base::Result<std::uint8_t> parse_payee_classes(std::string_view text) {
  std::uint8_t bits = 0;
  for (const std::string& item : split_list(text)) {
    if (item == "any") {
      bits |= static_cast<std::uint8_t>(agents::PayeeClass::any);
    } else if (item == "root") {
      bits |= static_cast<std::uint8_t>(agents::PayeeClass::root);
    } else if (item != "none") {
      return base::fail(Errc::invalid_argument, "--payee-classes: unknown class '" + item + "' (any, root, none)");
    }
  }
  return bits;
}

base::Result<exec::Id> parse_id(std::string_view option, const std::string& text) {
  auto id = wallet::parse_address(text);
  if (!id) return base::fail(Errc::invalid_argument, std::string(option) + ": " + id.error().reason);
  return *id;
}

// What a child of an account may do unless told otherwise: pay anyone, at
// any time, up to what it holds.
agents::Caveats widest_caveats() {
  agents::Caveats caveats;
  caveats.expiry_height = std::numeric_limits<std::uint64_t>::max();
  caveats.per_payment = std::numeric_limits<exec::Amount>::max();
  caveats.period_cap = std::numeric_limits<exec::Amount>::max();
  caveats.period_length = 1;
  caveats.actions = static_cast<std::uint8_t>(agents::Action::pay);
  caveats.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  return caveats;
}

// The sender, its API and the chain's parameters.
struct Session {
  wallet::Sender sender;
  wallet::NodeApi api;
  wallet::NodeStatus status;
};

base::Result<Session> open_session(const AgentCommon& common) {
  SION_TRY(crypto::SigningBundle signer, signer_of(common.key));
  std::optional<exec::Id> agent;
  if (common.as) {
    SION_TRY(agent, parse_id("--as", *common.as));
  }
  SION_TRY(wallet::HttpCall call, http_call_for(common.node));
  wallet::NodeApi api(std::move(call));
  SION_TRY(wallet::NodeStatus status, api.status());
  return Session{wallet::Sender{std::move(signer), agent}, std::move(api), std::move(status)};
}

std::string micro_usd(exec::Amount fee) {
  const std::uint64_t nano = fee * exec::kDevnetNanoUsdPerUnit;  // fees stay far below 2^64 / 50
  return fmt::format("{}.{:03} µUSD at devnet prices", nano / 1000, nano % 1000);
}

// Submits `tx` and, unless told not to, waits for its receipt; a receipt
// other than success is an error naming its status.
base::Status submit_and_wait(Session& session, const AgentCommon& common, const exec::Transaction& tx, std::FILE* out,
                             std::FILE* err) {
  SION_TRY(const wallet::Submission submission, session.api.submit(tx));
  if (!submission.admitted()) {
    return base::fail(Errc::invalid_argument, "the node refused the transaction: " + submission.refusal->to_string());
  }
  std::fputs(fmt::format("submitted {} (fee {}, {}){}\n", base::to_hex(submission.tx_id), tx.payload.fee,
                         micro_usd(tx.payload.fee), submission.held ? ", held for a lower nonce" : "")
                 .c_str(),
             out);
  std::fflush(out);
  if (!common.wait) return {};
  const auto start = std::chrono::steady_clock::now();
  SION_TRY(const wallet::TxState state, wallet::wait_for_execution(session.api, submission.tx_id, common.timeout, err));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  std::fputs(describe_execution(state, waited).c_str(), out);
  if (state.receipt->status != "success") {
    return base::fail(Errc::invalid_value, "the transaction failed: " + state.receipt->status);
  }
  return {};
}

std::string describe_lineage(const agents::Lineage& lineage) {
  std::string path;
  for (const std::uint32_t index : lineage.path) {
    if (!path.empty()) path += '/';
    path += std::to_string(index);
  }
  return fmt::format("root {}, path {}", wallet::address_to_text(lineage.root), path);
}

// The child's lineage at the chosen index (the first free one unless given)
// and the caveats its parent gives by default.
struct ChildPlace {
  agents::Lineage lineage;
  std::uint32_t index = 0;
  agents::Caveats default_caveats;
};

base::Result<ChildPlace> child_place(Session& session, const std::optional<std::uint32_t>& index) {
  SION_TRY(const wallet::ParentPlace parent, wallet::parent_place(session.api, session.sender));
  std::uint32_t chosen = 0;
  if (index) {
    chosen = *index;
  } else {
    SION_TRY(chosen, wallet::first_free_index(session.api, parent));
  }
  const std::optional<agents::Lineage> lineage = parent.child(chosen);
  if (!lineage) return base::fail(Errc::invalid_argument, "the sending agent is at the deepest level: no children");
  return ChildPlace{*lineage, chosen, parent.agent ? parent.agent->charter.caveats : widest_caveats()};
}

}  // namespace

base::Result<agents::Caveats> caveats_from(const CaveatOptions& options, const agents::Caveats& base) {
  agents::Caveats caveats = base;
  if (options.expiry) caveats.expiry_height = *options.expiry;
  if (options.per_payment) caveats.per_payment = *options.per_payment;
  if (options.period_cap) caveats.period_cap = *options.period_cap;
  if (options.period_length) {
    if (*options.period_length == 0) return base::fail(Errc::invalid_argument, "--period-length: must be at least 1");
    caveats.period_length = *options.period_length;
  }
  if (options.actions) {
    SION_TRY(caveats.actions, parse_actions(*options.actions));
  }
  if (options.payee_classes) {
    SION_TRY(caveats.payee_classes, parse_payee_classes(*options.payee_classes));
  }
  if (options.payees) {
    std::vector<exec::Id> payees;
    for (const std::string& item : split_list(*options.payees)) {
      SION_TRY(const exec::Id payee, parse_id("--payees", item));
      payees.push_back(payee);
    }
    std::sort(payees.begin(), payees.end());
    payees.erase(std::unique(payees.begin(), payees.end()), payees.end());
    if (payees.size() > agents::kMaxPayees) {
      return base::fail(Errc::invalid_argument, fmt::format("--payees: at most {}", agents::kMaxPayees));
    }
    caveats.payees = {payees.begin(), payees.end()};
  }
  return caveats;
}

base::Status run_agent_spawn(const AgentSpawnOptions& options, std::FILE* out, std::FILE* err) {
  if (options.allotment == 0) return base::fail(Errc::invalid_argument, "--allotment: must be at least 1");
  SION_TRY(Session session, open_session(options.common));
  SION_TRY(const ChildPlace place, child_place(session, options.index));
  SION_TRY(const agents::Caveats caveats, caveats_from(options.caveats, place.default_caveats));
  agents::Authority authority = agents::Keyless{session.sender.id()};
  if (options.agent_key) {
    SION_TRY(const crypto::SigningBundle agent_keys, wallet::read_key_file(*options.agent_key));
    authority = agents::Keyed{agent_keys.id()};
  } else if (options.controller) {
    SION_TRY(const exec::Id controller, parse_id("--controller", *options.controller));
    authority = agents::Keyless{controller};
  }
  SION_TRY(
      const exec::Transaction tx,
      wallet::sign_from(
          session.api, session.sender, session.status.params, options.allotment,
          [&](std::span<const exec::Id> coins) -> exec::TxBody {
            return exec::SpawnAgent{place.index, authority, caveats, options.allotment, {coins.begin(), coins.end()}};
          }));
  std::fputs(fmt::format("agent {} ({}, {})\n", base::to_hex(agents::lineage_id(place.lineage)),
                         describe_lineage(place.lineage), options.agent_key ? "keyed" : "keyless")
                 .c_str(),
             out);
  SION_TRY_STATUS(submit_and_wait(session, options.common, tx, out, err));
  return {};
}

base::Status run_agent_pay(const AgentPayOptions& options, std::FILE* out, std::FILE* err) {
  if (!options.common.as) return base::fail(Errc::invalid_argument, "--as: the paying agent is required");
  if (options.amount == 0) return base::fail(Errc::invalid_argument, "--amount: must be at least 1");
  SION_TRY(const exec::Id payee, parse_id("--to", options.to));
  SION_TRY(Session session, open_session(options.common));
  SION_TRY(const exec::Transaction tx,
           wallet::sign_from(session.api, session.sender, session.status.params, options.amount,
                             [&](std::span<const exec::Id>) -> exec::TxBody {
                               return exec::AgentPay{payee, options.amount};
                             }));
  SION_TRY_STATUS(submit_and_wait(session, options.common, tx, out, err));
  return {};
}

base::Status run_agent_fund(const AgentFundOptions& options, std::FILE* out, std::FILE* err) {
  if (options.amount == 0) return base::fail(Errc::invalid_argument, "--amount: must be at least 1");
  SION_TRY(const exec::Id agent, parse_id("--agent", options.agent));
  SION_TRY(Session session, open_session(options.common));
  SION_TRY(const exec::Transaction tx,
           wallet::sign_from(session.api, session.sender, session.status.params, options.amount,
                             [&](std::span<const exec::Id> coins) -> exec::TxBody {
                               return exec::FundAgent{agent, options.amount, {coins.begin(), coins.end()}};
                             }));
  return submit_and_wait(session, options.common, tx, out, err);
}

base::Result<exec::MemberIntent> parse_pay(const std::string& text) {
  const std::size_t first = text.find(':');
  const std::size_t second = first == std::string::npos ? first : text.find(':', first + 1);
  if (second == std::string::npos) {
    return base::fail(Errc::invalid_argument, "--pay: expected AGENT:ADDRESS:AMOUNT, got '" + text + "'");
  }
  exec::MemberIntent intent;
  SION_TRY(intent.agent, parse_id("--pay", text.substr(0, first)));
  SION_TRY(const exec::Id payee, parse_id("--pay", text.substr(first + 1, second - first - 1)));
  std::uint64_t amount = 0;
  const std::string_view digits = std::string_view(text).substr(second + 1);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), amount);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || amount == 0) {
    return base::fail(Errc::invalid_argument, "--pay: the amount of '" + text + "' is not a positive integer");
  }
  intent.body = exec::AgentPay{payee, amount};
  return intent;
}

base::Status run_agent_batch(const AgentBatchOptions& options, std::FILE* out, std::FILE* err) {
  if (options.pays.empty()) return base::fail(Errc::invalid_argument, "--pay: at least one payment");
  if (options.pays.size() > agents::kMaxBatchMembers) {
    return base::fail(Errc::invalid_argument, fmt::format("--pay: at most {} payments", agents::kMaxBatchMembers));
  }
  std::vector<exec::MemberIntent> intents;
  for (const std::string& pay : options.pays) {
    SION_TRY(exec::MemberIntent intent, parse_pay(pay));
    intents.push_back(std::move(intent));
  }
  SION_TRY(Session session, open_session(options.common));
  // Each agent's payments take its next nonces, in the order given.
  std::map<exec::Id, std::uint64_t> next_nonce;
  for (exec::MemberIntent& intent : intents) {
    auto found = next_nonce.find(intent.agent);
    if (found == next_nonce.end()) {
      SION_TRY(const std::optional<wallet::AgentState> agent, wallet::fetch_agent(session.api, intent.agent));
      if (!agent) return base::fail(Errc::invalid_argument, "agent " + base::to_hex(intent.agent) + " does not exist");
      found = next_nonce.emplace(intent.agent, agent->allotment.nonce).first;
    }
    intent.nonce = found->second++;
  }
  SION_TRY(const exec::MemberBatch batch, exec::make_member_batch(session.status.params, intents));
  const std::uint64_t expiry = session.status.height + options.expiry_pulses;
  SION_TRY(const exec::Transaction open,
           wallet::sign_from(session.api, session.sender, session.status.params, 0,
                             [&](std::span<const exec::Id> coins) -> exec::TxBody {
                               return exec::OpenBatch{batch.root, batch.count(), expiry, {coins.begin(), coins.end()}};
                             }));
  const exec::Id batch_id = agents::batch_id(exec::tx_id(open.payload));
  std::fputs(fmt::format("batch {} of {} members (root {}, open until Pulse {})\n", base::to_hex(batch_id),
                         batch.count(), base::to_hex(batch.root), expiry)
                 .c_str(),
             out);
  AgentCommon waiting = options.common;
  waiting.wait = true;  // the members need the batch in the state
  SION_TRY_STATUS(submit_and_wait(session, waiting, open, out, err));

  SION_TRY(const std::vector<exec::Transaction> members, batch.members(batch_id));
  // Up to 256 members a request (POST /v1/transactions/batch).
  std::vector<exec::Id> ids;
  for (std::size_t start = 0; start < members.size(); start += wallet::kMaxBatchTransactions) {
    const std::size_t end = std::min(members.size(), start + wallet::kMaxBatchTransactions);
    std::vector<base::Bytes> encodings;
    std::vector<base::ByteView> views;
    std::vector<exec::Id> expected;
    for (std::size_t i = start; i < end; ++i) {
      encodings.push_back(codec::encode(members[i]));
      expected.push_back(exec::tx_id(members[i].payload));
    }
    for (const base::Bytes& encoding : encodings) views.emplace_back(encoding);
    SION_TRY(const std::vector<wallet::Submission> submissions, session.api.submit_batch(views, expected));
    for (const wallet::Submission& submission : submissions) {
      if (!submission.admitted()) {
        return base::fail(Errc::invalid_argument,
                          fmt::format("the node refused member {}: {}", ids.size(), submission.refusal->to_string()));
      }
      ids.push_back(submission.tx_id);
    }
  }
  std::fputs(fmt::format("submitted {} members (fee {} each, {})\n", ids.size(), members.front().payload.fee,
                         micro_usd(members.front().payload.fee))
                 .c_str(),
             out);
  if (!options.common.wait) return {};
  std::size_t failed = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    SION_TRY(const wallet::TxState state, wallet::wait_for_execution(session.api, ids[i], options.common.timeout, err));
    const std::string& status = state.receipt->status;
    failed += status != "success";
    std::fputs(
        fmt::format("member {} {}: Pulse {}, {}\n", i, base::to_hex(ids[i]), state.height.value_or(0), status).c_str(),
        out);
  }
  if (failed != 0) return base::fail(Errc::invalid_value, fmt::format("{} of {} members failed", failed, ids.size()));
  return {};
}

base::Status run_agent_cohort(const AgentCohortOptions& options, std::FILE* out, std::FILE* err) {
  if (options.members == 0 || options.members > agents::kMaxCohortMembers) {
    return base::fail(Errc::invalid_argument, fmt::format("--members: 1 to {}", agents::kMaxCohortMembers));
  }
  if (options.allotment == 0) return base::fail(Errc::invalid_argument, "--allotment: must be at least 1");
  if (options.allotment > std::numeric_limits<exec::Amount>::max() / options.members) {
    return base::fail(Errc::invalid_argument, "--allotment: the members' total passes 2^64 - 1");
  }
  std::error_code ignored;
  if (std::filesystem::symlink_status(options.out, ignored).type() != std::filesystem::file_type::not_found) {
    return base::fail(Errc::invalid_argument, "cohort file " + base::quoted_path(options.out) + " already exists");
  }
  SION_TRY_STATUS(base::check_replaceable(options.out, {.what = "cohort file"}));
  SION_TRY(Session session, open_session(options.common));
  SION_TRY(const ChildPlace place, child_place(session, options.index));
  if (!agents::child_lineage(place.lineage, 0)) {
    return base::fail(Errc::invalid_argument, "the cohort's members would be deeper than the deepest level");
  }
  SION_TRY(const agents::Caveats caveats, caveats_from(options.caveats, place.default_caveats));
  exec::Id controller = session.sender.id();
  if (options.controller) {
    SION_TRY(controller, parse_id("--controller", *options.controller));
  }
  const wallet::CohortFile file{agents::lineage_id(place.lineage), options.members, options.allotment, caveats};
  base::Executor executor;
  SION_TRY(const commit::SumTree tree, agents::build_cohort_tree(wallet::cohort_spec(file), &executor));
  const agents::CohortRoot members{tree.root().hash, tree.root().sum, options.members};
  SION_TRY(const exec::Transaction tx,
           wallet::sign_from(
               session.api, session.sender, session.status.params, members.total,
               [&](std::span<const exec::Id> coins) -> exec::TxBody {
                 return exec::SpawnCohort{place.index, controller, caveats, members, {coins.begin(), coins.end()}};
               }));
  // The file first: the members can only ever be proven from it.
  SION_TRY_STATUS(wallet::write_cohort_file(options.out, file));
  std::fputs(fmt::format("cohort {} ({}): {} keyless members of {} each, controller {}; written to {}\n",
                         base::to_hex(file.cohort), describe_lineage(place.lineage), options.members, options.allotment,
                         wallet::address_to_text(controller), options.out)
                 .c_str(),
             out);
  SION_TRY_STATUS(submit_and_wait(session, options.common, tx, out, err));
  return {};
}

base::Status run_agent_materialize(const AgentMaterializeOptions& options, std::FILE* out, std::FILE* err) {
  if (options.count == 0 || options.count > agents::kMaxMaterialized) {
    return base::fail(Errc::invalid_argument, fmt::format("--count: 1 to {}", agents::kMaxMaterialized));
  }
  SION_TRY(const wallet::CohortFile file, wallet::read_cohort_file(options.cohort));
  if (options.first >= file.members || options.count > file.members - options.first) {
    return base::fail(Errc::invalid_argument, fmt::format("--first {} --count {}: the cohort has {} members",
                                                          options.first, options.count, file.members));
  }
  SION_TRY(Session session, open_session(options.common));
  SION_TRY(const std::optional<wallet::AgentState> cohort, wallet::fetch_agent(session.api, file.cohort));
  if (!cohort || !cohort->charter.cohort) {
    return base::fail(Errc::invalid_argument, "no cohort " + base::to_hex(file.cohort) + " on this chain yet");
  }
  base::Executor executor;
  SION_TRY(const commit::SumTree tree, agents::build_cohort_tree(wallet::cohort_spec(file), &executor));
  if (tree.root().hash != cohort->charter.cohort->root) {
    return base::fail(Errc::invalid_argument, "the cohort file does not match the cohort's root on the chain");
  }
  exec::MaterializeAgents body{file.cohort, {}, {}};
  for (std::uint32_t i = options.first; i < options.first + options.count; ++i) {
    SION_TRY(commit::SumProof proof, tree.prove(i));
    body.members.push_back(agents::CohortMember{i, file.caveats, file.allotment, std::move(proof)});
  }
  SION_TRY(const exec::Transaction tx, wallet::sign_from(session.api, session.sender, session.status.params, 0,
                                                         [&](std::span<const exec::Id> coins) -> exec::TxBody {
                                                           exec::MaterializeAgents with_coins = body;
                                                           with_coins.coins = {coins.begin(), coins.end()};
                                                           return with_coins;
                                                         }));
  for (std::uint32_t i = options.first; i < options.first + options.count; ++i) {
    const std::optional<agents::Lineage> member = agents::child_lineage(cohort->charter.lineage, i);
    if (member)
      std::fputs(fmt::format("member {}: agent {}\n", i, base::to_hex(agents::lineage_id(*member))).c_str(), out);
  }
  SION_TRY_STATUS(submit_and_wait(session, options.common, tx, out, err));
  return {};
}

base::Status run_agent_restrict(const AgentRestrictOptions& options, std::FILE* out, std::FILE* err) {
  SION_TRY(const exec::Id target, parse_id("--agent", options.agent));
  SION_TRY(Session session, open_session(options.common));
  agents::RestrictAction action = agents::Revoke{};
  if (options.kind == RestrictKind::suspend) {
    if (options.until == 0) return base::fail(Errc::invalid_argument, "--until: the last Pulse of the suspension");
    action = agents::Suspend{options.until};
  } else if (options.kind == RestrictKind::narrow) {
    SION_TRY(const std::optional<wallet::AgentState> agent, wallet::fetch_agent(session.api, target));
    if (!agent) return base::fail(Errc::invalid_argument, "agent " + base::to_hex(target) + " does not exist");
    SION_TRY(const agents::Caveats narrowed, caveats_from(options.caveats, agent->charter.caveats));
    action = agents::Narrow{agents::Narrowing{narrowed.expiry_height, narrowed.per_payment, narrowed.period_cap,
                                              narrowed.actions, narrowed.payee_classes, narrowed.payees}};
  }
  SION_TRY(const exec::Transaction tx,
           wallet::sign_from(session.api, session.sender, session.status.params, 0,
                             [&](std::span<const exec::Id> coins) -> exec::TxBody {
                               return exec::Restrict{target, action, {coins.begin(), coins.end()}};
                             }));
  SION_TRY_STATUS(submit_and_wait(session, options.common, tx, out, err));
  return {};
}

base::Status run_agent_show(const AgentShowOptions& options, std::FILE* out) {
  SION_TRY(const exec::Id agent, parse_id("AGENT", options.agent));
  SION_TRY(wallet::HttpCall call, http_call_for(options.node));
  wallet::NodeApi api(std::move(call));
  SION_TRY(const base::JsonValue view, api.agent_view(agent));
  std::fputs((view.dump(2) + "\n").c_str(), out);
  return {};
}

}  // namespace sion::cli
