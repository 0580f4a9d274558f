// libFuzzer target: a transaction's bytes as a node's mempool receives
// them, through the admission policy; and a sequence of mempool operations
// through a TxPool (docs/mempool.md). The first byte is the kind of input
// (0: a transaction; 1: pool operations; others are ignored, kept for later
// inputs). A decoded transaction must be admitted, or refused with a named
// code and a non-empty reason, never crash. Pool operations must keep the
// pool within its bounds, select only what the state machine accepts in
// that order, and give the same answers when replayed. Built with
// SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus: signed
// transfers that pass and fail policy, and a few operation sequences.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <variant>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/policy/kind_rules.hpp"
#include "sion/policy/mempool.hpp"
#include "sion/policy/tx_pool.hpp"

namespace {

using namespace sion;

ledger::ChainParams chain() {
  ledger::ChainParams params;
  params.chain_id = 5;
  return params;
}

#ifndef SION_FUZZ_CORPUS_TOOL
// Pool operations, three bytes each (op, a, b), over three senders with
// four coins each. Signatures are not the pool's business, so transactions
// carry none.
constexpr std::size_t kSenders = 3;
constexpr std::uint8_t kCoins = 4;

struct Sender {
  crypto::KeyBundle keys;
  crypto::Hash256 keys_id{};
  ledger::Id account{};
};

const std::vector<Sender>& senders() {
  static const std::vector<Sender> all = [] {
    std::vector<Sender> out;
    for (std::size_t i = 0; i < kSenders; ++i) {
      crypto::KeySeed seed{};
      seed.fill(static_cast<std::uint8_t>(i + 1));
      const auto signer = crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed);
      if (!signer) std::abort();
      out.push_back({signer->public_bundle(), signer->id(), ledger::account_id(signer->public_bundle())});
    }
    return out;
  }();
  return all;
}

ledger::Id coin_of(std::size_t sender, std::uint8_t index) {
  ledger::Id id{};
  id.fill(static_cast<std::uint8_t>(0x80 + sender * kCoins + index));
  return id;
}

void apply_one(ledger::MemoryState& state, const ledger::Id& id, std::optional<state::Object> object) {
  const std::vector<state::ObjectWrite> writes = {{id, std::move(object)}};
  if (!state.apply(writes)) std::abort();
}

// What one run of the operations answered, to compare two runs.
struct Log {
  std::vector<std::uint8_t> codes;
  std::vector<ledger::Id> ids;
  bool operator==(const Log&) const = default;
};

// What the pool should hold, kept apart from it: each admitted transaction
// until a report says it left.
struct Pooled {
  ledger::Id sender{};
  std::uint64_t nonce = 0;
  std::uint64_t bytes = 0;
};
using Model = std::map<ledger::Id, Pooled, commit::HashOrder>;

std::uint64_t account_nonce(const ledger::MemoryState& state, const ledger::Id& sender) {
  const auto object = state.get(sender);
  if (!object) std::abort();
  return *object ? ledger::account_from(**object).value().nonce : 0;
}

// The pool holds exactly the model's transactions and bytes, and a
// transaction is pending exactly when every nonce from its account's up to
// its own is pooled.
void check_model(const policy::TxPool& pool, const Model& model, const ledger::MemoryState& state) {
  if (pool.size() != model.size()) std::abort();
  std::uint64_t bytes = 0;
  std::set<std::pair<ledger::Id, std::uint64_t>> nonces;
  for (const auto& [id, pooled] : model) {
    bytes += pooled.bytes;
    nonces.emplace(pooled.sender, pooled.nonce);
  }
  if (pool.bytes() != bytes) std::abort();
  for (const auto& [id, pooled] : model) {
    bool pending = true;
    for (std::uint64_t n = account_nonce(state, pooled.sender); n < pooled.nonce && pending; ++n) {
      pending = nonces.contains({pooled.sender, n});
    }
    if (pool.status(id) != (pending ? policy::PoolStatus::pending : policy::PoolStatus::held)) std::abort();
  }
}

void log_removed(Log& log, Model& model, const policy::TxPool& pool, const std::vector<policy::Removed>& removed) {
  for (const auto& gone : removed) {
    if (pool.status(gone.tx_id) || model.erase(gone.tx_id) != 1) std::abort();
    if (policy::removal_reason_name(gone.reason) == "unknown_removal_reason") std::abort();
    log.codes.push_back(static_cast<std::uint8_t>(gone.reason));
    log.ids.push_back(gone.tx_id);
  }
}

