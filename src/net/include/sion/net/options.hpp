#pragma once
// What the node sets on the transport: the peer table, its own identity and
// every limit (docs/net.md gives each default and what happens over it).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/net/frame.hpp"
#include "sion/net/handshake.hpp"
#include "sion/net/identity.hpp"

namespace sion::net {

// One validator of the static table; its position is its validator index.
struct Peer {
  crypto::KeyBundle keys;  // public; the ML-DSA-44 part proves the validator on a link
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0: not known yet; Transport::set_peer_address() gives it later
};

struct TransportOptions {
  std::uint32_t self = 0;   // our index in `peers`
  ChainId chain_id{};       // e.g. the genesis hash: links only form within one chain
  std::vector<Peer> peers;  // every validator, ourselves included
  Signer signer;            // signs with the ML-DSA-44 key of peers[self]
  std::string listen_address = "127.0.0.1";
  std::uint16_t listen_port = 0;                          // 0: an ephemeral port, Transport::port() after start()
  std::uint32_t max_frame_bytes = kDefaultMaxFrameBytes;  // payload limit once a link is up
  std::size_t max_queue_frames = 4096;                    // per peer, not yet written
  std::size_t max_queue_bytes = 64 * 1024 * 1024;         // per peer, payload bytes not yet written
  std::chrono::milliseconds handshake_timeout{5'000};     // dial (or accept) to both Auths verified
  std::chrono::milliseconds write_timeout{10'000};        // one write to a link that is up
  std::chrono::milliseconds reconnect_min{50};            // the dialer's first backoff
  std::chrono::milliseconds reconnect_max{2'000};         // the backoff stops doubling here
  std::size_t max_pending_handshakes = 64;                // incoming connections not yet up
};

// Called on the transport's io thread, one call at a time; they must be quick
// (a slow handler delays every link) and must not call stop(). They may call
// send(), broadcast() and the other methods.
struct TransportHandlers {
  std::function<void(std::uint32_t peer, base::Bytes payload)> on_frame;
  std::function<void(std::uint32_t peer)> on_peer_up;
  std::function<void(std::uint32_t peer)> on_peer_down;
  // One line per refused handshake, link up or down, dial failure: for the node's log.
  std::function<void(std::string_view message)> on_log;
};

}  // namespace sion::net
