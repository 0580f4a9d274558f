// Group `lineage`: agents in bulk and in depth (docs/agents.md, "SpawnCohort",
// "MaterializeAgents", "Effective caveats"): a cohort of 2^20 keyless
// agents committed in one transaction, members revealed 128 at a time, and
// what a payment by an agent eight levels below its account reads. What
// each row times or counts, and its target: docs/performance.md, "lineage".

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "groups.hpp"
#include "sion/agents/cohort.hpp"
#include "sion/agents/lineage.hpp"
#include "sion/agents/objects.hpp"
#include "sion/bench/cores.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/trace.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/wallet/devnet.hpp"
#include "transfers.hpp"

namespace sion::bench::groups {
namespace {

constexpr std::uint32_t kCohortMembers = 1U << 20;  // the most a cohort holds
constexpr std::uint32_t kQuickCohortMembers = 1U << 16;
constexpr std::size_t kMaterialized = agents::kMaxMaterialized;  // 128, the most one transaction reveals
constexpr std::uint64_t kIdentities = 10'000'000'000;
constexpr std::size_t kDepth = 8;
// Filler accounts (one coin each) beside the deep lineage, so that the
// payment's state proofs have the depth of a state of about a million
// objects; --quick a tenth of it.
constexpr std::size_t kFillerAccounts = 500'000;
constexpr std::uint64_t kExpiry = 1'000;
constexpr std::uint64_t kSpawnHeight = 1;
constexpr std::uint64_t kNextHeight = 2;

crypto::KeySeed seed_of(std::uint64_t n) { return group_seed(n, 0x1e); }

agents::Caveats caveats(exec::Amount per_payment, exec::Amount period_cap, std::uint8_t actions) {
  agents::Caveats c;
  c.expiry_height = kExpiry;
  c.per_payment = per_payment;
  c.period_cap = period_cap;
  c.period_length = 10;
  c.actions = actions;
  c.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  return c;
}

constexpr auto kPay = static_cast<std::uint8_t>(agents::Action::pay);

// Member i: caveats and an allotment of its own, within the cohort's bound.
agents::CohortSpec cohort_spec(std::uint32_t members) {
  agents::CohortSpec spec;
  spec.caveats.reserve(members);
  spec.allotments.reserve(members);
  for (std::uint32_t i = 0; i < members; ++i) {
    spec.caveats.push_back(caveats(1'000 + i, 1'000'000 + i, kPay));
    spec.allotments.push_back(1'000 + i);
  }
  return spec;
}

std::string devnet_prices(exec::Amount units) {
  return fmt::format("{} units at devnet prices ({} nano-USD per unit)", with_commas(units),
                     exec::kDevnetNanoUsdPerUnit);
}

// execute_pulse of `txs` at `height`; internal unless every transaction
// succeeded (anything else would measure something else).
base::Result<exec::PulseOutcome> execute_all(const exec::MemoryState& pre, const std::vector<exec::Transaction>& txs,
                                             const exec::ChainParams& params, std::uint64_t height,
                                             const exec::PulseOptions& options = {}) {
  SION_TRY(auto outcome, exec::execute_pulse(pre, txs, params, height, options));
  for (std::size_t i = 0; i < outcome.receipts.size(); ++i) {
    if (outcome.receipts[i].status != exec::TxStatus::success) {
      return base::fail(base::Errc::internal, fmt::format("lineage bench: transaction {} ended with {}", i,
                                                          exec::status_name(outcome.receipts[i].status)));
    }
  }
  return outcome;
}

struct Chain {
  exec::ChainParams params;
  crypto::SigningBundle owner;  // an account, dual
  exec::Id owner_id{};
  exec::Id controller_id{};  // the cohort's controller: only its id is needed
};

base::Result<Chain> make_chain() {
  SION_TRY(auto owner, crypto::SigningBundle::from_seed(crypto::Profile::dual, seed_of(0)));
  SION_TRY(const auto controller, crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed_of(1)));
  Chain chain{exec::ChainParams{}, std::move(owner), {}, exec::account_id(controller.public_bundle())};
  chain.params.chain_id = wallet::DevnetSpec{}.chain_id;  // the devnet's fees and limits
  chain.owner_id = exec::account_id(chain.owner.public_bundle());
  return chain;
}

// The owner's account with one coin of `amount`, then `filler` accounts
// with one coin each (keys id: SHA3-256 of the index; they never send).
base::Result<exec::MemoryState> genesis_state(const Chain& chain, exec::Amount amount, std::size_t filler) {
  std::vector<state::ObjectWrite> writes;
  writes.reserve(2 + 2 * filler);
  writes.push_back({chain.owner_id, exec::to_object(exec::Account{chain.owner.id(), 0}, 1)});
  writes.push_back({exec::genesis_coin_id(0), exec::to_object(exec::Coin{chain.owner_id, amount}, 1)});
  for (std::size_t i = 0; i < filler; ++i) {
    std::uint8_t index[8];
    for (std::size_t b = 0; b < 8; ++b) index[b] = static_cast<std::uint8_t>(i >> (8 * b));
    const exec::Id keys_id = crypto::sha3_256(base::ByteView(index, sizeof index));
    const exec::Id account = exec::account_id_from_keys_id(keys_id);
    writes.push_back({account, exec::to_object(exec::Account{keys_id, 0}, 1)});
    writes.push_back({exec::genesis_coin_id(static_cast<std::uint32_t>(1 + i)),
                      exec::to_object(exec::Coin{account, 1'000'000'000}, 1)});
  }
  return exec::MemoryState::from_writes(writes);
}

// The cohort's sum tree, timed on every core (the first row).
base::Result<commit::SumTree> report_tree(Context& context, const agents::CohortSpec& spec) {
  const auto count = static_cast<std::uint32_t>(spec.caveats.size());
  base::Executor all_cores(0);
  bool built = true;
  const Stats build = time_each_call(
      [&] {
        auto tree = agents::build_cohort_tree(spec, &all_cores);
        built &= tree.ok();
        if (tree) do_not_optimize(tree->root());
      },
      context.measure_options());
  if (!built) return base::fail(base::Errc::internal, "lineage bench: the cohort's tree was not built");
  // Where the time goes: the sum tree over the same leaves, timed alone.
  std::vector<commit::SumLeaf> leaves(count);
  base::for_slices(&all_cores, count, all_cores.concurrency(), [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      leaves[i] = agents::member_leaf({static_cast<std::uint32_t>(i), spec.caveats[i]}, spec.allotments[i]);
    }
  });
  const Stats tree_alone = time_each_call(
      [&] {
        auto tree = commit::SumTree::build(leaves, &all_cores);
        built &= tree.ok();
        if (tree) do_not_optimize(tree->root());
      },
      context.measure_options());
  if (!built) return base::fail(base::Errc::internal, "lineage bench: the members' sum tree was not built");
  context.report_time(fmt::format("cohort of {}: build its sum tree", count), build, TimeUnit::ms,
                      fmt::format("agents::build_cohort_tree: each member's terms encoded and hashed, leaf and node "
                                  "hashes in SHA3-256 Keccak lanes, split over {}; distinct caveats and allotments; "
                                  "the sum tree over the leaves alone (commit::SumTree::build) {:.1f} ms",
                                  cores_note(&all_cores), seconds_in(TimeUnit::ms, tree_alone.median)));
  return agents::build_cohort_tree(spec, &all_cores);
}

// The cohort's rows: its sum tree built, the SpawnCohort committing to it,
// 128 members materialized.
base::Status report_cohort(Context& context, const Chain& chain) {
  const std::uint32_t count = context.quick() ? kQuickCohortMembers : kCohortMembers;
  const agents::CohortSpec spec = cohort_spec(count);
  // Its executor is gone before the one-core rows: idle workers would share their core.
  SION_TRY(const commit::SumTree tree, report_tree(context, spec));

  // The SpawnCohort, dual-signed by the owner's account from its one coin.
  const agents::Caveats bound = caveats(10'000'000, 1'000'000'000, kPay);
  const agents::CohortRoot members{tree.root().hash, tree.root().sum, count};
  SION_TRY(const exec::MemoryState genesis, genesis_state(chain, 2 * tree.root().sum + 1'000'000'000, 0));
  SION_TRY(const exec::Transaction spawn,
           exec::make_signed(
               chain.owner, chain.params, chain.owner_id, 0,
               agents::SpawnCohort{0, chain.controller_id, bound, members, agents::Coins{exec::genesis_coin_id(0)}},
               std::nullopt, crypto::Hedging::deterministic));
  const exec::Amount spawn_fee = spawn.payload.fee;
  context.report(fmt::format("SpawnCohort of {}: bytes", count), static_cast<double>(codec::encoded_size(spawn)), "B",
                 fmt::format("the signed transaction: payload {} B, key bundle {} B, signatures {} B (ML-DSA-44 + "
                             "SLH-DSA-SHA2-128f, an account's)",
                             codec::encoded_size(spawn.payload), codec::encoded_size(spawn.keys),
                             codec::encoded_size(spawn.auth)));
  context.report(fmt::format("SpawnCohort of {}: fee", count), micro_usd(spawn_fee), "µUSD", devnet_prices(spawn_fee));
  const std::uint64_t cohorts = (kIdentities + count - 1) / count;
  context.report("10^10 identities: SpawnCohort transactions", static_cast<double>(cohorts), "tx",
                 fmt::format("cohorts of {}; {:.2f} USD of fees in all at devnet prices, from the measured fee per "
                             "cohort (our arithmetic)",
                             with_commas(count), micro_usd(cohorts * spawn_fee) / 1e6));

  // The cohort in a state (executed outside the clock), then 128 members,
  // spread over it, revealed with their sum proofs.
  SION_TRY(const auto spawned, execute_all(genesis, {spawn}, chain.params, kSpawnHeight));
  exec::MemoryState with_cohort = genesis;
  SION_TRY_STATUS(exec::commit_pulse(with_cohort, spawned));
  const agents::Lineage cohort_lineage = agents::child_of_account(chain.owner_id, 0);
  agents::MaterializeAgents reveal;
  reveal.cohort = agents::lineage_id(cohort_lineage);
  for (std::size_t k = 0; k < kMaterialized; ++k) {
    const std::uint32_t index = static_cast<std::uint32_t>(k * (count / kMaterialized) + k % (count / kMaterialized));
    SION_TRY(auto proof, tree.prove(index));
    reveal.members.push_back({index, spec.caveats[index], spec.allotments[index], std::move(proof)});
  }
  const std::size_t proof_depth = reveal.members.front().proof.path.size();
  reveal.coins = agents::Coins{exec::coin_id(exec::tx_id(spawn.payload), 0)};  // the SpawnCohort's change
  SION_TRY(const exec::Transaction materialize, exec::make_signed(chain.owner, chain.params, chain.owner_id, 1, reveal,
                                                                  std::nullopt, crypto::Hedging::deterministic));
  const std::size_t materialize_bytes = codec::encoded_size(materialize);
  context.report(fmt::format("MaterializeAgents of {}: bytes per member", kMaterialized),
                 static_cast<double>(materialize_bytes) / kMaterialized, "B",
                 fmt::format("the signed transaction, {} B, / {}: each member's index, caveats, allotment and a sum "
                             "proof of {} siblings; the key bundle and signatures ({} B) shared",
                             with_commas(materialize_bytes), kMaterialized, proof_depth,
                             with_commas(exec::auth_bytes(materialize))));
  const exec::Amount materialize_fee = materialize.payload.fee;
  context.report(fmt::format("MaterializeAgents of {}: fee per member", kMaterialized),
                 micro_usd(materialize_fee) / kMaterialized, "µUSD",
                 fmt::format("{} for the transaction", devnet_prices(materialize_fee)));

  // Executed alone in a Pulse, every signature checked on this thread.
  const OneCore core;
  const std::vector<exec::Transaction> pulse{materialize};
  base::Status status;
  std::optional<exec::PulseOutcome> outcome;
  const Stats execution = time_each_call(
      [&] {
        if (!status) return;
        auto result = execute_all(with_cohort, pulse, chain.params, kNextHeight);
        if (!result) {
          status = base::fail(std::move(result).error());
          return;
        }
        outcome = std::move(result).value();
      },
      context.measure_options());
  if (!status) return status;
  exec::MemoryState post;
  const Stats root = time_each_call_after([&] { post = with_cohort; },
                                          [&] {
                                            auto committed = exec::commit_pulse(post, *outcome);
                                            if (committed) do_not_optimize(*committed);
                                            if (!committed) status = base::fail(std::move(committed).error());
                                          },
                                          context.measure_options());
  if (!status) return status;
  const auto per_member = [](const Stats& stats) { return per(stats, kMaterialized); };
  context.report_time(fmt::format("MaterializeAgents of {}: execution per member", kMaterialized),
                      per_member(execution), TimeUnit::us,
                      fmt::format("proof checks, creates and the signature check, {}: execute_pulse of a Pulse "
                                  "holding it alone, on the cohort's pre-state of {} objects, / {}; the post-state "
                                  "root not included ({:.1f} µs per member more)",
                                  core.note(), with_cohort.objects().size(), kMaterialized,
                                  seconds_in(TimeUnit::us, per_member(root).median)));

  // A member as its materialization wrote it.
  const exec::Id member = agents::lineage_id(*agents::child_lineage(cohort_lineage, reveal.members.front().index));
  std::size_t charter_bytes = 0;
  std::size_t allotment_bytes = 0;
  for (const state::ObjectWrite& write : outcome->writes) {
    if (!write.object) continue;
    if (write.id == member) charter_bytes = codec::encoded_size(*write.object);
    if (write.id == agents::allotment_id(member)) allotment_bytes = codec::encoded_size(*write.object);
  }
  if (charter_bytes == 0 || allotment_bytes == 0) {
    return base::fail(base::Errc::internal, "lineage bench: a materialized member's objects were not written");
  }
  context.report("a materialized member: state", static_cast<double>(charter_bytes + allotment_bytes), "B",
                 fmt::format("its charter ({} B) and allotment ({} B), each an encoded state::Object", charter_bytes,
                             allotment_bytes));
  return {};
}

// A keyed agent at depth 8 (each level spawned by the one above it, the
// first by an account) pays; its traced execution's witness holds every
// object the payment reads or writes.
base::Status report_depth(Context& context, const Chain& chain) {
  const std::size_t filler = context.quick() ? kFillerAccounts / 10 : kFillerAccounts;
  base::Executor all_cores(0);
  std::vector<crypto::SigningBundle> keys;
  std::vector<exec::Id> ids;
  agents::Lineage lineage = agents::child_of_account(chain.owner_id, 0);
  for (std::size_t d = 0; d < kDepth; ++d) {
    if (d > 0) lineage = *agents::child_lineage(lineage, 0);
    SION_TRY(auto agent_keys, crypto::SigningBundle::from_seed(crypto::Profile::dual, seed_of(10 + d)));
    keys.push_back(std::move(agent_keys));
    ids.push_back(agents::lineage_id(lineage));
  }
  // Each parent hands its child less than it holds, keeping its fee.
  const auto allotment = [](std::size_t d) { return static_cast<exec::Amount>(kDepth - d) * 100'000'000; };
  const agents::Caveats terms = caveats(1'000'000, 1'000'000'000'000, agents::kAllActions);
  std::vector<exec::Transaction> spawns;
  for (std::size_t d = 0; d < kDepth; ++d) {
    const agents::Authority authority = agents::Keyed{keys[d].id()};
    auto tx = d == 0 ? exec::make_signed(chain.owner, chain.params, chain.owner_id, 0,
                                         agents::SpawnAgent{0, authority, terms, allotment(d),
                                                            agents::Coins{exec::genesis_coin_id(0)}},
                                         std::nullopt, crypto::Hedging::deterministic)
                     : exec::make_signed(keys[d - 1], chain.params, ids[d - 1], 0,
                                         agents::SpawnAgent{0, authority, terms, allotment(d), {}}, std::nullopt,
                                         crypto::Hedging::deterministic);
    if (!tx) return base::fail(std::move(tx).error());
    spawns.push_back(std::move(tx).value());
  }
  SION_TRY(exec::MemoryState state, genesis_state(chain, 10'000'000'000, filler));
  SION_TRY(const auto spawned, execute_all(state, spawns, chain.params, kSpawnHeight, exec::PulseOptions{&all_cores}));
  SION_TRY_STATUS(exec::commit_pulse(state, spawned));

  exec::Id payee{};
  payee.fill(0xe1);
  SION_TRY(const exec::Transaction pay,
           exec::make_signed(keys.back(), chain.params, ids.back(), 0, agents::AgentPay{payee, 1'000}, std::nullopt,
                             crypto::Hedging::deterministic));
  SION_TRY(const exec::TracedPulse traced, exec::trace_pulse(state, {&pay, 1}, chain.params, kNextHeight));
  if (traced.outcome.receipts.at(0).status != exec::TxStatus::success || traced.chunks.size() != 1) {
    return base::fail(base::Errc::internal, "lineage bench: the payment at depth 8 did not succeed in one chunk");
  }
  const exec::ChunkWitness& witness = traced.chunks[0].witness;
  std::size_t absent = 0;
  std::size_t object_bytes = 0;
  for (const exec::WitnessObject& object : witness.objects) {
    if (!object.object) ++absent;
    object_bytes += codec::encoded_size(object);
  }
  const std::string pre = fmt::format("pre-state of {} objects", with_commas(state.objects().size()));
  context.report(fmt::format("a payment at depth {}: objects read", kDepth),
                 static_cast<double>(witness.objects.size()), "objects",
                 fmt::format("{} of them proven absent; every id in its trace_pulse witness (read or written), the "
                             "overlays of the payer and its {} agent ancestors among them; {}",
                             absent, kDepth - 1, pre));
  context.report(fmt::format("a payment at depth {}: witness", kDepth),
                 static_cast<double>(codec::encoded_size(witness)), "B",
                 fmt::format("its chunk witness from trace_pulse, encoded: the objects {} B, one multi-proof {} B "
                             "({} sibling hashes); {}",
                             object_bytes, codec::encoded_size(witness.proof), witness.proof.siblings.size(), pre));
  return {};
}

base::Status run(Context& context) {
  SION_TRY(const Chain chain, make_chain());
  SION_TRY_STATUS(report_cohort(context, chain));
  return report_depth(context, chain);
}

}  // namespace

Group lineage() {
  return {"lineage", "agents in bulk and in depth: cohorts of 2^20, materialized members, a payment at depth 8", &run};
}

}  // namespace sion::bench::groups
