#pragma once
// The transport's counters (docs/net.md, "Counters"), read by the node for
// its metrics and by tests. Every counter only grows.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sion::net {

// Why a handshake was refused. Numbers index TransportStats::handshake_failures.
enum class HandshakeFailure : std::uint8_t {
  malformed = 0,        // a Hello or Auth that does not decode, or a zero-length frame
  oversized_frame = 1,  // a handshake frame longer than kMaxHandshakeFrameBytes
  wrong_chain = 2,      // a Hello for another chain id
  unknown_peer = 3,     // a sender index outside the peer table
  self_index = 4,       // a sender index equal to our own
  wrong_peer = 5,       // the responder is not the validator that was dialed
  wrong_direction = 6,  // an initiator whose index is not below ours (the lower index dials)
  bad_signature = 7,    // an Auth that does not verify under the sender's ML-DSA-44 key
  timeout = 8,          // not finished within handshake_timeout
  connection_lost = 9,  // closed or reset by the other side before finishing
  local_error = 10,     // this node could not draw a nonce or sign
};
inline constexpr std::size_t kHandshakeFailureKinds = 11;

// "malformed", "oversized_frame", ... (the enumerator's name).
std::string_view handshake_failure_name(HandshakeFailure failure) noexcept;

struct TransportStats {
  // Payload frames; bytes count payloads, without their 4-byte prefix.
  std::uint64_t frames_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t frames_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t frames_dropped_queue_full = 0;  // send() returned false: the peer's queue was at its bound
  std::uint64_t frames_dropped_blocked = 0;     // set_blocked(): to or from a blocked peer
  std::uint64_t frames_refused = 0;             // send() to no such peer, to self, empty, too large or after stop()
  // Frame errors on any connection, during a handshake or after: each closes it.
  std::uint64_t malformed_frames = 0;  // a zero length
  std::uint64_t oversized_frames = 0;  // a length above the limit of the moment
  std::array<std::uint64_t, kHandshakeFailureKinds> handshake_failures{};
  std::uint64_t connects = 0;             // links up (both Auths verified)
  std::uint64_t disconnects = 0;          // links down, replaced ones included
  std::uint64_t replaced = 0;             // links closed for a newer one from the same peer
  std::uint64_t dials = 0;                // outgoing connection attempts
  std::uint64_t dial_failures = 0;        // name resolution or TCP connect failed or timed out
  std::uint64_t accepted = 0;             // incoming TCP connections taken into a handshake
  std::uint64_t refused_connections = 0;  // incoming ones closed at once: max_pending_handshakes reached
  std::uint64_t write_timeouts = 0;       // links closed because a write did not finish in write_timeout
  std::uint64_t handler_errors = 0;       // exceptions thrown by a handler, caught

  std::uint64_t handshake_failure(HandshakeFailure failure) const noexcept {
    return handshake_failures[static_cast<std::size_t>(failure)];
  }
  std::uint64_t handshake_failures_total() const noexcept {
    std::uint64_t total = 0;
    for (const std::uint64_t n : handshake_failures) total += n;
    return total;
  }
};

}  // namespace sion::net
