// Group `authorization`: what it costs to authorize agents' payments
// (docs/agents.md, "Authorization of an agent's transaction"): a keyed
// agent's own dual signature, against members of a batch whose controller
// signed once, checked alone and inside a Pulse. What each row times, what
// is prepared outside the clock, and its target: docs/performance.md,
// "authorization".

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "groups.hpp"
#include "sion/agents/batch.hpp"
#include "sion/agents/lineage.hpp"
#include "sion/agents/objects.hpp"
#include "sion/bench/cores.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/wallet/devnet.hpp"
#include "transfers.hpp"

namespace sion::bench::groups {
namespace {

constexpr std::size_t kPulseAgents = 256;
constexpr std::array<std::size_t, 3> kBatchSizes = {16, 64, 256};
constexpr std::size_t kMostMembers = 256;  // the largest of kBatchSizes
constexpr exec::Amount kCoin = 1'000'000'000;
constexpr exec::Amount kAllotment = 10'000'000;  // many dual-signed fees
constexpr exec::Amount kPayment = 1'000;
constexpr std::uint64_t kExpiry = 1'000;
// The agents act in the Pulse after the one that spawned them.
constexpr std::uint64_t kSpawnHeight = 1;
constexpr std::uint64_t kPayHeight = 2;
// Child indices below the owner: keyed agents from 0, keyless from here.
constexpr std::uint32_t kKeylessIndex = 1'000;

crypto::KeySeed seed_of(std::uint64_t n) { return group_seed(n, 0xa6); }

agents::Caveats agent_caveats() {
  agents::Caveats c;
  c.expiry_height = kExpiry;
  c.per_payment = 1'000'000;
  c.period_cap = 1'000'000'000;
  c.period_length = 10;
  c.actions = agents::kAllActions;
  c.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  return c;
}

// `count` results of make(i) on every core: dual signing takes
// milliseconds each, and none of it is measured.
template <class T, class Make>
base::Result<std::vector<T>> make_all(base::Executor& cores, std::size_t count, const Make& make) {
  std::vector<std::optional<T>> made(count);
  std::vector<base::Status> statuses(count);
  base::run_parallel(&cores, static_cast<unsigned>(count), [&](unsigned i) {
    auto result = make(i);
    if (result) {
      made[i].emplace(std::move(result).value());
    } else {
      statuses[i] = base::fail(std::move(result).error());
    }
  });
  std::vector<T> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!statuses[i]) return base::fail(std::move(statuses[i]).error());
    out.push_back(std::move(*made[i]));
  }
  return out;
}

// execute_pulse of `txs` on `pre` at `height`, then its write set into
// `post` (a copy of `pre`); the post-state root goes to `root`, the
// seconds the commit took to `commit_seconds`. internal unless every
// transaction succeeded: anything else measured something else.
base::Status run_pulse(const exec::MemoryState& pre, exec::MemoryState& post, const std::vector<exec::Transaction>& txs,
                       const exec::ChainParams& params, std::uint64_t height, commit::Hash& root,
                       double& commit_seconds) {
  SION_TRY(const auto outcome, exec::execute_pulse(pre, txs, params, height, exec::PulseOptions{}));
  const auto start = std::chrono::steady_clock::now();
  SION_TRY(root, exec::commit_pulse(post, outcome));
  commit_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::size_t i = 0; i < outcome.receipts.size(); ++i) {
    if (outcome.receipts[i].status != exec::TxStatus::success) {
      return base::fail(base::Errc::internal, fmt::format("authorization bench: transaction {} ended with {}", i,
                                                          exec::status_name(outcome.receipts[i].status)));
    }
  }
  return {};
}

struct Batch {
  exec::Transaction open;  // the controller's OpenBatch, dual-signed
  std::vector<exec::Transaction> members;
  agents::AuthBatch object;  // what the OpenBatch writes
};

struct Workload {
  exec::ChainParams params;
  std::vector<crypto::SigningBundle> agent_keys;  // keyed agent i's, dual
  std::vector<exec::Transaction> keyed_pays;      // keyed agent i pays
  std::vector<Batch> batches;                     // one per kBatchSizes
  exec::MemoryState pre;                          // after the spawns
  std::string pre_note;
};

