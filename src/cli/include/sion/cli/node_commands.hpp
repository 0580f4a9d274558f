#pragma once
// `sion node` and `sion devnet`: the validator in the foreground until
// SIGINT or SIGTERM, which stop it cleanly (docs/node-config.md); `sion
// replay`: a stopped node's chain checked against a replay from genesis
// (docs/node-config.md, "Checking a chain").

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "sion/base/result.hpp"

namespace sion::cli {

// `sion node --config FILE`.
base::Status run_node(const std::string& config_path, std::FILE* out);

struct DevnetOptions {
  std::size_t validators = 1;  // when creating: 1 in this process, more as processes (node::DevnetDirSpec)
  std::string dir = ".sion-devnet";
  std::size_t accounts = 4;
  std::uint32_t interval_ms = 50;
  std::string api = "127.0.0.1:8730";
};

// `sion devnet`: makes (or reuses) the devnet folder, prints the API
// address and a transfer to try, and runs its node. A folder of several
// validators runs one `sion node` process each (this binary), stopped with
// SIGTERM on SIGINT or SIGTERM (SIGKILL after 10 s); if one stops on its
// own, the others are stopped and the error (internal) names it and its log.
base::Status run_devnet(const DevnetOptions& options, std::FILE* out);

struct ReplayCommandOptions {
  std::optional<std::string> config;  // --config FILE: the node's node.toml
  std::optional<std::string> dir;     // --dir D: a devnet folder, D/node.toml
};

// `sion replay`: opens the chain of the node's data_dir read-only (refused
// while the node runs), replays it from the genesis file with
// node::replay_chain, prints progress to `err` and the summary to `out`.
// A mismatch is corrupt_store naming the height and the field.
base::Status run_replay(const ReplayCommandOptions& options, std::FILE* out, std::FILE* err);

}  // namespace sion::cli
