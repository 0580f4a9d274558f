// Properties over random values and random corruptions: every value round
// trips; any input the decoder accepts re-encodes to exactly itself (one
// encoding per value); every strict prefix is rejected as truncated.

#include <gtest/gtest.h>

#include <random>

#include "sample_types.hpp"
#include "sion/codec/codec.hpp"

namespace sion::codec {
namespace {

using base::Bytes;
using sample::Envelope;

TEST(CodecProperty, RandomValuesRoundTrip) {
  sample::Generator gen(1);
  for (int i = 0; i < 5000; ++i) {
    const Envelope e = gen.envelope();
    ASSERT_TRUE(valid(e));
    const Bytes bytes = encode(e);
    ASSERT_EQ(encoded_size(e), bytes.size());
    auto back = decode<Envelope>(bytes);
    ASSERT_TRUE(back.ok()) << back.error().reason;
    ASSERT_EQ(*back, e);
  }
}

TEST(CodecProperty, EveryStrictPrefixIsTruncated) {
  sample::Generator gen(2);
  for (int i = 0; i < 300; ++i) {
    const Bytes bytes = encode(gen.envelope());
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
      auto r = decode<Envelope>(base::ByteView(bytes.data(), cut));
      ASSERT_FALSE(r.ok());
      ASSERT_EQ(r.error().code, base::Errc::truncated) << r.error().reason;
    }
  }
}

TEST(CodecProperty, AcceptedMutationsAreCanonical) {
  sample::Generator gen(3);
  std::mt19937_64 rng(4);
  int accepted = 0;
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    Bytes bytes = encode(gen.envelope());
    switch (rng() % 4) {
      case 0:  // flip a byte
        bytes[rng() % bytes.size()] ^= static_cast<std::uint8_t>(1 + rng() % 255);
        break;
      case 1:  // insert a byte
        bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(rng() % (bytes.size() + 1)),
                     static_cast<std::uint8_t>(rng()));
        break;
      case 2:  // delete a byte
        bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(rng() % bytes.size()));
        break;
      default:  // set a byte to a boundary value
        bytes[rng() % bytes.size()] = std::array<std::uint8_t, 4>{0x00, 0x7f, 0x80, 0xff}[rng() % 4];
        break;
    }
    auto r = decode<Envelope>(bytes);
    if (r.ok()) {
      ++accepted;
      ASSERT_EQ(encode(*r), bytes) << "decoded a non-canonical encoding";
    } else {
      ++rejected;
      ASSERT_TRUE(r.error().is_invalid_input());
      ASSERT_EQ(r.error().reason.rfind("Envelope", 0), 0u) << r.error().reason;
    }
  }
  // Both outcomes must actually occur, or the test proves nothing.
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace sion::codec
