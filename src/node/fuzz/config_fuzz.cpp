// libFuzzer target: a node.toml's text (docs/node-config.md). Parsing must
// give a config or fail with a reason that names the file, never crash (nor
// leak: ASan); a config that parses must write back to a text that parses to
// the same config. Built with SION_FUZZ_CORPUS_TOOL, the same file writes the
// seed corpus: a few valid configs and near misses.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "sion/node/config.hpp"

using namespace sion;

namespace {

constexpr const char* kPath = "/fuzz/node.toml";

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
#include <filesystem>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::filesystem::create_directories(argv[1]);
  const std::string required =
      "data_dir = \"data\"\ngenesis_file = \"genesis.json\"\nvalidator_key_file = \"k.json\"\n";
  node::NodeConfig full;
  full.data_dir = "/srv/data";
  full.genesis_file = "/srv/genesis.json";
  full.validator_key_file = "/srv/keys/validator.json";
  full.log.file = "/var/log/sion.log";
  ledger::Id peer{};
  peer.fill(0x5a);
  full.peers[peer] = {"::1", 8731};
  const std::string seeds[] = {
      required,
      node::config_to_toml(full),
      required + "[api]\naddress = \"[::1]:0\"\n[pulse]\ninterval_ms = 100\n[log]\nlevel = \"trace\"\n",
      required + "[pulse]\ninterval_ms = 50\n",
      required + "[peers]\nabc = \"h:1\"\n",
      required + "[mempool]\nmax_bytes = 1e9\n",
      required + "'\xE5nesis' = \"\xC3\"\n",  // malformed UTF-8 in a key and a string
  };
  int i = 0;
  for (const std::string& seed : seeds) {
    std::ofstream(std::filesystem::path(argv[1]) / ("config-" + std::to_string(i++)), std::ios::binary) << seed;
  }
  return node::parse_node_config(seeds[1], kPath) ? 0 : 1;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto config = node::parse_node_config(std::string(reinterpret_cast<const char*>(data), size), kPath);
  if (!config) {
    if (config.error().reason.rfind(kPath, 0) != 0) std::abort();  // every error names the file
    return 0;
  }
  // Parsed paths are absolute, so the written text reads back the same.
  const auto again = node::parse_node_config(node::config_to_toml(*config), kPath);
  if (!again || !(*again == *config)) std::abort();
  return 0;
}
#endif