// An owner account spawns `count` keyed agents (dual keys from seeds) and
// `count` keyless ones controlled by the controller account, in one
// Pulse executed outside the clock; the owner signs with the faster hybrid
// profile, as only preparation reads its signatures. Then every payment
// and the batches are signed.
base::Result<Workload> make_workload(base::Executor& cores, std::size_t count) {
  Workload w;
  w.params.chain_id = wallet::DevnetSpec{}.chain_id;  // the devnet's fees and limits
  SION_TRY(const auto owner, crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed_of(0)));
  SION_TRY(const auto controller, crypto::SigningBundle::from_seed(crypto::Profile::dual, seed_of(1)));
  const exec::Id owner_id = exec::account_id(owner.public_bundle());
  const exec::Id controller_id = exec::account_id(controller.public_bundle());

  // Genesis: the owner with one coin per spawn, the controller with one
  // coin per batch.
  std::vector<state::ObjectWrite> genesis;
  genesis.push_back({owner_id, exec::to_object(exec::Account{owner.id(), 0}, 1)});
  genesis.push_back({controller_id, exec::to_object(exec::Account{controller.id(), 0}, 1)});
  std::uint32_t coins = 0;
  const auto coin_for = [&](const exec::Id& account) {
    const exec::Id coin = exec::genesis_coin_id(coins++);
    genesis.push_back({coin, exec::to_object(exec::Coin{account, kCoin}, 1)});
    return coin;
  };
  std::vector<exec::Id> spawn_coins;
  for (std::size_t i = 0; i < 2 * count; ++i) spawn_coins.push_back(coin_for(owner_id));
  std::vector<exec::Id> batch_coins;
  for (std::size_t i = 0; i < kBatchSizes.size(); ++i) batch_coins.push_back(coin_for(controller_id));
  SION_TRY(const auto genesis_state, exec::MemoryState::from_writes(genesis));

  SION_TRY(w.agent_keys, make_all<crypto::SigningBundle>(cores, count, [](unsigned i) {
             return crypto::SigningBundle::from_seed(crypto::Profile::dual, seed_of(100 + i));
           }));
  std::vector<exec::Id> keyed(count);
  std::vector<exec::Id> keyless(kMostMembers);
  for (std::uint32_t i = 0; i < count; ++i) keyed[i] = agents::lineage_id(agents::child_of_account(owner_id, i));
  for (std::uint32_t i = 0; i < kMostMembers; ++i) {
    keyless[i] = agents::lineage_id(agents::child_of_account(owner_id, kKeylessIndex + i));
  }

  SION_TRY(const auto spawns, make_all<exec::Transaction>(cores, 2 * count, [&](unsigned i) {
             const bool is_keyed = i < count;
             const agents::Authority authority = is_keyed ? agents::Authority{agents::Keyed{w.agent_keys[i].id()}}
                                                          : agents::Authority{agents::Keyless{controller_id}};
             const std::uint32_t index = is_keyed ? i : kKeylessIndex + (i - static_cast<std::uint32_t>(count));
             return exec::make_signed(
                 owner, w.params, owner_id, i,
                 agents::SpawnAgent{index, authority, agent_caveats(), kAllotment, agents::Coins{spawn_coins[i]}},
                 std::nullopt, crypto::Hedging::deterministic);
           }));
  {
    // Spawned on every core: preparation.
    SION_TRY(const auto outcome,
             exec::execute_pulse(genesis_state, spawns, w.params, kSpawnHeight, exec::PulseOptions{&cores}));
    for (const exec::Receipt& receipt : outcome.receipts) {
      if (receipt.status != exec::TxStatus::success) {
        return base::fail(base::Errc::internal,
                          fmt::format("authorization bench: a spawn ended with {}", exec::status_name(receipt.status)));
      }
    }
    w.pre = genesis_state;
    SION_TRY_STATUS(exec::commit_pulse(w.pre, outcome));
  }
  w.pre_note = fmt::format("pre-state of {} objects in memory", with_commas(w.pre.objects().size()));

  exec::Id payee{};
  payee.fill(0xe1);  // no object: each payment creates a coin
  SION_TRY(w.keyed_pays, make_all<exec::Transaction>(cores, count, [&](unsigned i) {
             return exec::make_signed(w.agent_keys[i], w.params, keyed[i], 0, agents::AgentPay{payee, kPayment},
                                      std::nullopt, crypto::Hedging::deterministic);
           }));

  // The batches: members are the first N keyless agents, each paying
  // once; the controller's nonce counts its OpenBatches (only the one in
  // the Pulse is executed, and it is the controller's first: nonce 0).
  for (std::size_t b = 0; b < kBatchSizes.size(); ++b) {
    const std::size_t size = kBatchSizes[b];
    std::vector<exec::MemberIntent> intents;
    for (std::size_t i = 0; i < size; ++i) intents.push_back({keyless[i], 0, agents::AgentPay{payee, kPayment}});
    SION_TRY(const auto members, exec::make_member_batch(w.params, intents));
    Batch batch;
    SION_TRY(batch.open,
             exec::make_signed(controller, w.params, controller_id, 0,
                               agents::OpenBatch{members.root, members.count(), kExpiry, agents::Coins{batch_coins[b]}},
                               std::nullopt, crypto::Hedging::deterministic));
    SION_TRY(batch.members, members.members(agents::batch_id(exec::tx_id(batch.open.payload))));
    batch.object = agents::AuthBatch{controller_id, members.root, members.count(), kExpiry};
    w.batches.push_back(std::move(batch));
  }
  return w;
}

