// libFuzzer target: a transaction's bytes as a node's mempool receives
// them, through the admission policy. The first byte is the kind of input
// (0: a transaction; others are ignored, kept for later inputs). A decoded
// transaction must be admitted, or refused with a named code and a
// non-empty reason, never crash. Built with SION_FUZZ_CORPUS_TOOL, the same
// file writes the seed corpus: signed transfers that pass and fail policy.

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/policy/mempool.hpp"

namespace {

using namespace sion;

ledger::ChainParams chain() {
  ledger::ChainParams params;
  params.chain_id = 5;
  return params;
}

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
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
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
