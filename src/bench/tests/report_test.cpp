#include "sion/bench/report.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

namespace sion::bench {
namespace {

// Lines laid out as the tables of docs/performance.md.
TEST(Table, HeaderMatchesTheDocs) {
  EXPECT_EQ(table_header(),
            "group        measurement                                                   value unit     note");
}

TEST(Table, RowMatchesTheDocs) {
  EXPECT_EQ(format_row({"state", "state root of 1000 objects", 1.08, "ms", "root 7a3eb156", {}}),
            "state        state root of 1000 objects                                     1.08 ms       root 7a3eb156");
  EXPECT_EQ(format_row({"signatures", "ML-DSA-44 sign", 263.15, "µs", "", {}}),
            "signatures   ML-DSA-44 sign                                               263.15 µs       ");
}

TEST(Table, WidthsCountCharactersNotBytes) {
  EXPECT_EQ(format_row({"data", "2D Reed–Solomon extend, 16 KiB", 0.81, "ms", "128×128 extended square", {}}),
            "data         2D Reed–Solomon extend, 16 KiB                                 0.81 ms       128×128 "
            "extended square");
}

TEST(Table, LongCellsPushTheRestRight) {
  EXPECT_EQ(format_row({"authorization",
                        "Pulse of 256 agent payments, keyed subagents, each signed by itself",
                        5314.39,
                        "µs/tx",
                        "1360.5 ms per Pulse with signature checks, one core",
                        {}}),
            "authorization Pulse of 256 agent payments, keyed subagents, each signed by itself        "
            "5314.39 µs/tx    1360.5 ms per Pulse with signature checks, one core");
  EXPECT_EQ(
      format_row({"streams",
                  "Pulse of 16 settlements × 65536 steps, walked",
                  2343833.23,
                  "payments/s",
                  "447.4 ms per Pulse",
                  {}}),
      "streams      Pulse of 16 settlements × 65536 steps, walked            2343833.23 payments/s 447.4 ms per Pulse");
}

Results sample_results() {
  Results results;
  results.machine.cpu = "Test CPU";
  results.machine.cores = 2;
  results.machine.flags = {"avx2", "sha"};
  results.machine.compiler = "GNU 12.2.0";
  results.machine.build_type = "Release";
  results.machine.commit = "0123456789ab";
  results.machine.date = "2026-10-28T09:14:03Z";
  results.version = "0.1.0";
  results.measurements = {{"state", "SHA3-256, 32-byte input", 0.45, "µs", "", {}},
                          {"state", "state root of 1000 objects", 1.08, "ms", "root 7a3eb156", {}}};
  return results;
}

TEST(Json, DocumentHasTheDocumentedShape) {
  const auto text = to_json(sample_results());
  ASSERT_TRUE(text.ok());
  const auto doc = nlohmann::json::parse(*text);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.size(), 3u);
  const auto& machine = doc.at("machine");
  EXPECT_EQ(machine.at("cpu"), "Test CPU");
  EXPECT_TRUE(machine.at("cores").is_number_unsigned());
  EXPECT_EQ(machine.at("cores"), 2);
  EXPECT_EQ(machine.at("flags"), nlohmann::json::array({"avx2", "sha"}));
  for (const char* key : {"compiler", "build_type", "commit", "date"}) {
    EXPECT_TRUE(machine.at(key).is_string()) << key;
  }
  EXPECT_EQ(doc.at("version"), "0.1.0");
  const auto& rows = doc.at("measurements");
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.size(), 5u);
    EXPECT_TRUE(row.at("group").is_string());
    EXPECT_TRUE(row.at("name").is_string());
    EXPECT_TRUE(row.at("value").is_number());
    EXPECT_TRUE(row.at("unit").is_string());
    EXPECT_TRUE(row.at("note").is_string());
  }
  EXPECT_EQ(rows[0].at("unit"), "µs");
  EXPECT_DOUBLE_EQ(rows[1].at("value").get<double>(), 1.08);
  EXPECT_EQ(rows[1].at("note"), "root 7a3eb156");
}

TEST(Json, P95IsTheSecondNumberWhereTheRowHasOne) {
  Results results = sample_results();
  results.measurements[1].p95 = 1.5;
  const auto text = to_json(results);
  ASSERT_TRUE(text.ok());
  const auto doc = nlohmann::ordered_json::parse(*text);
  const auto& rows = doc.at("measurements");
  EXPECT_FALSE(rows[0].contains("p95"));  // no samples behind it: no field
  const auto& timed = rows[1];
  ASSERT_TRUE(timed.contains("p95"));
  EXPECT_DOUBLE_EQ(timed.at("p95").get<double>(), 1.5);
  std::vector<std::string> keys;
  for (const auto& [key, value] : timed.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"group", "name", "value", "p95", "unit", "note"}));
  // The table is the same with or without it.
  Row without = results.measurements[1];
  without.p95.reset();
  EXPECT_EQ(format_row(results.measurements[1]), format_row(without));
}

TEST(Json, InvalidUtf8IsReplacedNotThrown) {
  Results results = sample_results();
  results.measurements[0].note = "\xff";
  EXPECT_TRUE(to_json(results).ok());
}

TEST(Json, DescribeMachineFillsEveryField) {
  const MachineInfo machine = describe_machine();
  EXPECT_FALSE(machine.cpu.empty());
  EXPECT_GT(machine.cores, 0u);
  EXPECT_FALSE(machine.build_type.empty());
  EXPECT_FALSE(machine.commit.empty());
  EXPECT_TRUE(std::regex_match(machine.date, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << machine.date;
}

class JsonFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("sion_bench_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(JsonFile, WritesTheDocumentAndLeavesNoTemporary) {
  const auto path = dir_ / "bench.json";
  ASSERT_TRUE(check_writable(path).ok());
  const auto status = write_json(path, sample_results());
  ASSERT_TRUE(status.ok()) << status.error().reason;
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, *to_json(sample_results()));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(JsonFile, UnwritablePathsAreErrorsNotCrashes) {
  const auto missing = dir_ / "no" / "such" / "dir" / "bench.json";
  for (const auto& path : {missing, dir_, dir_ / ""}) {
    const auto checked = check_writable(path);
    ASSERT_FALSE(checked.ok()) << path;
    EXPECT_EQ(checked.error().code, base::Errc::io_error);
    EXPECT_NE(checked.error().reason.find(path.string()), std::string::npos);
    const auto written = write_json(path, sample_results());
    ASSERT_FALSE(written.ok()) << path;
    EXPECT_EQ(written.error().code, base::Errc::io_error);
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 0);
  EXPECT_FALSE(check_writable("").ok());
}

}  // namespace
}  // namespace sion::bench