// One check of the OpenBatch's signatures and every member's place, as
// authorize_agent's step 2 makes it once the batch object is read: the
// place decoded from the member's auth, its payload encoded (the leaf's
// input) and the inclusion path checked against the batch root.
bool check_batch(const Batch& batch) {
  bool ok = exec::verify_signatures(batch.open);
  for (const exec::Transaction& member : batch.members) {
    const auto place = agents::member_place(member.auth);
    ok = ok && place && agents::proves_member(*place, codec::encode(member.payload), batch.object);
  }
  return ok;
}

base::Status report_checks(Context& context, const Workload& w, double& single_seconds) {
  const OneCore core;
  const exec::Transaction& tx = w.keyed_pays.front();
  bool ok = true;
  const Stats single = time_per_call(
      [&] {
        ok = exec::verify_signatures(tx);
        do_not_optimize(ok);
      },
      context.measure_options());
  if (!ok) return base::fail(base::Errc::internal, "authorization bench: a keyed agent's payment did not verify");
  single_seconds = single.median;
  context.report_time("signed by itself: check", single, TimeUnit::us,
                      fmt::format("exec::verify_signatures of a keyed agent's AgentPay: its payload encoded, "
                                  "ML-DSA-44 + SLH-DSA-SHA2-128f verified, no cache; {}",
                                  core.note()));
  context.report(
      "signed by itself: bytes", static_cast<double>(codec::encoded_size(tx.auth)), "B",
      fmt::format("signatures, per transaction; the key bundle it carries is {} B more", codec::encoded_size(tx.keys)));

  for (const Batch& batch : w.batches) {
    const std::size_t n = batch.members.size();
    ok = true;
    const Stats stats = time_each_call(
        [&] {
          ok = check_batch(batch);
          do_not_optimize(ok);
        },
        context.measure_options());
    if (!ok) return base::fail(base::Errc::internal, "authorization bench: a batch did not check");
    const auto place = agents::member_place(batch.members.front().auth);
    context.report_time(
        fmt::format("batch of {}: check per member", n), per(stats, n), TimeUnit::us,
        fmt::format("(one exec::verify_signatures of the OpenBatch + {} members' places: decoded, payload encoded, "
                    "agents::proves_member over a path of {} siblings) / {}; the batch object's state read "
                    "(authorize_agent, step 2) not included; {}",
                    n, place ? place->path.size() : 0, n, core.note()));

    std::uint64_t member_bytes = 0;
    for (const exec::Transaction& member : batch.members) member_bytes += exec::auth_bytes(member);
    const std::uint64_t signatures = codec::encoded_size(batch.open.auth);
    const double place_bytes = static_cast<double>(member_bytes) / static_cast<double>(n);
    context.report(
        fmt::format("batch of {}: bytes per member", n),
        place_bytes + static_cast<double>(signatures) / static_cast<double>(n), "B",
        fmt::format("{:.0f} B of place and path, plus a {}th of the signatures ({} B)", place_bytes, n, signatures));
  }
  return {};
}

