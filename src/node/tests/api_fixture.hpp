#pragma once
// What the API tests share: hybrid keys (fast to sign and verify) from a
// fill byte, bytes as a string body, and a node opened on a test folder
// whose validator is hybrid(3).

#include <cstdint>
#include <memory>
#include <string>

#include "sion/base/bytes.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/node/node.hpp"

namespace sion::node::testing {

inline crypto::SigningBundle hybrid(std::uint8_t fill) {
  crypto::KeySeed seed{};
  seed.fill(fill);
  return crypto::SigningBundle::from_seed(crypto::Profile::hybrid, seed).value();
}

inline std::string text(base::ByteView bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// A node on `dir` from `genesis` (whose validator must be hybrid(3)), without
// synced writes, one execution thread.
inline std::unique_ptr<Node> open_test_node(const std::string& dir, const exec::Genesis& genesis) {
  NodeOptions options;
  options.data_dir = dir;
  options.genesis = genesis;
  options.validator = std::make_shared<const crypto::SigningBundle>(hybrid(3));
  options.sync_writes = false;
  options.execution_threads = 1;
  return Node::open(options).value();
}

}  // namespace sion::node::testing
