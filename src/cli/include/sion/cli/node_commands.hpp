#pragma once
// `sion node` and `sion devnet`: the validator in the foreground until
// SIGINT or SIGTERM, which stop it cleanly (docs/node-config.md).

#include <cstdint>
#include <cstdio>
#include <string>

#include "sion/base/result.hpp"

namespace sion::cli {

// `sion node --config FILE`.
base::Status run_node(const std::string& config_path, std::FILE* out);

struct DevnetOptions {
  std::size_t validators = 1;
  std::string dir = ".sion-devnet";
  std::size_t accounts = 4;
  std::uint32_t interval_ms = 1000;
  std::string api = "127.0.0.1:8730";
};

// `sion devnet`: makes (or reuses) the devnet folder, prints the API
// address and a transfer to try, and runs its node.
base::Status run_devnet(const DevnetOptions& options, std::FILE* out);

}  // namespace sion::cli
