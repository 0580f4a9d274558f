#include "sion/base/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sion::base {
namespace {

std::optional<std::size_t> check(const std::string& text) { return first_invalid_utf8(text); }

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_EQ(check(""), std::nullopt);
  EXPECT_EQ(check("plain ascii\n\t"), std::nullopt);
  EXPECT_EQ(check("\xC2\x80"), std::nullopt);          // U+0080
  EXPECT_EQ(check("\xDF\xBF"), std::nullopt);          // U+07FF
  EXPECT_EQ(check("\xE0\xA0\x80"), std::nullopt);      // U+0800
  EXPECT_EQ(check("\xED\x9F\xBF"), std::nullopt);      // U+D7FF
  EXPECT_EQ(check("\xEE\x80\x80"), std::nullopt);      // U+E000
  EXPECT_EQ(check("\xEF\xBF\xBF"), std::nullopt);      // U+FFFF
  EXPECT_EQ(check("\xF0\x90\x80\x80"), std::nullopt);  // U+10000
  EXPECT_EQ(check("\xF4\x8F\xBF\xBF"), std::nullopt);  // U+10FFFF
  EXPECT_EQ(check("gr\xC3\xBC\xC3\x9F \xE2\x82\xAC"), std::nullopt);
}

TEST(Utf8, NamesWhereTheFirstIllFormedSequenceStarts) {
  EXPECT_EQ(check("ab\x80"), 2u);            // lone continuation byte
  EXPECT_EQ(check("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(check("\xC1\xBF"), 0u);          // overlong
  EXPECT_EQ(check("\xE0\x9F\xBF"), 0u);      // overlong below U+0800
  EXPECT_EQ(check("\xED\xA0\x80"), 0u);      // surrogate U+D800
  EXPECT_EQ(check("\xF0\x8F\xBF\xBF"), 0u);  // overlong below U+10000
  EXPECT_EQ(check("\xF4\x90\x80\x80"), 0u);  // U+110000
  EXPECT_EQ(check("\xF5\x80\x80\x80"), 0u);  // lead past F4
  EXPECT_EQ(check("\xFF"), 0u);
  EXPECT_EQ(check("x\xE5nesis"), 1u);  // 3-byte lead, then 'n'
  EXPECT_EQ(check("\xE2\x82"), 0u);    // truncated at the end
  EXPECT_EQ(check("\xF0\x90\x80"), 0u);
  EXPECT_EQ(check(std::string("ok\0\xC3\xBC\xC3", 6)), 5u);  // NUL is valid UTF-8
}

}  // namespace
}  // namespace sion::base
