// Group `state`: hashing and state roots (docs/performance.md, "state"). The
// hashing rows belong here, where --only selects them.

#include <cstring>

#include "groups.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::bench::groups {
namespace {

base::Status run(Context& context) {
  if (auto status = report_state_hashing(context); !status) return status;
  if (auto status = report_state_tree(context); !status) return status;
  return report_sum_tree(context);
}

}  // namespace

base::Status report_state_hashing(Context& context) {
  // Each input is the previous digest: the calls form a dependency chain, so
  // none can be hoisted out of the loop or computed once.
  crypto::Hash256 digest{};
  const Stats sha3 = time_per_call(
      [&digest] {
        digest = crypto::sha3_256(digest);
        do_not_optimize(digest);
      },
      context.measure_options());
  context.report_time("SHA3-256, 32-byte input", sha3, TimeUnit::us);

  // 64 bytes: two child hashes, a binary tree's node (also one block).
  std::uint8_t node[64] = {};
  const Stats sha3_64 = time_per_call(
      [&node] {
        const crypto::Hash256 d = crypto::sha3_256(base::ByteView(node, sizeof(node)));
        std::memcpy(node, d.data(), d.size());
        do_not_optimize(node);
      },
      context.measure_options());
  context.report_time("SHA3-256, 64-byte input", sha3_64, TimeUnit::us);

  // A batch of 8 as a tree level hashes it (sha3_256_many, in Keccak lanes
  // where the CPU has them); reported per hash. Digests feed the next
  // batch's inputs, as above.
  constexpr std::size_t kBatch = 8;
  std::uint8_t nodes[kBatch][64] = {};
  const std::uint8_t* inputs[kBatch];
  for (std::size_t i = 0; i < kBatch; ++i) inputs[i] = nodes[i];
  crypto::Hash256 digests[kBatch];
  Stats many = time_per_call(
      [&] {
        crypto::sha3_256_many(inputs, 64, digests, kBatch);
        for (std::size_t i = 0; i < kBatch; ++i) std::memcpy(nodes[i], digests[i].data(), 32);
        do_not_optimize(nodes);
      },
      context.measure_options());
  many.median /= kBatch;
  many.p95 /= kBatch;
  context.report_time("SHA3-256 x8 lanes, 64-byte input (per hash)", many, TimeUnit::us);
  return {};
}

Group state() { return {"state", "SHA3-256 hashing and sparse Merkle state roots", &run}; }

}  // namespace sion::bench::groups
