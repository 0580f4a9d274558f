// libFuzzer target: what reaches exec from outside. The first byte picks
// the decoder: 0, a transaction's bytes (codec), executed in a Pulse on a
// small state; 1, a genesis file's text (JSON); 2, a traced chunk (codec),
// replayed statelessly against the fixture's one transfer; 3, unused (key
// files are fuzz_wallet_key_file's); 4, a Pulse's published data (codec list of payloads), as
// read back from a repaired square. Decoding must fail with a
// reason or give a value that re-encodes to the same bytes; execution must
// give a receipt, never crash; a parsed genesis must serialize and parse back
// to itself. Built with SION_FUZZ_CORPUS_TOOL, the same file writes the seed
// corpus: signed transfers and genesis files.

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/exec/availability.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/trace.hpp"
#include "sion/exec/tx_builder.hpp"

namespace {

using namespace sion;

// One account with two coins, signing with hybrid keys (fast to sign), and
// one transfer of its first coin.
struct Fixture {
  crypto::SigningBundle signer;
  exec::Genesis genesis;
  exec::MemoryState state;
  std::vector<exec::Transaction> transfer;

  static Fixture make() {
    crypto::KeySeed seed{};
    seed.fill(3);
    auto signer = crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value();
    exec::Genesis genesis;
    genesis.params.chain_id = 5;
    genesis.accounts.push_back({signer.public_bundle(), {1'000'000, 7}});
    auto state = exec::MemoryState::from_writes(exec::genesis_writes(genesis)).value();
    const exec::Id coin = exec::genesis_coin_id(0);
    const exec::Output pay{exec::Id{}, 9};
    auto tx = exec::make_transfer(signer, genesis.params, 0, {&coin, 1}, {&pay, 1}, std::nullopt,
                                  crypto::Hedging::deterministic)
                  .value();
    return {std::move(signer), std::move(genesis), std::move(state), {std::move(tx)}};
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
  const auto write = [&](std::uint8_t kind, base::ByteView body) { corpus.write(kind, body); };
  const exec::Id me = exec::account_id(f.signer.public_bundle());
  const exec::Id coin = exec::genesis_coin_id(0);
  // A transfer from the genesis account, and one from an account not yet
  // in the state (step 2 takes the new-account branch).
  crypto::KeySeed other_seed{};
  other_seed.fill(4);
  const auto other = crypto::SigningBundle::from_seed(crypto::Profile::hybrid, other_seed);
  if (!other) return 1;
  for (const crypto::SigningBundle* signer : {&f.signer, &*other}) {
    const auto tx = exec::make_transfer(*signer, f.genesis.params, 0, {&coin, 1},
                                        std::vector<exec::Output>{{me, 5}, {exec::Id{}, 9}}, std::nullopt,
                                        crypto::Hedging::deterministic);
    if (!tx) return 1;
    write(0, codec::encode(*tx));
  }
  const std::string text = exec::genesis_to_json(f.genesis);
  write(1, base::as_bytes(text));
  const auto traced = exec::trace_pulse(f.state, f.transfer, f.genesis.params, 1);
  if (!traced || traced->chunks.size() != 1) return 1;
  write(2, codec::encode(traced->chunks[0]));
  write(4, exec::pulse_data(f.transfer));
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const base::ByteView body(data + 1, size - 1);
  const Fixture& f = fixture();
  if (data[0] == 0) {
    auto tx = codec::decode<exec::Transaction>(body);
    if (!tx) {
      if (tx.error().reason.empty()) std::abort();
      return 0;
    }
    if (codec::encode(*tx) != base::Bytes(body.begin(), body.end())) std::abort();
    auto outcome = exec::execute_pulse(f.state, {&*tx, 1}, f.genesis.params, 1, exec::PulseOptions{});
    if (!outcome || outcome->receipts.size() != 1) std::abort();
  } else if (data[0] == 1) {
    const std::string_view text(reinterpret_cast<const char*>(body.data()), body.size());
    auto genesis = exec::parse_genesis(text);
    if (!genesis) {
      if (genesis.error().reason.empty()) std::abort();
      return 0;
    }
    auto again = exec::parse_genesis(exec::genesis_to_json(*genesis));
    if (!again || !(*again == *genesis)) std::abort();
    (void)exec::genesis_writes(*genesis);
  } else if (data[0] == 2) {
    auto chunk = exec::decode_traced_chunk(body);
    if (!chunk) {
      if (chunk.error().reason.empty()) std::abort();
      return 0;
    }
    // From the point the chunk claims, so that the witness is what is tested.
    const exec::ReplayPoint from{1, chunk->first_tx, chunk->witness.pre_root, chunk->usage_before};
    auto root = exec::replay_chunk(from, *chunk, f.transfer, f.genesis.params, false);
    if (!root && root.error().reason.empty()) std::abort();
  } else if (data[0] == 4) {
    auto payloads = exec::decode_pulse_data(body);
    if (!payloads) {
      if (payloads.error().reason.empty()) std::abort();
      return 0;
    }
    std::vector<exec::Transaction> txs(payloads->size());
    for (std::size_t i = 0; i < txs.size(); ++i) txs[i].payload = (*payloads)[i];
    if (exec::pulse_data(txs) != base::Bytes(body.begin(), body.end())) std::abort();
  }
  return 0;
}
#endif
