#pragma once
// A small chain for the ChainStore tests and the crash writer: a genesis of
// a few hybrid-key accounts (fast to sign), each holding one coin, and
// transfers round-robin between them, one per Pulse. Deterministic: the
// same heights give the same Pulses in every process.

#include <cstdint>
#include <span>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/node/chain_store.hpp"

namespace sion::node::testing {

struct ChainFixture {
  static constexpr std::size_t kAccounts = 4;

  exec::ChainParams params;
  exec::Genesis genesis;
  std::vector<crypto::SigningBundle> signers;
  std::vector<state::ObjectWrite> genesis_writes;
  commit::Hash genesis_root{};
  exec::Id proposer{};
  // Per account: its next nonce and the coin its next transfer spends.
  std::vector<std::uint64_t> nonces;
  std::vector<exec::Id> coins;

  ChainFixture() {
    params.chain_id = 7;
    genesis.params = params;
    for (std::size_t i = 0; i < kAccounts; ++i) {
      crypto::KeySeed seed{};
      seed.fill(static_cast<std::uint8_t>(0x40 + i));
      signers.push_back(crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value());
      genesis.accounts.push_back({signers.back().public_bundle(), {1'000'000'000'000'000}});
      nonces.push_back(0);
      coins.push_back(exec::genesis_coin_id(static_cast<std::uint32_t>(i)));
    }
    genesis_writes = exec::genesis_writes(genesis);
    genesis_root = exec::genesis_state_root(genesis).value();
    proposer = exec::account_id(signers[0].public_bundle());
  }

  exec::Id account(std::size_t i) const { return exec::account_id(signers[i].public_bundle()); }

  // The transfer the account height % kAccounts makes next: 1,000 to the
  // following account, the change back to itself at output 1.
  exec::Transaction transfer(std::uint64_t height) const {
    const std::size_t from = height % kAccounts;
    const exec::Output output{account((from + 1) % kAccounts), 1000};
    return exec::make_transfer(signers[from], params, nonces[from], std::span(&coins[from], 1), std::span(&output, 1),
                               std::nullopt, crypto::Hedging::deterministic)
        .value();
  }

  // Follows a committed body: each sender's nonce and change coin move on.
  void observe(std::span<const exec::Transaction> body) {
    for (const exec::Transaction& tx : body) {
      for (std::size_t i = 0; i < kAccounts; ++i) {
        if (tx.payload.sender != account(i)) continue;
        nonces[i] = tx.payload.nonce + 1;
        coins[i] = exec::coin_id(exec::tx_id(tx.payload), 1);
      }
    }
  }

  // Proposes a Pulse of `txs` on the store's head and commits it.
  base::Result<exec::ProposedPulse> commit(ChainStore& store, std::span<const exec::Transaction> txs) {
    const exec::PulseHeader parent = store.head();
    SION_TRY(auto proposed, exec::propose_pulse(exec::StorePreState(store.state()), parent, txs,
                                                1'700'000'000'000 + parent.height + 1, proposer, params));
    SION_TRY_STATUS(store.commit(proposed.pulse, proposed.outcome));
    observe(proposed.pulse.body);
    return proposed;
  }
};

}  // namespace sion::node::testing
