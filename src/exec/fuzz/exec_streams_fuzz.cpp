// libFuzzer target: the kinds of payment streams (docs/streams.md) from
// outside. The input is a codec list of up to 8 transactions, decoded and
// executed as one Pulse on a state that holds two streams of one payer to
// one payee: one past its expiry, one open with 20 payments settled.
// Decoding must fail with a reason or give a value that re-encodes to the
// same bytes; execution must give one receipt per transaction, never crash;
// and value is conserved: the coins and the deposits after the Pulse plus
// its fees equal what was there before.
// Built with SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus:
// one Pulse of every stream kind, and each alone.

#include <cstdlib>
#include <vector>

#include "pulse_of_kinds.hpp"
#include "sion/codec/codec.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/streams/payee.hpp"
#include "sion/streams/payer.hpp"

namespace {

using namespace sion;
using exec::fuzzing::Transactions;

crypto::SigningBundle hybrid(std::uint8_t byte) {
  crypto::KeySeed seed{};
  seed.fill(byte);
  return crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value();
}

struct Fixture {
  crypto::SigningBundle payer_keys = hybrid(3);
  crypto::SigningBundle payee_keys = hybrid(4);
  exec::Genesis genesis;
  exec::MemoryState state;
  std::uint64_t height = 0;
  exec::Id payer{}, payee{};
  exec::Id coin{};  // the payer's coin
  exec::Id expired{}, open{};
  std::vector<streams::Payment> payments;
  streams::Checkpoints checkpoints;
  std::uint64_t payer_nonce = 0, payee_nonce = 0;

  static exec::Transaction sign(const crypto::SigningBundle& keys, const exec::ChainParams& params, std::uint64_t nonce,
                                exec::TxBody body) {
    return exec::make_signed(keys, params, exec::account_id(keys.public_bundle()), nonce, std::move(body), std::nullopt,
                             crypto::Hedging::deterministic)
        .value();
  }
  exec::Id run(const exec::Transaction& tx) {
    const auto outcome = exec::execute_pulse(state, {&tx, 1}, genesis.params, ++height).value();
    if (outcome.receipts[0].status != exec::TxStatus::success) std::abort();
    (void)exec::commit_pulse(state, outcome).value();
    return exec::tx_id(tx.payload);
  }
  static Fixture make() {
    Fixture f;
    f.genesis.params.chain_id = 5;
    f.genesis.accounts.push_back({f.payer_keys.public_bundle(), {1'000'000'000}});
    f.state = exec::MemoryState::from_writes(exec::genesis_writes(f.genesis)).value();
    f.payer = exec::account_id(f.payer_keys.public_bundle());
    f.payee = exec::account_id(f.payee_keys.public_bundle());
    f.coin = exec::genesis_coin_id(0);
    auto chain = streams::StreamPayer::create(exec::Id{{0x5e}}, 64).value();
    f.checkpoints = chain.checkpoints();
    const auto open_body = [&](std::uint64_t expiry) {
      return exec::OpenStream{f.payee, 1'000, 64, chain.anchor(), chain.checkpoint_root(), 40'000, expiry, {f.coin}};
    };
    for (int i = 0; i < 64; ++i) f.payments.push_back(chain.next().value());
    exec::Id opened = f.run(sign(f.payer_keys, f.genesis.params, f.payer_nonce++, open_body(2)));
    f.expired = streams::stream_id(opened);
    f.coin = exec::coin_id(opened, 0);
    opened = f.run(sign(f.payer_keys, f.genesis.params, f.payer_nonce++, open_body(100)));
    f.open = streams::stream_id(opened);
    f.coin = exec::coin_id(opened, 0);
    f.run(sign(f.payee_keys, f.genesis.params, f.payee_nonce++,
               exec::SettleStream{f.open, 0, 20, f.payments[19].element, std::nullopt}));
    return f;
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
  // By checkpoint from x[32] (c = 8: checkpoint 4) to 37.
  const auto path = streams::checkpoint_path(f.checkpoints, 4).value();
  const exec::SettleStream by_checkpoint{f.open, 32, 37, f.payments[36].element,
                                         streams::CheckpointPath(path.begin(), path.end())};
  const std::vector<exec::Transaction> every_kind = {
      Fixture::sign(f.payer_keys, f.genesis.params, f.payer_nonce,
                    exec::OpenStream{f.payee, 10, 64, exec::Id{}, exec::Id{}, 640, 50, {f.coin}}),
      Fixture::sign(f.payee_keys, f.genesis.params, f.payee_nonce,
                    exec::SettleStream{f.open, 20, 30, f.payments[29].element, std::nullopt}),
      Fixture::sign(f.payee_keys, f.genesis.params, f.payee_nonce + 1, by_checkpoint),
      Fixture::sign(f.payer_keys, f.genesis.params, f.payer_nonce + 1, exec::CloseStream{f.expired}),
      Fixture::sign(f.payer_keys, f.genesis.params, f.payer_nonce + 2, exec::CloseStream{f.open})};
  write(every_kind);
  for (const auto& tx : every_kind) write({tx});
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Fixture& f = fixture();
  return exec::fuzzing::run_pulse_of_kinds(data, size, f.state, f.genesis.params, f.height + 1,
                                           [](const state::Object& object) -> exec::Amount {
                                             if (object.type != static_cast<std::uint32_t>(exec::ObjectType::stream))
                                               return 0;
                                             return streams::stream_from(object).value().deposit;
                                           });
}
#endif
