#pragma once
// Free loopback ports, for whoever starts validators on one machine (the
// bench's devnet, the fault tests): a random block so that runs side by side
// rarely meet. Another process may still take a port before it is bound;
// the node that loses it then fails its start, naming the address.

#include <cstdint>

#include "sion/base/result.hpp"

namespace sion::net {

// Whether `port` binds on 127.0.0.1 now.
bool loopback_port_free(std::uint16_t port);

// The first of `count` consecutive loopback ports in [20000, 60000) that all
// bind now, tried at up to `attempts` random places. io_error when none.
base::Result<std::uint16_t> free_loopback_ports(std::uint16_t count, int attempts = 32);

}  // namespace sion::net
