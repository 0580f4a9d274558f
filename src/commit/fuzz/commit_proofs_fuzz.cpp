// libFuzzer target: log inclusion and consistency proofs and sum-tree proofs
// decoded from untrusted bytes and verified against fixed trees. The first
// byte picks the proof kind and hash function; the rest is the proof's
// encoding. Decoding must fail with a reason or give a value that re-encodes
// to the same bytes; verification must return, and accept only the proof
// the tree itself would give (a proof of a statement is unique). Built with
// SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus: valid proofs.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "sion/codec/codec.hpp"
#include "sion/codec/testing/fuzzing.hpp"
#include "sion/commit/merkle_log.hpp"
#include "sion/commit/sum_tree.hpp"

namespace {

using namespace sion;
using namespace sion::commit;

constexpr std::uint64_t kLeaves = 300;

enum Kind : std::uint8_t { inclusion_sha256, inclusion_sha3, consistency_sha256, consistency_sha3, sum, kKinds };

const MerkleLog& fixed_log(const TreeHasher& hasher) {
  static const auto make = [](const TreeHasher& h) {
    MerkleLog log(h);
    for (std::uint64_t i = 0; i < kLeaves; ++i) log.append(base::Bytes(i % 9, static_cast<std::uint8_t>(i)));
    return log;
  };
  static const MerkleLog sha256 = make(kLogSha256);
  static const MerkleLog sha3 = make(kLogSha3);
  return hasher.function == HashFunction::sha256 ? sha256 : sha3;
}

const std::vector<SumLeaf>& fixed_sum_leaves() {
  static const std::vector<SumLeaf> leaves = [] {
    std::vector<SumLeaf> all(kLeaves);
    for (std::uint64_t i = 0; i < kLeaves; ++i) {
      all[i].hash.fill(static_cast<std::uint8_t>(i));
      all[i].amount = i * i * 1000;
    }
    return all;
  }();
  return leaves;
}

const SumTree& fixed_sum_tree() {
  static const SumTree tree = SumTree::build(fixed_sum_leaves()).value();
  return tree;
}

const TreeHasher& hasher_of(std::uint8_t kind) {
  return kind == inclusion_sha256 || kind == consistency_sha256 ? kLogSha256 : kLogSha3;
}

// The tree head at `size`, or a made-up one (the full log's root under a
// size it never had), under which the log's own proofs do not exist and
// acceptance proves nothing: only `real` heads are checked for uniqueness.
[[maybe_unused]] TreeHead head_at(const MerkleLog& log, std::uint64_t size, bool& real) {
  const auto head = log.head(size);
  real = real && head.ok();
  return head ? *head : TreeHead{size, log.root()};
}

using codec::testing::decode_exactly;

[[maybe_unused]] void fuzz_one(std::uint8_t kind, base::ByteView bytes) {
  if (kind == sum) {
    SumProof proof;
    if (!decode_exactly(bytes, proof)) return;
    const SumLeaf& leaf = fixed_sum_leaves()[proof.leaf_index % kLeaves];
    if (verify_sum_proof(leaf, proof, fixed_sum_tree().root(), kLeaves) &&
        !(fixed_sum_tree().prove(proof.leaf_index).value() == proof)) {
      std::abort();
    }
    return;
  }
  const TreeHasher& hasher = hasher_of(kind);
  const MerkleLog& log = fixed_log(hasher);
  if (kind == inclusion_sha256 || kind == inclusion_sha3) {
    InclusionProof proof;
    if (!decode_exactly(bytes, proof)) return;
    const Hash leaf = log.leaf_hash(proof.leaf_index % kLeaves).value();
    bool real = true;
    const TreeHead head = head_at(log, proof.tree_size, real);
    if (verify_inclusion(hasher, leaf, proof, head) && real &&
        !(log.inclusion_proof(proof.leaf_index, proof.tree_size).value() == proof)) {
      std::abort();
    }
    return;
  }
  ConsistencyProof proof;
  if (!decode_exactly(bytes, proof)) return;
  bool real = true;
  const TreeHead first = head_at(log, proof.first_size, real);
  const TreeHead second = head_at(log, proof.second_size, real);
  if (verify_consistency(hasher, proof, first, second) && real &&
      !(log.consistency_proof(proof.first_size, proof.second_size).value() == proof)) {
    std::abort();
  }
}

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  codec::testing::CorpusWriter corpus(argv[1], "proof");
  const auto write = [&](std::uint8_t kind, const base::Bytes& bytes) { corpus.write(kind, bytes); };
  for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{64}, std::uint64_t{255}, kLeaves}) {
    for (std::uint8_t kind = 0; kind < kKinds; ++kind) {
      if (kind == sum) {
        write(kind, codec::encode(fixed_sum_tree().prove(n - 1).value()));
        continue;
      }
      const MerkleLog& log = fixed_log(hasher_of(kind));
      if (kind == inclusion_sha256 || kind == inclusion_sha3) {
        write(kind, codec::encode(log.inclusion_proof(n / 2, n).value()));
      } else {
        write(kind, codec::encode(log.consistency_proof((n + 1) / 2, n).value()));
      }
    }
  }
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  codec::testing::dispatch_by_kind(data, size, kKinds, fuzz_one);
  return 0;
}
#endif
