#pragma once
// Frames on a validator link (docs/net.md, "Framing"): a 4-byte big-endian
// payload length, then that many payload bytes. The transport knows nothing
// of what payloads mean.
//
// FrameReader is the incremental parser the sockets use: bytes go in as they
// arrive, whole frames come out one at a time. It does no I/O, so it is
// tested and fuzzed alone (fuzz/net_frames_fuzz.cpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::net {

inline constexpr std::size_t kFrameHeaderBytes = 4;
inline constexpr std::uint32_t kDefaultMaxFrameBytes = 16 * 1024 * 1024;

// The length prefix of a frame whose payload has `length` bytes.
std::array<std::uint8_t, kFrameHeaderBytes> frame_header(std::uint32_t length) noexcept;

// Header and payload in one buffer. Refuses an empty payload (a zero length
// is malformed on the wire) and one over 2^32 - 1 bytes.
base::Result<base::Bytes> encode_frame(base::ByteView payload);

class FrameReader {
 public:
  explicit FrameReader(std::uint32_t max_frame_bytes = kDefaultMaxFrameBytes) noexcept;

  // The largest payload accepted from the next length prefix on; a length
  // already read keeps the limit it was checked against. The transport
  // raises it from the handshake limit once a link is up.
  void set_max_frame_bytes(std::uint32_t max_frame_bytes) noexcept { max_ = max_frame_bytes; }
  std::uint32_t max_frame_bytes() const noexcept { return max_; }

  // Consumes bytes from the front of `data` until one frame is complete or
  // `data` is used up, and returns how many it consumed (0 while ready()).
  // A zero length (invalid_value) or a length above the maximum
  // (length_over_max) fails; the reader then stays failed and every later
  // call returns the same error.
  base::Result<std::size_t> feed(base::ByteView data);

  // Whether a whole frame waits in take().
  bool ready() const noexcept { return ready_; }
  // The complete frame's payload; the reader then expects the next length.
  // Precondition: ready().
  base::Bytes take() noexcept;

  bool failed() const noexcept { return error_.has_value(); }
  // Bytes of the frame in progress received so far, its length prefix
  // included; 0 between frames.
  std::size_t pending_bytes() const noexcept;
  // Memory held for the payload in progress: it grows with the bytes that
  // arrived (at most doubling them, never past the declared length), never
  // to a declared length up front.
  std::size_t reserved_bytes() const noexcept { return payload_.capacity(); }

 private:
  std::uint32_t max_;
  std::array<std::uint8_t, kFrameHeaderBytes> header_{};
  std::size_t header_have_ = 0;
  std::uint32_t length_ = 0;  // of the payload in progress, once its prefix is complete
  base::Bytes payload_;
  bool ready_ = false;
  std::optional<base::Error> error_;
};

}  // namespace sion::net