// One Pulse on a fresh copy of the pre-state (copied outside the clock):
// execute_pulse with every signature checked on this thread, then the
// post-state root.
struct PulseTimes {
  Stats pulse;
  double commit_seconds = 0;  // the median sample's share of the post-state root
};

base::Result<PulseTimes> time_pulse(const Context& context, const Workload& w,
                                    const std::vector<exec::Transaction>& txs) {
  exec::MemoryState post;
  base::Status status;
  std::vector<double> commits;
  const Stats stats = time_each_call_after([&] { post = w.pre; },
                                           [&] {
                                             if (!status) return;
                                             commit::Hash root{};
                                             double seconds = 0;
                                             status = run_pulse(w.pre, post, txs, w.params, kPayHeight, root, seconds);
                                             commits.push_back(seconds);
                                             do_not_optimize(root);
                                           },
                                           context.measure_options());
  if (!status) return base::fail(std::move(status).error());
  return PulseTimes{stats, summarize(commits).median};
}

void report_per_payment(Context& context, const std::string& name, const Stats& pulse, std::size_t payments,
                        const std::string& note) {
  const Stats each = per(pulse, payments);
  context.report(name, seconds_in(TimeUnit::us, each.median), "µs/tx", note, seconds_in(TimeUnit::us, each.p95));
}

base::Status report_pulses(Context& context, const Workload& w, double single_seconds) {
  const std::size_t n = w.keyed_pays.size();
  const OneCore core;
  SION_TRY(const PulseTimes keyed, time_pulse(context, w, w.keyed_pays));
  report_per_payment(
      context, fmt::format("Pulse of {} agent payments, keyed subagents, each signed by itself", n), keyed.pulse, n,
      fmt::format("{:.1f} ms per Pulse with signature checks, {}; {:.2f}x `signed by itself: check` "
                  "per payment; post-state root included ({:.2f} ms); {}",
                  keyed.pulse.median * 1e3, core.note(), keyed.pulse.median / static_cast<double>(n) / single_seconds,
                  keyed.commit_seconds * 1e3, w.pre_note));

  const Batch* batch = nullptr;
  for (const Batch& b : w.batches) {
    if (b.members.size() == n) batch = &b;
  }
  if (batch == nullptr) return base::fail(base::Errc::internal, "authorization bench: no batch of the Pulse's size");
  std::vector<exec::Transaction> txs{batch->open};
  txs.insert(txs.end(), batch->members.begin(), batch->members.end());
  SION_TRY(const PulseTimes keyless, time_pulse(context, w, txs));
  report_per_payment(context, fmt::format("Pulse of {} agent payments, keyless subagents, one batch", n), keyless.pulse,
                     n,
                     fmt::format("{:.2f} ms per Pulse (the OpenBatch and {} members; its signature check "
                                 "included), {}; post-state root included ({:.2f} ms); {}",
                                 keyless.pulse.median * 1e3, n, core.note(), keyless.commit_seconds * 1e3, w.pre_note));
  return {};
}

base::Status run(Context& context) {
  // --quick: a Pulse of 64 payments, under its own row names.
  const std::size_t payments = context.quick() ? 64 : kPulseAgents;
  Workload w;
  {
    // Gone before the one-core rows: its idle workers would share their core.
    base::Executor all_cores(0);
    SION_TRY(w, make_workload(all_cores, payments));
  }
  double single_seconds = 0;
  SION_TRY_STATUS(report_checks(context, w, single_seconds));
  return report_pulses(context, w, single_seconds);
}

}  // namespace

Group authorization() {
  return {"authorization", "agents' payments: signed by themselves or as members of a batch, alone and in a Pulse",
          &run};
}

}  // namespace sion::bench::groups
