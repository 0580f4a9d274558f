#pragma once
// Authenticated TCP links between validators (docs/net.md). One link per
// pair: the lower validator index dials the higher, both prove their identity
// with ML-DSA-44 in a handshake, and then length-prefixed payload frames flow
// both ways. Payloads are opaque; consensus gives them meaning.
//
//   net::Transport transport(options, {.on_frame = [&](std::uint32_t peer, base::Bytes payload) { ... }});
//   SION_TRY_STATUS(transport.start());
//   transport.send(2, codec::encode(vote));   // never blocks; false when dropped
//
// Threads: the transport owns one io_context and one thread ("sion-net"),
// which runs every socket, the handshakes (signing and verifying) and every
// handler. send(), broadcast() and every other method are safe from any
// thread. stop() (or the destructor) closes every link and joins the thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/net/options.hpp"
#include "sion/net/stats.hpp"

namespace sion::net {

namespace detail {
class Core;
}

class Transport {
 public:
  explicit Transport(TransportOptions options, TransportHandlers handlers = {});
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Checks the options (invalid_argument naming what is wrong: a peer
  // without an ML-DSA-44 key, a signer whose key is not peers[self]'s, a
  // limit of 0 ...), binds and listens (io_error naming the address and
  // port), starts the io thread and dials every peer above us whose port is
  // known. Once only: a stopped transport does not start again.
  base::Status start();
  // Closes the listener and every link and joins the io thread. No handler
  // is called once stop() has begun (one already running finishes first).
  // Frames still queued are dropped. Idempotent; must not be called from a
  // handler.
  void stop();

  // The bound port (the ephemeral one when listen_port was 0); 0 before start().
  std::uint16_t port() const noexcept;
  std::uint32_t self() const noexcept;
  std::size_t validators() const noexcept;

  // Where to dial `peer` from now on, for a peer table whose ports were not
  // known at construction (ephemeral ports in tests) or that changed. A peer
  // we dial and are not linked to is dialed at once; a live link is kept.
  // invalid_argument for an index outside the table or our own.
  base::Status set_peer_address(std::uint32_t peer, std::string host, std::uint16_t port);

  // Queues one payload frame for `peer` and returns at once. False, counted,
  // when the frame was dropped: the peer's queue is at max_queue_frames or
  // max_queue_bytes, or `peer` is ourselves or not in the table, the payload
  // is empty or over max_frame_bytes, or the transport has stopped. Frames
  // for a peer that is not linked wait in its queue (within the bounds) and
  // go out, in order, once it is.
  bool send(std::uint32_t peer, base::Bytes payload);
  // send() to every peer but ourselves, one shared copy of the payload;
  // returns how many peers took it.
  std::size_t broadcast(base::Bytes payload);

  // Whether the link to `peer` is up (its handshake done and not yet closed).
  bool connected(std::uint32_t peer) const;
  std::vector<std::uint32_t> connected_peers() const;

  // ---- Test hooks (docs/net.md, "Test hooks"): one relaxed atomic load
  // per frame when unused.

  // Holds each frame for `peer` sent from now on for `delay` before it is
  // written (order kept: a frame never passes an earlier one). 0 turns it off.
  void set_link_delay(std::uint32_t peer, std::chrono::milliseconds delay);
  // Drops every frame to and from `peer` (counted in frames_dropped_blocked)
  // while the link itself stays up: a partition without netem. send() to a
  // blocked peer returns true, as a frame lost on the wire would.
  void set_blocked(std::uint32_t peer, bool blocked);

  TransportStats stats() const;
  const TransportOptions& options() const noexcept;

 private:
  std::unique_ptr<detail::Core> core_;
};

}  // namespace sion::net
