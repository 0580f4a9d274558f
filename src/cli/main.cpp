// `sion`: the validator node, the local devnet, the wallet and the benchmark
// suite in one binary (docs/architecture.md). Everything lives in sion_cli.

#include "sion/cli/app.hpp"

int main(int argc, char** argv) { return sion::cli::run(argc, argv); }
