#include "sion/wallet/cohort_file.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sion/base/bytes.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/codec/codec.hpp"

namespace sion::wallet {
namespace {

using base::testing::TempDir;

CohortFile sample() {
  CohortFile file;
  file.cohort.fill(0xab);
  file.members = 1000;
  file.allotment = 100'000;
  file.caveats.expiry_height = 500;
  file.caveats.per_payment = 10;
  file.caveats.period_cap = 100;
  file.caveats.period_length = 10;
  file.caveats.actions = static_cast<std::uint8_t>(agents::Action::pay);
  file.caveats.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  return file;
}

TEST(CohortFile, WrittenOnceAndReadBack) {
  TempDir dir;
  const std::string path = dir / "cohort.json";
  ASSERT_TRUE(write_cohort_file(path, sample()));
  const auto read = read_cohort_file(path);
  ASSERT_TRUE(read) << read.error().reason;
  EXPECT_EQ(*read, sample());
  const auto again = write_cohort_file(path, sample());
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().reason.find("already exists"), std::string::npos) << again.error().reason;
}

TEST(CohortFile, EveryMemberHasTheSameTerms) {
  const agents::CohortSpec spec = cohort_spec(sample());
  ASSERT_EQ(spec.caveats.size(), 1000u);
  ASSERT_EQ(spec.allotments.size(), 1000u);
  EXPECT_EQ(spec.caveats[999], sample().caveats);
  EXPECT_EQ(spec.allotments[0], 100'000u);
}

TEST(CohortFile, RefusesWhatIsNotOne) {
  const std::string caveats = base::to_hex(codec::encode(sample().caveats));
  const std::string cohort(64, 'a');
  const auto with = [&](const std::string& members, const std::string& caveats_hex, const std::string& extra = {}) {
    return "{\"cohort\": \"" + cohort + "\", \"members\": " + members + ", \"allotment\": 5, \"caveats_hex\": \"" +
           caveats_hex + "\"" + extra + "}";
  };
  ASSERT_TRUE(parse_cohort_file(with("3", caveats)));
  struct Case {
    std::string json;
    std::string reason;
  };
  const Case cases[] = {
      {with("0", caveats), "$.members: expected 1 to 2^20"},
      {with("1048577", caveats), "$.members: expected 1 to 2^20"},
      {with("-1", caveats), "$.members: expected an unsigned integer"},
      {with("3", caveats + "00"), "$.caveats_hex"},
      {with("3", "zz"), "$.caveats_hex"},
      {with("3", caveats, ", \"more\": 1"), "unknown fields"},
      {"{\"members\": 1}", "$.cohort: missing"},
      {"[]", "expected an object"},
      {"{", ""},
  };
  for (const Case& c : cases) {
    const auto parsed = parse_cohort_file(c.json);
    ASSERT_FALSE(parsed) << c.json;
    EXPECT_NE(parsed.error().reason.find(c.reason), std::string::npos) << parsed.error().reason;
  }
}

}  // namespace
}  // namespace sion::wallet
