#pragma once
// Shared pieces of the exec tests: deterministic signers and a small
// in-memory world with funded coins.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sion/base/testing/temp_dir.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/ledger/state_view.hpp"

namespace sion::exec::testing {

// Hybrid (Ed25519 + ML-DSA-44) signs in well under a millisecond; tests
// where the profile matters ask for dual.
inline crypto::SigningBundle signer(std::uint8_t seed_byte, crypto::Profile profile = crypto::Profile::hybrid) {
  crypto::KeySeed seed{};
  seed.fill(seed_byte);
  return crypto::SigningBundle::from_seed(profile, seed).value();
}

inline Id id_of(const crypto::SigningBundle& s) { return account_id(s.public_bundle()); }

inline ChainParams test_params() {
  ChainParams params;
  params.chain_id = 7;
  params.fees = {1, 1};
  return params;
}

// `tx` with its payload signed again by `s` (and carrying `s`'s keys).
inline Transaction sign_as(const crypto::SigningBundle& s, const Transaction& tx) {
  return sign_transaction(s, tx.payload, crypto::Hedging::deterministic).value();
}

// A pre-state in memory; coins come from a made-up genesis transaction.
struct World {
  MemoryState state;
  ChainParams params = test_params();
  std::uint64_t height = 0;  // of the last Pulse run()
  Id genesis_tx = commit::tagged_hash(commit::Domain::transaction, base::as_bytes("test genesis"));
  std::uint32_t next = 0;

  Id fund(const Id& owner, Amount amount) {
    const Id id = coin_id(genesis_tx, next++);
    put(id, to_object(Coin{owner, amount}, 1));
    return id;
  }
  void open_account(const crypto::SigningBundle& s, std::uint64_t nonce = 0, std::uint64_t version = 1) {
    put(id_of(s), to_object(Account{s.id(), nonce}, version));
  }
  void put(const Id& id, state::Object object) {
    const state::ObjectWrite write{id, std::move(object)};
    ASSERT_TRUE(state.apply({&write, 1}).ok());
  }

  // A signed transfer paying exactly the required fee.
  Transaction transfer(const crypto::SigningBundle& from, std::uint64_t nonce, std::vector<Id> inputs,
                       std::vector<Output> outputs, std::optional<Amount> fee = std::nullopt) const {
    return make_transfer(from, params, nonce, inputs, outputs, fee, crypto::Hedging::deterministic).value();
  }

  // Executes and commits one Pulse, at the next height.
  PulseOutcome run(const std::vector<Transaction>& txs, const PulseOptions& options = {}) {
    auto outcome = execute_pulse(state, txs, params, ++height, options);
    EXPECT_TRUE(outcome.ok()) << outcome.error().to_string();
    EXPECT_TRUE(commit_pulse(state, *outcome).ok());
    return std::move(outcome).value();
  }

  std::optional<Coin> coin(const Id& id) const {
    const auto it = state.objects().find(id);
    if (it == state.objects().end()) return std::nullopt;
    return coin_from(it->second).value();
  }
  std::optional<Account> account(const crypto::SigningBundle& s) const {
    const auto it = state.objects().find(id_of(s));
    if (it == state.objects().end()) return std::nullopt;
    return account_from(it->second).value();
  }
  // All coins' value: with the fees burned, constant across execution.
  Amount total_value() const {
    Amount total = 0;
    for (const auto& [id, object] : state.objects()) {
      if (object.type == static_cast<std::uint32_t>(ObjectType::coin)) total += coin_from(object).value().amount;
    }
    return total;
  }
};

using base::testing::TempDir;

// The write set as a map, for "exactly these changed" checks.
inline std::map<Id, std::optional<state::Object>> changes(const PulseOutcome& outcome) {
  std::map<Id, std::optional<state::Object>> out;
  for (const auto& write : outcome.writes) out.emplace(write.id, write.object);
  return out;
}

}  // namespace sion::exec::testing
