#pragma once
// The deterministic workload of the crash test: what version v writes. The
// writer process (crash_writer.cpp) applies it until it is killed; the test
// replays it to know what every committed version must hold.

#include <cstdint>
#include <map>
#include <vector>

#include "sion/state/object_store.hpp"

namespace sion::state::testing {

inline ObjectId crash_id(std::uint64_t n) {
  return commit::tagged_hash(commit::Domain::object,
                             base::ByteView(reinterpret_cast<const std::uint8_t*>(&n), sizeof n));
}

// Version v sets 40 distinct objects among 500 and deletes every fifth.
inline std::vector<ObjectWrite> crash_writes(std::uint64_t version) {
  std::vector<ObjectWrite> writes;
  for (std::uint64_t i = 0; i < 40; ++i) {
    const std::uint64_t n = (version * 37 + i * 11) % 500;  // 11 is prime to 500: distinct
    if (i % 5 == 0) {
      writes.push_back({crash_id(n), std::nullopt});
      continue;
    }
    Object object;
    object.type = static_cast<std::uint32_t>(n % 3);
    object.version = version;
    object.data.assign(64 + n % 64, static_cast<std::uint8_t>(version ^ n));
    writes.push_back({crash_id(n), std::move(object)});
  }
  return writes;
}

// The objects after versions 1..last.
inline std::map<ObjectId, Object> crash_model(std::uint64_t last) {
  std::map<ObjectId, Object> model;
  for (std::uint64_t version = 1; version <= last; ++version) {
    for (ObjectWrite& write : crash_writes(version)) {
      if (write.object) {
        model[write.id] = std::move(*write.object);
      } else {
        model.erase(write.id);
      }
    }
  }
  return model;
}

}  // namespace sion::state::testing
