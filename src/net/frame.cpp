#include "sion/net/frame.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "sion/base/endian.hpp"

namespace sion::net {
namespace {

// The first reservation for a payload: a peer that declares 16 MiB and
// sends ten bytes holds this much of our memory, not 16 MiB.
constexpr std::size_t kFirstReserve = 64 * 1024;

}  // namespace

std::array<std::uint8_t, kFrameHeaderBytes> frame_header(std::uint32_t length) noexcept {
  std::array<std::uint8_t, kFrameHeaderBytes> header{};
  base::store_be<std::uint32_t>(header.data(), length);
  return header;
}

base::Result<base::Bytes> encode_frame(base::ByteView payload) {
  if (payload.empty()) return base::fail(base::Errc::invalid_argument, "a frame's payload has at least one byte");
  if (payload.size() > std::numeric_limits<std::uint32_t>::max()) {
    return base::fail(base::Errc::length_over_max,
                      "a payload of " + std::to_string(payload.size()) + " bytes does not fit a 4-byte length");
  }
  base::Bytes out;
  out.reserve(kFrameHeaderBytes + payload.size());
  const auto header = frame_header(static_cast<std::uint32_t>(payload.size()));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

FrameReader::FrameReader(std::uint32_t max_frame_bytes) noexcept : max_(max_frame_bytes) {}

base::Result<std::size_t> FrameReader::feed(base::ByteView data) {
  if (error_) return base::fail(*error_);
  if (ready_) return std::size_t{0};
  std::size_t used = 0;
  if (header_have_ < kFrameHeaderBytes) {
    const std::size_t n = std::min(kFrameHeaderBytes - header_have_, data.size());
    std::copy_n(data.begin(), n, header_.begin() + static_cast<std::ptrdiff_t>(header_have_));
    header_have_ += n;
    used += n;
    if (header_have_ < kFrameHeaderBytes) return used;
    length_ = base::load_be<std::uint32_t>(header_.data());
    if (length_ == 0) {
      error_ = base::Error{base::Errc::invalid_value, "zero-length frame (a payload has at least one byte)"};
      return base::fail(*error_);
    }
    if (length_ > max_) {
      error_ = base::Error{base::Errc::length_over_max, "frame length " + std::to_string(length_) +
                                                            " exceeds the maximum of " + std::to_string(max_)};
      return base::fail(*error_);
    }
    payload_.clear();
    payload_.reserve(std::min<std::size_t>(length_, kFirstReserve));
  }
  const std::size_t n = std::min<std::size_t>(length_ - payload_.size(), data.size() - used);
  if (payload_.size() + n > payload_.capacity()) {
    // Double what arrived, never past the declared length.
    payload_.reserve(std::min<std::size_t>(length_, std::max(payload_.capacity() * 2, payload_.size() + n)));
  }
  payload_.insert(payload_.end(), data.begin() + static_cast<std::ptrdiff_t>(used),
                  data.begin() + static_cast<std::ptrdiff_t>(used + n));
  used += n;
  if (payload_.size() == length_) ready_ = true;
  return used;
}

base::Bytes FrameReader::take() noexcept {
  ready_ = false;
  header_have_ = 0;
  length_ = 0;
  base::Bytes out = std::move(payload_);
  payload_ = base::Bytes();
  return out;
}

std::size_t FrameReader::pending_bytes() const noexcept {
  if (header_have_ < kFrameHeaderBytes) return header_have_;
  return kFrameHeaderBytes + payload_.size();
}

}  // namespace sion::net
