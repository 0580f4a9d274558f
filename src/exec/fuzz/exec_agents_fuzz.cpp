// libFuzzer target: the kinds of agents (docs/agents.md) from outside. The
// input is a codec list of up to 8 transactions, decoded and executed as
// one Pulse on a state that already holds a keyed agent, a keyless agent
// with an open batch of its controller, and a cohort node with one member
// materialized. Decoding must fail with a reason or give a value that
// re-encodes to the same bytes; execution must give one receipt per
// transaction, never crash; and value is conserved: the coins and the
// allotments after the Pulse plus its fees equal what was there before.
// Built with SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus:
// one Pulse of every agent kind, a batch's members, and each alone.

#include <cstdlib>
#include <vector>

#include "pulse_of_kinds.hpp"
#include "sion/agents/cohort.hpp"
#include "sion/agents/objects.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/tx_builder.hpp"

namespace {

using namespace sion;
using exec::fuzzing::Transactions;

agents::Caveats open_caveats() {
  agents::Caveats c;
  c.expiry_height = 100;
  c.per_payment = 1'000;
  c.period_cap = 100'000;
  c.period_length = 10;
  c.actions = agents::kAllActions;
  c.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  return c;
}

crypto::SigningBundle hybrid(std::uint8_t byte) {
  crypto::KeySeed seed{};
  seed.fill(byte);
  return crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value();
}

struct Fixture {
  crypto::SigningBundle owner = hybrid(3);
  crypto::SigningBundle agent_keys = hybrid(4);
  exec::Genesis genesis;
  exec::MemoryState state;
  std::uint64_t height = 0;
  exec::Id owner_id{};
  exec::Id coin{};  // the owner's coin
  exec::Id keyed{}, keyless{}, cohort{};
  std::vector<exec::Transaction> members;  // of an open batch, not yet executed
  commit::SumTree cohort_tree;
  agents::CohortSpec cohort_spec;

  exec::Transaction by_owner(exec::TxBody body, std::uint64_t nonce) const {
    return exec::make_signed(owner, genesis.params, owner_id, nonce, std::move(body), std::nullopt,
                             crypto::Hedging::deterministic)
        .value();
  }
  void run(const exec::Transaction& tx) {
    const auto outcome = exec::execute_pulse(state, {&tx, 1}, genesis.params, ++height).value();
    if (outcome.receipts[0].status != exec::TxStatus::success) std::abort();
    (void)exec::commit_pulse(state, outcome).value();
    coin = exec::coin_id(exec::tx_id(tx.payload), 0);
  }

  static Fixture make() {
    Fixture f;
    f.genesis.params.chain_id = 5;
    f.genesis.accounts.push_back({f.owner.public_bundle(), {1'000'000'000}});
    f.state = exec::MemoryState::from_writes(exec::genesis_writes(f.genesis)).value();
    f.owner_id = exec::account_id(f.owner.public_bundle());
    f.coin = exec::genesis_coin_id(0);
    std::uint64_t nonce = 0;
    f.run(
        f.by_owner(exec::SpawnAgent{0, agents::Keyed{f.agent_keys.id()}, open_caveats(), 200'000, {f.coin}}, nonce++));
    f.keyed = agents::lineage_id(agents::child_of_account(f.owner_id, 0));
    f.run(f.by_owner(exec::SpawnAgent{1, agents::Keyless{f.owner_id}, open_caveats(), 200'000, {f.coin}}, nonce++));
    f.keyless = agents::lineage_id(agents::child_of_account(f.owner_id, 1));
    for (std::uint32_t i = 0; i < 4; ++i) {
      f.cohort_spec.caveats.push_back(open_caveats());
      f.cohort_spec.allotments.push_back(10'000 * (i + 1));
    }
    f.cohort_tree = agents::build_cohort_tree(f.cohort_spec).value();
    const agents::CohortRoot root{f.cohort_tree.root().hash, f.cohort_tree.root().sum, 4};
    f.run(f.by_owner(exec::SpawnCohort{2, f.owner_id, open_caveats(), root, {f.coin}}, nonce++));
    f.cohort = agents::lineage_id(agents::child_of_account(f.owner_id, 2));
    f.run(f.by_owner(exec::MaterializeAgents{f.cohort, {f.member(0)}, {f.coin}}, nonce++));
    const std::vector<exec::MemberIntent> intents = {{f.keyless, 0, exec::AgentPay{f.owner_id, 10}},
                                                     {f.keyless, 1, exec::AgentPay{f.keyed, 20}}};
    const auto batch = exec::make_member_batch(f.genesis.params, intents).value();
    const auto open = f.by_owner(exec::OpenBatch{batch.root, batch.count(), 100, {f.coin}}, nonce++);
    f.run(open);
    f.members = batch.members(agents::batch_id(exec::tx_id(open.payload))).value();
    return f;
  }

  agents::CohortMember member(std::uint32_t i) const {
    return agents::CohortMember{i, cohort_spec.caveats[i], cohort_spec.allotments[i], cohort_tree.prove(i).value()};
  }
};

const Fixture& fixture() {
  static const Fixture f = Fixture::make();
  return f;
}

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
#include "sion/codec/testing/fuzzing.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const Fixture& f = fixture();
  codec::testing::CorpusWriter corpus(argv[1], "input");
  const auto write = [&](const std::vector<exec::Transaction>& txs) { corpus.write(codec::encode(Transactions(txs))); };
  std::uint64_t owner_nonce = 5;
  const auto signed_agent = [&](exec::TxBody body, std::uint64_t nonce) {
    return exec::make_signed(f.agent_keys, f.genesis.params, f.keyed, nonce, std::move(body), std::nullopt,
                             crypto::Hedging::deterministic)
        .value();
  };
  agents::Narrowing narrowing;
  narrowing.expiry_height = 50;
  narrowing.per_payment = 10;
  narrowing.period_cap = 100;
  narrowing.actions = agents::kAllActions;
  const std::vector<exec::Transaction> every_kind = {
      f.by_owner(exec::FundAgent{f.keyed, 500, {f.coin}}, owner_nonce++),
      signed_agent(exec::AgentPay{f.owner_id, 300}, 0),
      signed_agent(exec::SpawnAgent{0, agents::Keyless{f.owner_id}, open_caveats(), 1'000, {}}, 1),
      signed_agent(exec::OpenBatch{exec::Id{}, 4, 50, {}}, 2),
      f.by_owner(exec::MaterializeAgents{f.cohort, {f.member(2)}, {exec::coin_id(exec::Id{}, 0)}}, owner_nonce++),
      f.by_owner(exec::Restrict{f.keyed, agents::Narrow{narrowing}, {f.coin}}, owner_nonce++),
      f.members[0],
      f.members[1]};
  write(every_kind);
  write(f.members);
  for (const auto& tx : every_kind) write({tx});
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Fixture& f = fixture();
  return exec::fuzzing::run_pulse_of_kinds(data, size, f.state, f.genesis.params, f.height + 1,
                                           [](const state::Object& object) -> exec::Amount {
                                             if (object.type != static_cast<std::uint32_t>(exec::ObjectType::allotment))
                                               return 0;
                                             return agents::allotment_from(object).value().balance;
                                           });
}
#endif
