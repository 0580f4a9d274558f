// Group `transparency`: the RFC 6962 Merkle log (src/commit/merkle_log.hpp).
// The rows without a suffix use SHA-256, the RFC's own hash; "(SHA3-256)"
// rows the same log on SHA3-256. Targets: docs/performance.md,
// "transparency".

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <vector>

#include "groups.hpp"
#include "sion/commit/merkle_log.hpp"

namespace sion::bench::groups {
namespace {

using commit::Hash;
using commit::MerkleLog;
using commit::TreeHasher;

constexpr std::uint64_t kProofLeaves = 1'000'000;
// Proofs are asked for at indices and sizes spread over the log: a
// multiplicative stride visits them in no particular order.
constexpr std::uint64_t kStride = 0x9E3779B97F4A7C15ULL;
constexpr std::size_t kVerifySamples = 64;

std::string_view suffix(const TreeHasher& hasher) {
  return hasher.function == commit::HashFunction::sha256 ? "" : " (SHA3-256)";
}

// Entries of 64 bytes (an authorization's digest and signer), each distinct.
void fill_entry(std::array<std::uint8_t, 64>& entry, std::uint64_t i) {
  for (std::size_t b = 0; b < 8; ++b) entry[b] = static_cast<std::uint8_t>(i >> (8 * b));
}

void report_append(Context& context, const TreeHasher& hasher) {
  const std::uint64_t leaves = context.quick() ? 100'000 : kProofLeaves;
  std::array<std::uint8_t, 64> entry{};
  entry.fill(0x5a);
  Stats stats = time_each_call(
      [&] {
        MerkleLog log(hasher);
        log.reserve(leaves);
        for (std::uint64_t i = 0; i < leaves; ++i) {
          fill_entry(entry, i);
          log.append(entry);
        }
        do_not_optimize(log.root());
      },
      context.measure_options());
  stats.median /= static_cast<double>(leaves);
  stats.p95 /= static_cast<double>(leaves);
  context.report_time(fmt::format("append{}", suffix(hasher)), stats, TimeUnit::ns,
                      fmt::format("{:.2f} M leaves/s; {} appends of 64-byte entries to an empty "
                                  "log, leaf hash and completed subtrees included{}",
                                  1e-6 / stats.median, leaves, context.quick() ? " (--quick: 100000)" : ""));
}

MerkleLog log_of(const TreeHasher& hasher, std::uint64_t leaves) {
  std::vector<Hash> hashes(leaves);
  std::array<std::uint8_t, 64> entry{};
  for (std::uint64_t i = 0; i < leaves; ++i) {
    fill_entry(entry, i);
    hashes[i] = hasher.leaf(entry);
  }
  MerkleLog log(hasher);
  log.append_leaf_hashes(hashes);
  return log;
}

base::Status report_proofs(Context& context, const TreeHasher& hasher) {
  const MerkleLog log = log_of(hasher, kProofLeaves);
  const MeasureOptions options = context.measure_options();
  const std::string_view name = suffix(hasher);
  const commit::TreeHead head = log.head();

  std::uint64_t counter = 0;
  const Stats inclusion = time_per_call(
      [&] {
        auto proof = log.inclusion_proof((++counter * kStride) % kProofLeaves, kProofLeaves);
        do_not_optimize(proof);
      },
      options);
  context.report_time(fmt::format("inclusion proof, {} leaves{}", kProofLeaves, name), inclusion, TimeUnit::us,
                      "any index, from the stored complete subtrees");
  const Stats consistency = time_per_call(
      [&] {
        auto proof = log.consistency_proof(1 + (++counter * kStride) % (kProofLeaves - 1), kProofLeaves);
        do_not_optimize(proof);
      },
      options);
  context.report_time(fmt::format("consistency proof, {} leaves{}", kProofLeaves, name), consistency, TimeUnit::us,
                      "any first size to the full log");

  std::vector<std::pair<Hash, commit::InclusionProof>> inclusion_proofs;
  std::vector<std::pair<commit::TreeHead, commit::ConsistencyProof>> consistency_proofs;
  std::size_t path_elements = 0;
  for (std::uint64_t i = 1; i <= kVerifySamples; ++i) {
    const std::uint64_t index = (i * kStride) % kProofLeaves;
    auto proof = log.inclusion_proof(index, kProofLeaves);
    auto first = log.head(1 + index);
    auto consistent = log.consistency_proof(1 + index, kProofLeaves);
    if (!proof || !first || !consistent) return base::fail(base::Errc::internal, "transparency: no proof");
    path_elements += consistent->path.size();
    inclusion_proofs.emplace_back(log.leaf_hash(index).value(), std::move(*proof));
    consistency_proofs.emplace_back(*first, std::move(*consistent));
  }
  bool all = true;
  const Stats verify_inclusion = time_per_call(
      [&] {
        const auto& [leaf, proof] = inclusion_proofs[++counter % kVerifySamples];
        all &= commit::verify_inclusion(hasher, leaf, proof, head);
      },
      options);
  const Stats verify_consistency = time_per_call(
      [&] {
        const auto& [first, proof] = consistency_proofs[++counter % kVerifySamples];
        all &= commit::verify_consistency(hasher, proof, first, head);
      },
      options);
  if (!all) return base::fail(base::Errc::internal, "transparency: a valid proof did not verify");
  context.report_time(fmt::format("verify inclusion proof{}", name), verify_inclusion, TimeUnit::us,
                      fmt::format("about 20 path hashes at {} leaves", kProofLeaves));
  context.report_time(fmt::format("verify consistency proof{}", name), verify_consistency, TimeUnit::us,
                      fmt::format("{:.1f} path hashes on average at {} leaves",
                                  static_cast<double>(path_elements) / kVerifySamples, kProofLeaves));
  return {};
}

base::Status run(Context& context) {
  for (const TreeHasher* hasher : {&commit::kLogSha256, &commit::kLogSha3}) {
    report_append(context, *hasher);
    if (auto status = report_proofs(context, *hasher); !status) return status;
  }
  return {};
}

}  // namespace

Group transparency() { return {"transparency", "RFC 6962 Merkle log: append, inclusion and consistency proofs", &run}; }

}  // namespace sion::bench::groups
