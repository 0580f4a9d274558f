#pragma once
// The process's allocator policy. A node and the bench apply one Pulse after
// another, and each Pulse allocates and frees megabytes of transient buffers
// (object encodings, hashing inputs, the tree update's arrays). glibc's
// default gives memory above 128 KiB back to the kernel on free, so every
// Pulse first-touched the same memory again: under virtualisation the page
// faults cost a third of the one-core state machine. The policy keeps freed
// memory in the process instead.

#include <cstddef>

namespace sion::base {

struct AllocatorPolicy {
  // Free memory at the top of the heap is returned only above this much.
  std::size_t keep_free_bytes = std::size_t{256} << 20;
  // Blocks at least this large are mapped, and unmapped on free.
  std::size_t map_blocks_from = std::size_t{32} << 20;
};

// Applies `policy` to the process's allocator (glibc mallopt; elsewhere a
// no-op). Call once at start-up, before threads start. Returns false if
// the allocator refused a setting.
bool apply_allocator_policy(const AllocatorPolicy& policy = {}) noexcept;

}  // namespace sion::base
