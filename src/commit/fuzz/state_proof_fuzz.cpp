// libFuzzer target: state-tree proofs (docs/state-tree.md) from untrusted
// bytes. A case holds a root, a claim and a proof, and claims with a
// multi-proof. Decoding must fail with a reason or give a value that
// re-encodes to the same bytes; verification must return, and a proof that
// verifies one claim about a key must not also verify the opposite claim.
// Built with SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus:
// valid proofs and multi-proofs from small trees.

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/commit/smt.hpp"
#include "sion/commit/smt_partial.hpp"

namespace {

using namespace sion;
using commit::Hash;

struct FuzzClaim {
  Hash key{};
  std::optional<Hash> value_hash;
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("key", &FuzzClaim::key), codec::field("value_hash", &FuzzClaim::value_hash)};
  }
};

struct ProofCase {
  Hash root{};
  FuzzClaim claim;
  codec::VarBytes<16384> proof;  // an encoded StateProof
  codec::List<FuzzClaim, 64> claims;
  // An encoded StateMultiProof: up to 1 MiB, since keys that share long
  // prefixes pay a surcharge for their empty siblings (docs/state-tree.md).
  codec::VarBytes<(1u << 20)> multiproof;
  static constexpr std::string_view codec_name = "ProofCase";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("root", &ProofCase::root), codec::field("claim", &ProofCase::claim),
                      codec::field("proof", &ProofCase::proof), codec::field("claims", &ProofCase::claims),
                      codec::field("multiproof", &ProofCase::multiproof)};
  }
};

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::filesystem::create_directories(argv[1]);
  std::mt19937_64 rng(7);
  const auto random_hash = [&rng] {
    Hash h;
    for (auto& b : h) b = static_cast<std::uint8_t>(rng());
    return h;
  };
  int written = 0;
  for (const std::size_t size : std::vector<std::size_t>{0, 1, 2, 5, 40}) {
    std::vector<commit::StateEntry> entries;
    for (std::size_t i = 0; i < size; ++i) {
      Hash key = random_hash();
      if (i % 2 == 1) {  // a long shared prefix with the previous key
        key = entries.back().key;
        key[31] ^= 1;
      }
      entries.push_back({key, random_hash()});
    }
    const auto tree = commit::SparseMerkleTree::from_entries(entries).value();
    std::vector<Hash> keys;
    for (const auto& e : entries) keys.push_back(e.key);
    keys.push_back(random_hash());
    for (std::size_t k = 0; k < keys.size() && k < 4; ++k) {
      ProofCase c;
      c.root = tree.root_hash();
      c.claim = {keys[k], tree.get(keys[k])};
      c.proof = codec::encode(tree.prove(keys[k]));
      std::vector<Hash> sorted = keys;
      std::sort(sorted.begin(), sorted.end());
      for (const Hash& key : sorted) c.claims.push_back({key, tree.get(key)});
      c.multiproof = codec::encode(tree.prove_many(sorted));
      const auto bytes = codec::encode(c);
      if (!codec::decode<ProofCase>(bytes).ok()) return 1;
      std::ofstream(std::filesystem::path(argv[1]) / ("proof-" + std::to_string(written++)), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
  }
  return 0;
}
#else
namespace {

// A different claim about the same key.
std::optional<Hash> opposite(const std::optional<Hash>& value) {
  if (!value) return Hash{};
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto decoded = codec::decode<ProofCase>(base::ByteView(data, size));
  if (!decoded) {
    if (decoded.error().reason.empty()) std::abort();
    return 0;
  }
  const auto again = codec::encode(*decoded);
  if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
  const ProofCase& c = *decoded;

  if (auto proof = commit::decode_state_proof(c.proof); proof) {
    const auto bytes = codec::encode(*proof);
    if (bytes != static_cast<const base::Bytes&>(c.proof)) std::abort();
    if (commit::verify_state_proof(c.root, c.claim.key, c.claim.value_hash, *proof) &&
        commit::verify_state_proof(c.root, c.claim.key, opposite(c.claim.value_hash), *proof)) {
      std::abort();
    }
  } else if (proof.error().reason.empty()) {
    std::abort();
  }

  if (auto multi = commit::decode_state_multiproof(c.multiproof); multi) {
    std::vector<commit::StateClaim> claims;
    for (const auto& claim : c.claims) claims.push_back({claim.key, claim.value_hash});
    if (commit::verify_state_multiproof(c.root, claims, *multi) && !claims.empty()) {
      claims[0].value_hash = opposite(claims[0].value_hash);
      if (commit::verify_state_multiproof(c.root, claims, *multi)) std::abort();
    }
    // The partial tree of a stateless verifier: built from the same proof
    // (or refused with a reason), then every proven key flipped between
    // present and absent; apply() answers or refuses, never crashes.
    std::vector<Hash> keys;
    for (const auto& claim : c.claims) keys.push_back(claim.key);
    if (auto partial = commit::PartialStateTree::from_multiproof(c.root, keys, *multi); partial) {
      std::vector<commit::StateChange> changes;
      for (const Hash& key : keys) {
        auto now = partial->get(key);
        if (!now) std::abort();  // a key of the proven set
        changes.push_back({key, opposite(*now)});
      }
      if (auto root = partial->apply(changes); !root && root.error().reason.empty()) std::abort();
    } else if (partial.error().reason.empty()) {
      std::abort();
    }
  } else if (multi.error().reason.empty()) {
    std::abort();
  }
  return 0;
}
#endif
