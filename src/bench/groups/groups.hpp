#pragma once
// The groups the registry (group.cpp) lists. Each is defined in its own file
// in this folder.

#include "sion/bench/group.hpp"

namespace sion::bench::groups {

Group signatures();
Group state();

}  // namespace sion::bench::groups
