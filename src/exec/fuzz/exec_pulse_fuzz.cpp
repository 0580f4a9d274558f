// libFuzzer target: a Pulse's bytes as consensus carries them (docs/ledger.md,
// "Pulses"). The first byte picks the decoder: 0, a Pulse (decode_pulse with
// the chain's limits), then checked against a small genesis as a follower
// checks it; 1, a Pulse under tight limits (two transactions, a few KiB);
// 2, a header alone; 3, a body alone (decode_pulse_body). The codec is
// canonical, so whatever decodes must encode back to exactly the input, and
// its pulse_hash must be the hash of the header's own bytes; every refusal
// must be an invalid-input code with a reason, and a checked Pulse must be
// accepted or refused (invalid_value) naming the check. Built with
// SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus: the genesis
// header, a Pulse of three transfers, its header and body, and truncated
// and bit-flipped copies.

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/codec/testing/fuzzing.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/exec/tx_builder.hpp"

namespace {

using namespace sion;

// Two accounts signing with hybrid keys (fast to sign and verify), three
// coins between them, and the Pulse at height 1 of one transfer per coin.
struct Fixture {
  exec::Genesis genesis;
  exec::MemoryState state;
  exec::PulseHeader parent;
  exec::Pulse pulse;

  static Fixture make() {
    Fixture f;
    std::vector<crypto::SigningBundle> signers;
    for (const std::uint8_t fill : {std::uint8_t{3}, std::uint8_t{4}}) {
      crypto::KeySeed seed{};
      seed.fill(fill);
      signers.push_back(crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value());
    }
    f.genesis.params.chain_id = 5;
    f.genesis.accounts.push_back({signers[0].public_bundle(), {1'000'000, 7'000}});
    f.genesis.accounts.push_back({signers[1].public_bundle(), {500'000}});
    f.state = exec::MemoryState::from_writes(exec::genesis_writes(f.genesis)).value();
    f.parent = exec::genesis_header(f.state.root(), f.genesis.params);
    const exec::Id to = exec::account_id(signers[1].public_bundle());
    std::vector<exec::Transaction> txs;
    const std::pair<std::size_t, std::uint64_t> spends[] = {{0, 0}, {0, 1}, {1, 0}};  // (signer, nonce)
    for (std::uint32_t coin = 0; coin < 3; ++coin) {
      const auto [who, nonce] = spends[coin];
      const exec::Id input = exec::genesis_coin_id(coin);
      const exec::Output pay{to, 1'000 + coin};
      txs.push_back(exec::make_transfer(signers[who], f.genesis.params, nonce, {&input, 1}, {&pay, 1}, std::nullopt,
                                        crypto::Hedging::deterministic)
                        .value());
    }
    exec::Id proposer{};
    proposer.fill(0x77);
    auto proposed = exec::propose_pulse(exec::MemoryPreState(f.state), f.parent, txs, 1'767'225'600'000, proposer,
                                        f.genesis.params);
    if (!proposed || proposed->pulse.body.size() != txs.size()) std::abort();
    f.pulse = std::move(proposed->pulse);
    return f;
  }
};

const Fixture& fixture() {
  static const Fixture f = Fixture::make();
  return f;
}

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const Fixture& f = fixture();
  codec::testing::CorpusWriter corpus(argv[1], "input");
  const base::Bytes pulse = codec::encode(f.pulse);
  const base::Bytes header = codec::encode(f.pulse.header);
  const base::Bytes body = codec::encode(f.pulse.body);
  exec::Pulse genesis_pulse;
  genesis_pulse.header = f.parent;
  corpus.write(0, pulse);
  corpus.write(0, codec::encode(genesis_pulse));  // height 0: decodes, and its check fails at the height
  corpus.write(1, pulse);                         // three transactions: over the tight limit
  exec::Pulse one = f.pulse;
  one.body.resize(1);
  corpus.write(1, codec::encode(one));
  corpus.write(2, header);
  corpus.write(2, codec::encode(f.parent));
  corpus.write(3, body);
  // Near misses: cut inside the header, the list length and a transaction;
  // one byte past the end; a bit flipped in the height, the body length, a
  // signature.
  for (const std::size_t cut :
       {std::size_t{100}, exec::kPulseHeaderBytes, exec::kPulseHeaderBytes + 3, pulse.size() - 1}) {
    corpus.write(0, base::ByteView(pulse).first(cut));
  }
  base::Bytes longer = pulse;
  longer.push_back(0);
  corpus.write(0, longer);
  for (const std::size_t at : {std::size_t{0}, exec::kPulseHeaderBytes, pulse.size() - 10}) {
    base::Bytes flipped = pulse;
    flipped[at] ^= 0x01;
    corpus.write(0, flipped);
  }
  base::Bytes bad_header = header;
  bad_header[8 + 32 + 8 + 32 * 5] ^= 0x80;  // data.original_width
  corpus.write(2, bad_header);
  // The Pulse seed is one a follower accepts.
  const auto decoded = exec::decode_pulse(pulse, f.genesis.params.limits);
  return decoded && exec::check_pulse(exec::MemoryPreState(f.state), f.parent, *decoded, f.genesis.params) ? 0 : 1;
}

#else

namespace {

exec::PulseLimits tight_limits() {
  exec::PulseLimits limits;
  limits.max_transactions = 2;
  limits.max_bytes = 6'000;
  return limits;
}

// A refusal of bytes: one of the codec's invalid-input codes, with a reason.
void check_refusal(const base::Error& error) {
  if (error.reason.empty() || error.code > base::Errc::invalid_value) std::abort();
}

// The canonical codec: the value encodes back to exactly the input, and its
// pulse_hash is the hash of the header bytes at the input's start.
void check_pulse_bytes(const exec::Pulse& pulse, base::ByteView bytes) {
  const base::Bytes again = codec::encode(pulse);
  if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
  const base::ByteView header_bytes = bytes.first(exec::kPulseHeaderBytes);
  if (exec::pulse_hash(pulse.header) != commit::tagged_hash(commit::Domain::pulse_header, header_bytes)) std::abort();
  // The body after the header is a body the body decoder reads the same.
  auto body = exec::decode_pulse_body(bytes.subspan(exec::kPulseHeaderBytes), exec::PulseLimits{});
  if (!body || !(*body == static_cast<const std::vector<exec::Transaction>&>(pulse.body))) std::abort();
}

void fuzz_one(std::uint8_t kind, base::ByteView bytes) {
  const Fixture& f = fixture();
  if (kind == 0 || kind == 1) {
    const exec::PulseLimits limits = kind == 0 ? f.genesis.params.limits : tight_limits();
    auto pulse = exec::decode_pulse(bytes, limits);
    if (!pulse) return check_refusal(pulse.error());
    if (pulse->body.size() > limits.max_transactions) std::abort();
    check_pulse_bytes(*pulse, bytes);
    if (kind == 1) {
      // Within tight limits is within the chain's.
      auto wide = exec::decode_pulse(bytes, f.genesis.params.limits);
      if (!wide || !(*wide == *pulse)) std::abort();
      return;
    }
    // As a follower holding the genesis state checks it: the proposer's
    // Pulse passes; anything else is refused naming the check.
    auto checked = exec::check_pulse(exec::MemoryPreState(f.state), f.parent, *pulse, f.genesis.params);
    if (!checked) {
      if (*pulse == f.pulse || checked.error().code != base::Errc::invalid_value || checked.error().reason.empty()) {
        std::abort();
      }
      return;
    }
    // Execution decides every field but the time and the proposer: the same
    // body on the same parent passes only with the proposer's header.
    exec::PulseHeader decided = pulse->header;
    decided.time_ms = f.pulse.header.time_ms;
    decided.proposer = f.pulse.header.proposer;
    if (pulse->body == f.pulse.body && decided != f.pulse.header) std::abort();
  } else if (kind == 2) {
    auto header = codec::decode<exec::PulseHeader>(bytes);
    if (!header) return check_refusal(header.error());
    const base::Bytes again = codec::encode(*header);
    if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
    if (bytes.size() != exec::kPulseHeaderBytes) std::abort();
    if (exec::pulse_hash(*header) != commit::tagged_hash(commit::Domain::pulse_header, bytes)) std::abort();
  } else {
    auto body = exec::decode_pulse_body(bytes, f.genesis.params.limits);
    if (!body) return check_refusal(body.error());
    const codec::List<exec::Transaction, exec::kMaxPublishedTransactions> list(std::move(*body));
    const base::Bytes again = codec::encode(list);
    if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  codec::testing::dispatch_by_kind(data, size, 4, fuzz_one);
  return 0;
}

#endif
