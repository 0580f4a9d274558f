#pragma once
// Names the calling thread as `top -H`, `perf` and debuggers show it, so an
// operator can tell the node's threads apart (docs/architecture.md,
// "Thread names"). Linux keeps 15 bytes; a longer name is cut there.

#include <string_view>

namespace sion::base {

void name_this_thread(std::string_view name) noexcept;

}  // namespace sion::base
