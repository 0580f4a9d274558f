// Exact encodings and every rejection the decoder makes, each with the field
// it names (docs/codec.md).

#include <gtest/gtest.h>

#include "sample_types.hpp"
#include "sion/codec/codec.hpp"

namespace sion::codec {
namespace {

using base::Bytes;
using base::Errc;
using sample::Envelope;
using sample::Output;
using sample::Stake;
using sample::Transfer;

Bytes hex(std::string_view h) { return base::from_hex(h).value(); }

template <class T>
void expect_rejected(const Bytes& bytes, Errc code, std::string_view field, std::string_view detail = {}) {
  auto r = decode<T>(bytes);
  ASSERT_FALSE(r.ok()) << "accepted " << base::to_hex(bytes);
  EXPECT_EQ(r.error().code, code) << r.error().reason;
  EXPECT_TRUE(r.error().is_invalid_input());
  EXPECT_EQ(r.error().reason.rfind(std::string(field) + ": ", 0), 0u)
      << "reason should start with the field '" << field << "': " << r.error().reason;
  if (!detail.empty()) {
    EXPECT_NE(r.error().reason.find(detail), std::string::npos) << r.error().reason;
  }
}

TEST(Codec, IntegersAreFixedWidthLittleEndian) {
  EXPECT_EQ(encode(std::uint8_t{0xab}), hex("ab"));
  EXPECT_EQ(encode(std::uint16_t{0x0102}), hex("0201"));
  EXPECT_EQ(encode(std::uint32_t{0x01020304}), hex("04030201"));
  EXPECT_EQ(encode(std::uint64_t{0x0102030405060708}), hex("0807060504030201"));
  EXPECT_EQ(decode<std::uint64_t>(hex("0807060504030201")).value(), 0x0102030405060708u);
  EXPECT_EQ(decode<std::uint32_t>(hex("ffffffff")).value(), 0xffffffffu);
}

TEST(Codec, LengthsAreMinimalUleb128) {
  using B = VarBytes<kMaxLength>;
  EXPECT_EQ(encode(B{}), hex("00"));
  EXPECT_EQ(encode(B(Bytes(127, 0x11))).front(), 0x7f);
  const Bytes b128 = encode(B(Bytes(128, 0x11)));
  EXPECT_EQ(Bytes(b128.begin(), b128.begin() + 2), hex("8001"));
  const Bytes b300 = encode(B(Bytes(300, 0x11)));
  EXPECT_EQ(Bytes(b300.begin(), b300.begin() + 2), hex("ac02"));
  EXPECT_EQ(length_size(0), 1u);
  EXPECT_EQ(length_size(127), 1u);
  EXPECT_EQ(length_size(128), 2u);
  EXPECT_EQ(length_size(kMaxLength), 5u);
}

TEST(Codec, StructFieldsInOrder) {
  Output out;
  out.owner.fill(0xaa);
  out.amount = 5;
  EXPECT_EQ(encode(out), hex(std::string(64, 'a') + "0500000000000000"));
  Stake stake{7, 9, std::uint16_t{3}};
  EXPECT_EQ(encode(stake), hex("07000000"
                               "0900000000000000"
                               "01"
                               "0300"));
  EXPECT_EQ(decode<Stake>(encode(stake)).value(), stake);
}

TEST(Codec, UnionsOptionsEnumsAndArrays) {
  Envelope e;
  e.version = 1;
  e.chain_id = 2;
  e.body = Stake{3, 4, std::nullopt};
  e.memo = Bytes{0xee};
  e.sponsored = true;
  e.urgency = sample::Urgency::high;
  e.tags = {Bytes{}, Bytes{0x01, 0x02}};
  e.window = {5, 6};
  EXPECT_EQ(encode(e), hex("01"                // version
                           "0200000000000000"  // chain_id
                           "01"                // body: tag 1, Stake
                           "03000000"
                           "0400000000000000"
                           "00"
                           "00"  // expiry: none
                           "01"
                           "ee"  // memo
                           "01"  // sponsored
                           "02"  // urgency
                           "02"
                           "00"
                           "020102"  // tags
                           "05000000"
                           "06000000"));
  EXPECT_EQ(decode<Envelope>(encode(e)).value(), e);
}

TEST(Codec, RejectsTruncationNamingTheField) {
  Stake stake{7, 9, std::uint16_t{3}};
  Bytes bytes = encode(stake);
  bytes.pop_back();
  expect_rejected<Stake>(bytes, Errc::truncated, "Stake.lock_epochs", "needs 2 bytes");
  expect_rejected<Stake>(hex("070000"), Errc::truncated, "Stake.validator");
  expect_rejected<Stake>({}, Errc::truncated, "Stake.validator");
  // A declared length longer than what follows.
  expect_rejected<VarBytes<10>>(hex("05010203"), Errc::truncated, "value", "needs 5 bytes");
  // A length prefix cut inside its continuation bytes.
  expect_rejected<VarBytes<1000>>(hex("80"), Errc::truncated, "value");
}

TEST(Codec, RejectsNestedTruncationWithItsPath) {
  Transfer t;
  t.outputs.resize(3);
  Bytes bytes = encode(t);
  bytes.resize(bytes.size() - 3);
  expect_rejected<Transfer>(bytes, Errc::truncated, "Transfer.outputs[2].amount");
  Envelope e;
  e.body = t;
  Bytes eb = encode(e);
  // Cut inside the body's third output: version, chain_id, tag, two counts,
  // two whole outputs, the third owner, three bytes of its amount.
  eb.resize(1 + 8 + 1 + 1 + 1 + 2 * 40 + 32 + 3);
  expect_rejected<Envelope>(eb, Errc::truncated, "Envelope.body.Transfer.outputs[2].amount");
}

TEST(Codec, RejectsTrailingBytes) {
  Bytes bytes = encode(std::uint32_t{1});
  bytes.push_back(0);
  expect_rejected<std::uint32_t>(bytes, Errc::trailing_bytes, "value", "1 trailing bytes");
  Bytes stake = encode(Stake{});
  stake.insert(stake.end(), {1, 2, 3});
  expect_rejected<Stake>(stake, Errc::trailing_bytes, "Stake", "3 trailing bytes");
}

TEST(Codec, RejectsLengthsOverTheFieldMaximum) {
  expect_rejected<VarBytes<4>>(hex("050102030405"), Errc::length_over_max, "value",
                               "length 5 at byte offset 0 exceeds the field's maximum of 4");
  Envelope e;
  Bytes bytes = encode(e);
  // memo sits after version, chain_id, body (tag + two empty lists) and expiry.
  const std::size_t memo_at = 1 + 8 + 1 + 1 + 1 + 1;
  ASSERT_EQ(bytes[memo_at], 0);
  bytes[memo_at] = 65;  // VarBytes<64>
  bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(memo_at) + 1, 65, 0);
  expect_rejected<Envelope>(bytes, Errc::length_over_max, "Envelope.memo", "maximum of 64");
  // Counts are limited like lengths: a Transfer has at most 16 outputs.
  expect_rejected<Transfer>(hex("00"
                                "11"),
                            Errc::length_over_max, "Transfer.outputs", "maximum of 16");
  // Nothing beyond 2^32 - 1, whatever the field allows.
  expect_rejected<VarBytes<kMaxLength>>(hex("ffffffff7f"), Errc::length_over_max, "value");
  expect_rejected<VarBytes<kMaxLength>>(hex("8080808080"), Errc::length_over_max, "value", "past 5 bytes");
}

TEST(Codec, RejectsUnknownUnionTags) {
  Envelope e;
  Bytes bytes = encode(e);
  bytes[9] = 2;  // body tag: only 0 (Transfer) and 1 (Stake) exist
  expect_rejected<Envelope>(bytes, Errc::unknown_tag, "Envelope.body", "union tag 2");
  bytes[9] = 0xff;
  expect_rejected<Envelope>(bytes, Errc::unknown_tag, "Envelope.body", "union tag 255");
}

TEST(Codec, RejectsNonCanonicalForms) {
  // A length with a redundant zero continuation byte: 0x80 0x00 is 0.
  expect_rejected<VarBytes<10>>(hex("8000"), Errc::non_canonical, "value", "redundant zero byte");
  expect_rejected<VarBytes<1000>>(hex("8100"
                                      "01"),
                                  Errc::non_canonical, "value");
  // Flags other than 0 and 1.
  expect_rejected<bool>(hex("02"), Errc::non_canonical, "value", "flag byte is 2");
  expect_rejected<std::optional<std::uint8_t>>(hex("0207"), Errc::non_canonical, "value");
  Stake stake;
  Bytes bytes = encode(stake);
  bytes.back() = 0x80;  // lock_epochs presence flag
  expect_rejected<Stake>(bytes, Errc::non_canonical, "Stake.lock_epochs");
}

TEST(Codec, RejectsEnumValuesOutOfRange) {
  Envelope e;
  Bytes bytes = encode(e);
  const std::size_t urgency_at = bytes.size() - 1 - 1 - 8;
  ASSERT_EQ(bytes[urgency_at], 0);
  bytes[urgency_at] = 3;
  expect_rejected<Envelope>(bytes, Errc::invalid_value, "Envelope.urgency", "enum value 3");
}

// An enum numbered with a gap, like a receipt status (0..7, then 64..).
enum class Gapped : std::uint8_t { first = 0, second = 1, far = 64 };
constexpr std::array<Gapped, 3> codec_enum_values(Gapped) { return {Gapped::first, Gapped::second, Gapped::far}; }

TEST(Codec, RejectsEnumValuesInAGapOfTheNumbering) {
  for (unsigned raw = 0; raw < 256; ++raw) {
    const Bytes bytes{static_cast<std::uint8_t>(raw)};
    const bool assigned = raw == 0 || raw == 1 || raw == 64;
    auto r = decode<Gapped>(bytes);
    EXPECT_EQ(r.ok(), assigned) << raw;
    EXPECT_EQ(valid(static_cast<Gapped>(raw)), assigned) << raw;
    if (!assigned) {
      EXPECT_EQ(r.error().code, Errc::invalid_value);
      EXPECT_NE(r.error().reason.find("enum value " + std::to_string(raw) + " is not an assigned value"),
                std::string::npos)
          << r.error().reason;
    }
  }
}

TEST(Codec, MinimumEncodedSizes) {
  static_assert(min_encoded_size<std::uint32_t> == 4);
  static_assert(min_encoded_size<bool> == 1);
  static_assert(min_encoded_size<base::ByteArray<32>> == 32);
  static_assert(min_encoded_size<std::array<std::uint16_t, 3>> == 6);
  static_assert(min_encoded_size<VarBytes<64>> == 1);
  static_assert(min_encoded_size<List<Output, 16>> == 1);
  static_assert(min_encoded_size<std::optional<Output>> == 1);
  static_assert(min_encoded_size<Output> == 40);
  static_assert(min_encoded_size<Transfer> == 2);
  static_assert(min_encoded_size<Stake> == 4 + 8 + 1);
  static_assert(min_encoded_size<std::variant<Transfer, Stake>> == 1 + 2);
  static_assert(min_encoded_size<sample::Urgency> == 1);
  // Each is the length of the smallest value's encoding.
  EXPECT_EQ(encode(Transfer{}).size(), min_encoded_size<Transfer>);
  EXPECT_EQ(encode(Stake{}).size(), min_encoded_size<Stake>);
}

// A value that is large in memory but encodes to a few bytes: the worst case
// for a decoder that reserves by count.
struct Bulky {
  std::array<std::uint64_t, 32> unused{};  // 256 bytes in memory, not encoded
  std::uint8_t tag = 0;
  static constexpr auto codec_fields() { return std::tuple{field("tag", &Bulky::tag)}; }
};

template <class T>
std::size_t bytes_reserved_for(const Bytes& input) {
  Reader r(input, "list");
  T list;
  decode_from(r, list);  // fails: the count claims more than the input holds
  EXPECT_FALSE(r.ok());
  return list.capacity() * sizeof(typename T::value_type);
}

TEST(Codec, ListReservationIsBoundedByTheInputSize) {
  // The count claims 2^32 - 1 elements; 64 KiB follow.
  Bytes input = hex("ffffffff0f");
  input.resize(input.size() + 65536, 0);
  // Each element needs at least min_size bytes, so no more can be reserved
  // than the input could hold, whatever the count says: the memory is at
  // most sizeof / min_size times the input.
  using Bulks = List<Bulky, kMaxLength>;
  EXPECT_LE(bytes_reserved_for<Bulks>(input), (sizeof(Bulky) / min_encoded_size<Bulky>)*input.size());
  using Outputs = List<Output, kMaxLength>;
  EXPECT_LE(bytes_reserved_for<Outputs>(input), 2 * input.size());
  using Envelopes = List<Envelope, kMaxLength>;
  EXPECT_LE(bytes_reserved_for<Envelopes>(input), (sizeof(Envelope) / min_encoded_size<Envelope> + 1) * input.size());
  // Reserving by count (one element per byte left) would take sizeof(Output)
  // / 1 = 40 times the input for Output, and 264 times for Bulky.
  EXPECT_LT(bytes_reserved_for<Outputs>(input), sizeof(Output) * input.size() / 8);
}

TEST(Codec, EncodeCheckedRefusesOverlongValues) {
  Transfer t;
  t.outputs.resize(17);
  EXPECT_FALSE(valid(t));
  auto r = encode_checked(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::length_over_max);
  t.outputs.resize(16);
  EXPECT_TRUE(encode_checked(t).ok());
}

TEST(Reader, ReadsAfterFailureReturnZeroAndKeepTheFirstError) {
  const Bytes bytes = hex("01");
  Reader r(bytes, "Thing");
  {
    auto f = r.field("a");
    EXPECT_EQ(r.u32(), 0u);
  }
  {
    auto f = r.field("b");
    EXPECT_EQ(r.u8(), 0u);  // would succeed on its own, but the reader has failed
  }
  EXPECT_FALSE(r.ok());
  auto status = r.finish();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, Errc::truncated);
  EXPECT_EQ(status.error().reason.rfind("Thing.a: ", 0), 0u) << status.error().reason;
}

}  // namespace
}  // namespace sion::codec
