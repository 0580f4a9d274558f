// Group `state`: hashing and state roots. Seed 000's run labelled the hashing
// row `hashing`; it now belongs here, where --only selects it.

#include "groups.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::bench::groups {
namespace {

base::Status run(Context& context) {
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
  return {};
}

}  // namespace

Group state() {
  return {"state", "SHA3-256 hashing and sparse Merkle state roots", &run};
}

}  // namespace sion::bench::groups
