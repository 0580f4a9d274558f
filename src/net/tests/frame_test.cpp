// FrameReader: whole frames out of bytes in any chunking, and the two frame
// errors (docs/net.md, "Framing").

#include <gtest/gtest.h>

#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/net/frame.hpp"

namespace sion::net {
namespace {

base::Bytes stream_of(const std::vector<base::Bytes>& payloads) {
  base::Bytes out;
  for (const auto& payload : payloads) {
    const base::Bytes frame = encode_frame(payload).value();
    out.insert(out.end(), frame.begin(), frame.end());
  }
  return out;
}

// Feeds `stream` in pieces of `piece` bytes; the frames that came out.
std::vector<base::Bytes> read_all(FrameReader& reader, base::ByteView stream, std::size_t piece) {
  std::vector<base::Bytes> frames;
  while (!stream.empty()) {
    base::ByteView chunk = stream.first(std::min(piece, stream.size()));
    stream = stream.subspan(chunk.size());
    while (!chunk.empty()) {
      auto used = reader.feed(chunk);
      EXPECT_TRUE(used.ok());
      if (!used) return frames;
      chunk = chunk.subspan(*used);
      if (reader.ready()) frames.push_back(reader.take());
    }
  }
  return frames;
}

TEST(Frame, HeaderIsBigEndianLength) {
  EXPECT_EQ(base::to_hex(frame_header(1)), "00000001");
  EXPECT_EQ(base::to_hex(frame_header(0x01020304)), "01020304");
  EXPECT_EQ(base::to_hex(encode_frame(base::Bytes{0xab, 0xcd}).value()), "00000002abcd");
  EXPECT_FALSE(encode_frame({}).ok());
}

TEST(Frame, ReadsFramesWhateverTheChunking) {
  std::vector<base::Bytes> payloads;
  for (std::size_t i = 1; i <= 40; ++i) payloads.emplace_back(i * 37 % 300 + 1, static_cast<std::uint8_t>(i));
  payloads.emplace_back(70'000, 0x55);  // past the first reservation
  const base::Bytes stream = stream_of(payloads);
  for (const std::size_t piece :
       {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{5}, std::size_t{4096}, stream.size()}) {
    FrameReader reader(100'000);
    EXPECT_EQ(read_all(reader, stream, piece), payloads) << "piece " << piece;
    EXPECT_EQ(reader.pending_bytes(), 0U);
  }
}

TEST(Frame, StopsAtEachFrameSoTheLimitCanChangeBetweenThem) {
  const base::Bytes stream = stream_of({base::Bytes(10, 1), base::Bytes(500, 2)});
  FrameReader reader(16);
  auto used = reader.feed(stream);
  ASSERT_TRUE(used.ok());
  EXPECT_EQ(*used, 14U);
  ASSERT_TRUE(reader.ready());
  EXPECT_EQ(reader.feed(base::ByteView(stream).subspan(14)).value(), 0U);  // nothing while ready
  EXPECT_EQ(reader.take(), base::Bytes(10, 1));
  reader.set_max_frame_bytes(1000);
  EXPECT_EQ(reader.feed(base::ByteView(stream).subspan(14)).value(), 504U);
  EXPECT_EQ(reader.take(), base::Bytes(500, 2));
}

TEST(Frame, ZeroLengthIsMalformed) {
  FrameReader reader;
  const base::Bytes zero = {0, 0, 0, 0, 7};
  auto used = reader.feed(zero);
  ASSERT_FALSE(used.ok());
  EXPECT_EQ(used.error().code, base::Errc::invalid_value);
  EXPECT_NE(used.error().reason.find("zero-length"), std::string::npos);
  EXPECT_TRUE(reader.failed());
  EXPECT_FALSE(reader.feed(base::Bytes{1}).ok());  // stays failed
}

TEST(Frame, OverTheLimitIsRefusedWithoutAllocatingIt) {
  FrameReader reader(16 * 1024 * 1024);
  const base::Bytes at_limit = {0x01, 0x00, 0x00, 0x00, 1, 2, 3};  // 16 MiB declared, 3 bytes sent
  ASSERT_TRUE(reader.feed(at_limit).ok());
  EXPECT_FALSE(reader.ready());
  EXPECT_EQ(reader.pending_bytes(), 7U);
  EXPECT_LE(reader.reserved_bytes(), 64U * 1024);

  FrameReader small(1000);
  auto used = small.feed(base::Bytes{0xff, 0xff, 0xff, 0xff});
  ASSERT_FALSE(used.ok());
  EXPECT_EQ(used.error().code, base::Errc::length_over_max);
  EXPECT_EQ(used.error().reason, "frame length 4294967295 exceeds the maximum of 1000");
  EXPECT_EQ(small.reserved_bytes(), 0U);
}

TEST(Frame, ReservationGrowsWithTheBytesThatArrived) {
  FrameReader reader(8 * 1024 * 1024);
  const base::Bytes header = {0x00, 0x80, 0x00, 0x00};  // 8 MiB
  ASSERT_TRUE(reader.feed(header).ok());
  const base::Bytes piece(100'000, 9);
  ASSERT_TRUE(reader.feed(piece).ok());
  EXPECT_LE(reader.reserved_bytes(), 2U * 100'000);
}

}  // namespace
}  // namespace sion::net
