// The process the crash test kills: opens the store named on the command
// line and applies the crash workload's next versions until killed (or
// until the optional version limit). Prints each committed version.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "crash_workload.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: crash_writer DIRECTORY [LAST_VERSION]\n");
    return 2;
  }
  const std::uint64_t last = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : UINT64_MAX;
  sion::state::ObjectStoreOptions options;
  options.retain_versions = 8;
  auto store = sion::state::ObjectStore::open(argv[1], options);
  if (!store) {
    std::fprintf(stderr, "crash_writer: %s\n", store.error().to_string().c_str());
    return 1;
  }
  for (std::uint64_t version = (*store)->version() + 1; version <= last; ++version) {
    auto applied = (*store)->apply(sion::state::testing::crash_writes(version));
    if (!applied) {
      std::fprintf(stderr, "crash_writer: %s\n", applied.error().to_string().c_str());
      return 1;
    }
    std::printf("%llu\n", static_cast<unsigned long long>(*applied));
    std::fflush(stdout);
  }
  return 0;
}