// The selection is what the state machine accepts: per sender, nonces from
// the account's, consecutive; all pending; within the limits.
void check_selection(const policy::TxPool& pool, const policy::Selection& selection, const ledger::PulseLimits& limits,
                     const ledger::MemoryState& state) {
  if (selection.ids.size() != selection.transactions.size()) std::abort();
  if (selection.usage.transactions != selection.ids.size() || !ledger::PulseUsage{}.fits(selection.usage, limits)) {
    std::abort();
  }
  std::vector<std::pair<ledger::Id, std::uint64_t>> next;
  for (std::size_t i = 0; i < selection.ids.size(); ++i) {
    const exec::TxPayload& payload = selection.transactions[i]->payload;
    if (exec::tx_id(payload) != selection.ids[i] || pool.status(selection.ids[i]) != policy::PoolStatus::pending) {
      std::abort();
    }
    auto found =
        std::find_if(next.begin(), next.end(), [&](const auto& entry) { return entry.first == payload.sender; });
    if (found == next.end())
      found = next.insert(next.end(), std::pair{payload.sender, account_nonce(state, payload.sender)});
    if (payload.nonce != found->second) std::abort();
    ++found->second;
  }
}

Log run_pool(base::ByteView ops) {
  Log log;
  Model model;
  ledger::MemoryState state;
  for (std::size_t s = 0; s < kSenders; ++s) {
    for (std::uint8_t c = 0; c < kCoins; ++c) {
      apply_one(state, coin_of(s, c), ledger::to_object(ledger::Coin{senders()[s].account, 1'000'000'000}, 1));
    }
  }
  policy::PoolOptions options;
  options.max_transactions = 6;
  options.max_bytes = 6 * 4000;
  options.max_per_sender = 4;
  options.max_nonce_gap = 3;
  options.max_held_per_sender = 2;
  options.expiry_ms = 1000;
  const ledger::ChainParams params = chain();
  policy::TxPool pool(params, policy::MempoolPolicy{}, options);
  policy::PoolTime now = 0;
  for (std::size_t at = 0; at + 3 <= ops.size() && at < 3 * 64; at += 3) {
    const auto op = static_cast<std::uint8_t>(ops[at] % 4);
    const std::uint8_t a = ops[at + 1];
    const std::uint8_t b = ops[at + 2];
    if (op == 0) {
      const std::size_t who = a % kSenders;
      exec::Transaction tx;
      tx.payload.chain_id = params.chain_id;
      tx.payload.sender = senders()[who].account;
      tx.payload.nonce = (a / kSenders) % 6;
      const auto coin = static_cast<std::uint8_t>(b % (kCoins + 1));
      ledger::Transfer transfer;
      transfer.inputs.push_back(coin < kCoins ? coin_of(who, coin) : ledger::Id{});
      transfer.outputs.push_back({ledger::Id{}, 1000});
      tx.payload.body = std::move(transfer);
      tx.keys = senders()[who].keys;
      tx.payload.fee = exec::required_fee(tx, params.fees).value() + std::uint64_t{b} / (kCoins + 1u) * 97;
      const auto admission = pool.check(tx, state);
      if (!admission) std::abort();
      const policy::PolicyVerdict& verdict = admission->verdict;
      if (verdict.ok() != verdict.reason.empty()) std::abort();
      if (policy::policy_code_name(verdict.code) == "unknown_policy_code") std::abort();
      log.codes.push_back(static_cast<std::uint8_t>(verdict.code));
      if (!verdict) continue;
      const auto insertion = pool.insert(tx, admission->facts, state, now);
      // Nothing changed between the two calls: the same verdict.
      if (!insertion || insertion->verdict.code != verdict.code) std::abort();
      log_removed(log, model, pool, insertion->removed);
      model.emplace(admission->facts.tx_id, Pooled{tx.payload.sender, tx.payload.nonce, admission->facts.usage.bytes});
    } else if (op == 1) {
      ledger::PulseLimits limits = params.limits;
      limits.max_transactions = static_cast<std::uint32_t>(a % 5 + 1);
      const policy::Selection selection = pool.select(limits);
      check_selection(pool, selection, limits, state);
      log.ids.insert(log.ids.end(), selection.ids.begin(), selection.ids.end());
    } else if (op == 2) {
      now += std::uint64_t{a} * 16;
      log_removed(log, model, pool, pool.expire(now));
    } else {
      // A Pulse of the first few selected commits: each sender's nonce
      // moves past it and its coins are spent (what execution would do to
      // them, without outputs, which the pool never reads).
      ledger::PulseLimits limits = params.limits;
      limits.max_transactions = static_cast<std::uint32_t>(a % 4 + 1);
      const policy::Selection selection = pool.select(limits);
      check_selection(pool, selection, limits, state);
      for (const auto& tx : selection.transactions) {
        for (const Sender& sender : senders()) {
          if (sender.account != tx->payload.sender) continue;
          const ledger::Account account{sender.keys_id, tx->payload.nonce + 1};
          apply_one(state, sender.account, ledger::to_object(account, account.nonce));
        }
        const auto spent = std::visit([](const auto& body) { return policy::spent_coins(body); }, tx->payload.body);
        for (const ledger::Id& input : spent) {
          if (state.get(input).value()) apply_one(state, input, std::nullopt);
        }
      }
      const auto removed = pool.on_pulse_committed(selection.ids, state);
      if (!removed) std::abort();
      for (const ledger::Id& id : selection.ids) {
        if (pool.status(id)) std::abort();
      }
      log_removed(log, model, pool, *removed);
    }
    if (pool.size() > options.max_transactions || pool.bytes() > options.max_bytes) std::abort();
    check_model(pool, model, state);
  }
  return log;
}
#endif

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
#include "sion/codec/testing/fuzzing.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  codec::testing::CorpusWriter corpus(argv[1], "input");
  crypto::KeySeed seed{};
  seed.fill(3);
  const auto signer = crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed);
  if (!signer) return 1;
  const ledger::Id coin{};
  // Admitted; dust; fee below the floor.
  const std::vector<std::pair<ledger::Amount, std::optional<ledger::Amount>>> shapes = {
      {1000, 1'000'000}, {5, 1'000'000}, {1000, std::nullopt}};
  for (const auto& [amount, fee] : shapes) {
    const std::vector<ledger::Output> outputs = {{ledger::Id{}, amount}};
    const auto tx = exec::make_transfer(*signer, chain(), 0, {&coin, 1}, outputs, fee, crypto::Hedging::deterministic);
    if (!tx) return 1;
    corpus.write(0, codec::encode(*tx));
  }
  // Pool operations: submissions across senders and nonces, selections,
  // expiry and commits.
  const std::vector<std::vector<std::uint8_t>> sequences = {
      {0, 0, 0, 0, 1, 5, 0, 2, 10, 1, 0, 0},
      {0, 3, 1, 0, 6, 2, 0, 0, 0, 3, 2, 0, 0, 9, 3, 1, 4, 0},
      {0, 0, 20, 0, 0, 45, 0, 1, 0, 0, 2, 0, 2, 200, 0, 0, 0, 0, 3, 1, 0},
      {0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 1, 0, 4, 2, 0, 5, 3, 0, 6, 1, 3, 3, 0, 1, 4, 0}};
  for (const auto& ops : sequences) corpus.write(1, ops);
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size != 0 && data[0] == 1) {
    // The same operations give the same answers.
    const base::ByteView ops(data + 1, size - 1);
    if (!(run_pool(ops) == run_pool(ops))) std::abort();
    return 0;
  }
  if (size == 0 || data[0] != 0) return 0;
  const base::ByteView body(data + 1, size - 1);
  auto tx = codec::decode<exec::Transaction>(body);
  if (!tx) {
    if (tx.error().reason.empty()) std::abort();
    return 0;
  }
  policy::MempoolPolicy strict;
  strict.min_fee_per_byte = 2;
  for (const policy::MempoolPolicy& rules : {policy::MempoolPolicy{}, strict}) {
    const policy::PolicyVerdict verdict = policy::check_mempool_policy(*tx, chain(), rules);
    if (verdict.ok() != verdict.reason.empty()) std::abort();
    if (!verdict.ok() && policy::policy_code_name(verdict.code) == "unknown_policy_code") std::abort();
    if (verdict.to_status().ok() != verdict.ok()) std::abort();
  }
  return 0;
}
#endif
