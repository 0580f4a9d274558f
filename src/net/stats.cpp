#include "sion/net/stats.hpp"

namespace sion::net {

std::string_view handshake_failure_name(HandshakeFailure failure) noexcept {
  switch (failure) {
    case HandshakeFailure::malformed: return "malformed";
    case HandshakeFailure::oversized_frame: return "oversized_frame";
    case HandshakeFailure::wrong_chain: return "wrong_chain";
    case HandshakeFailure::unknown_peer: return "unknown_peer";
    case HandshakeFailure::self_index: return "self_index";
    case HandshakeFailure::wrong_peer: return "wrong_peer";
    case HandshakeFailure::wrong_direction: return "wrong_direction";
    case HandshakeFailure::bad_signature: return "bad_signature";
    case HandshakeFailure::timeout: return "timeout";
    case HandshakeFailure::connection_lost: return "connection_lost";
    case HandshakeFailure::local_error: return "local_error";
  }
  return "unknown";
}

}  // namespace sion::net
