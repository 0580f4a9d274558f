#pragma once
// One TCP connection between two validators (private to src/net): the
// connect, the handshake of docs/net.md and then payload frames both ways.
// Everything here runs on the transport's io thread; Core owns the
// connection and decides whether it is a peer's link.

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core.hpp"
#include "sion/net/frame.hpp"
#include "sion/net/handshake.hpp"

namespace sion::net::detail {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `dialed` is the peer an initiator dials; a responder learns its peer
  // from the Hello.
  Connection(Core& core, std::uint64_t id, tcp::socket socket, Role role, std::uint32_t dialed);

  // An initiator: resolves and connects, then runs the handshake.
  void dial(const std::string& host, std::uint16_t port);
  // A responder, its socket accepted: runs the handshake.
  void accepted();
  // Closes the socket and tells Core once; later calls do nothing.
  void close(std::string_view reason);
  // Writes what is waiting: handshake frames, then (once up) the peer's
  // queue, in order, as far as the delay hook allows.
  void pump();

  std::uint64_t id() const noexcept { return id_; }
  Role role() const noexcept { return role_; }
  // An initiator's peer is known from the start, a responder's from a Hello
  // that passed check_hello().
  bool peer_known() const noexcept { return peer_known_; }
  std::uint32_t peer() const noexcept { return peer_; }
  bool was_up() const noexcept { return was_up_; }
  Clock::time_point up_since() const noexcept { return up_since_; }
  const std::string& remote() const noexcept { return remote_; }

 private:
  enum class Phase { connecting, hello, auth, up, closed };

  // Fails the connect or the handshake when it has not finished in time.
  void arm_handshake_timer();
  // The transcript hash the side in `signer` signs (docs/net.md, "Handshake").
  crypto::Hash256 transcript(Role signer) const;
  void on_connected();
  void read();
  void on_read(const boost::system::error_code& ec, std::size_t n);
  void on_frame(base::Bytes frame);
  void on_hello(base::Bytes frame);
  void on_auth(const base::Bytes& frame);
  void fail_handshake(HandshakeFailure kind, const std::string& reason);
  void dial_failed(const std::string& reason);
  void queue_control(base::Bytes payload);
  void start_write();
  void on_written(const boost::system::error_code& ec);
  void arm_delay(Clock::time_point until);
  std::string describe() const;

  Core& core_;
  const std::uint64_t id_;
  tcp::socket socket_;
  const Role role_;
  std::optional<tcp::resolver> resolver_;
  asio::steady_timer handshake_timer_;
  asio::steady_timer write_timer_;
  asio::steady_timer delay_timer_;

  Phase phase_ = Phase::connecting;
  std::uint32_t peer_ = 0;
  bool peer_known_ = false;
  bool was_up_ = false;
  Clock::time_point up_since_{};
  std::string remote_;

  FrameReader reader_{kMaxHandshakeFrameBytes};
  std::array<std::uint8_t, 64 * 1024> read_buffer_{};
  base::Bytes own_hello_;
  base::Bytes peer_hello_;

  // Writing: handshake frames first, then batches from the peer's queue.
  std::deque<std::shared_ptr<const base::Bytes>> control_;
  std::vector<std::shared_ptr<const base::Bytes>> batch_;
  std::vector<std::array<std::uint8_t, kFrameHeaderBytes>> headers_;
  std::vector<asio::const_buffer> buffers_;
  std::uint64_t batch_bytes_ = 0;
  bool batch_is_payload_ = false;
  bool writing_ = false;
  std::uint64_t write_generation_ = 0;
  bool delay_armed_ = false;
};

}  // namespace sion::net::detail
