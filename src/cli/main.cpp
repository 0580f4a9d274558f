// `sion`: the validator node, the local devnet, the wallet and the benchmark
// suite in one binary (docs/architecture.md). Everything lives in sion_cli.

#include "sion/base/memory.hpp"
#include "sion/cli/app.hpp"

int main(int argc, char** argv) {
  // Before any thread starts: every command runs under the allocator policy
  // the node runs under, so bench rows measure what a node does.
  (void)sion::base::apply_allocator_policy();
  return sion::cli::run(argc, argv);
}
