#include "sion/bench/group.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace sion::bench {
namespace {

std::vector<std::string> names(const std::vector<const Group*>& groups) {
  std::vector<std::string> out;
  for (const Group* group : groups) out.emplace_back(group->name);
  return out;
}

TEST(Registry, ListsTheGroupsInSeedOrder) {
  ASSERT_FALSE(all_groups().empty());
  EXPECT_EQ(all_groups()[0].name, "signatures");
  EXPECT_EQ(group_names(), "signatures, state, data, transparency, execution");
  for (const Group& group : all_groups()) {
    EXPECT_FALSE(group.description.empty()) << group.name;
    EXPECT_NE(group.run, nullptr) << group.name;
  }
}

TEST(SelectGroups, WithoutOnlyEveryGroupRuns) {
  const auto selected = select_groups(std::nullopt);
  ASSERT_TRUE(selected.ok());
  EXPECT_EQ(selected->size(), all_groups().size());
}

TEST(SelectGroups, TrimsAndIgnoresEmptyItemsAndDuplicates) {
  const auto selected = select_groups(" state ,, state,signatures");
  ASSERT_TRUE(selected.ok()) << selected.error().reason;
  EXPECT_EQ(names(*selected), (std::vector<std::string>{"signatures", "state"}));
}

TEST(SelectGroups, UnknownGroupListsTheValidOnes) {
  const auto selected = select_groups("state,nosuch");
  ASSERT_FALSE(selected.ok());
  EXPECT_EQ(selected.error().code, base::Errc::invalid_argument);
  EXPECT_EQ(selected.error().reason, "unknown group 'nosuch' in --only; valid groups: signatures, state, data, transparency, execution");
}

TEST(SelectGroups, NamesAreCaseSensitive) {
  EXPECT_FALSE(select_groups("State").ok());
}

TEST(SelectGroups, AListNamingNoGroupIsAnError) {
  for (const char* only : {"", ",", " , "}) {
    const auto selected = select_groups(only);
    ASSERT_FALSE(selected.ok()) << '"' << only << '"';
    EXPECT_EQ(selected.error().code, base::Errc::invalid_argument);
    EXPECT_EQ(selected.error().reason, "--only names no group; valid groups: signatures, state, data, transparency, execution");
  }
}

TEST(RunGroups, StateReportsTheSha3RowAsItIsMeasured) {
  RunOptions options;
  options.quick = true;
  const auto selected = select_groups("state");
  ASSERT_TRUE(selected.ok());
  std::vector<Row> streamed;
  const auto rows = run_groups(*selected, options, [&streamed](const Row& row) {
    streamed.push_back(row);
  });
  ASSERT_TRUE(rows.ok()) << rows.error().reason;
  ASSERT_EQ(rows->size(), streamed.size());
  ASSERT_FALSE(rows->empty());
  const Row& sha3 = rows->front();
  EXPECT_EQ(sha3.group, "state");
  EXPECT_EQ(sha3.name, "SHA3-256, 32-byte input");
  EXPECT_EQ(sha3.unit, "µs");
  EXPECT_GT(sha3.value, 0);
  EXPECT_LT(sha3.value, 1000);  // a 32-byte SHA3-256 takes well under 1 ms
}

TEST(RunGroups, DataReportsEveryRowUnderItsStableName) {
  RunOptions options;
  options.quick = true;  // no 8192 KiB rows
  const auto selected = select_groups("data");
  ASSERT_TRUE(selected.ok());
  const auto rows = run_groups(*selected, options, [](const Row&) {});
  ASSERT_TRUE(rows.ok()) << rows.error().reason;
  std::vector<std::string> got;
  for (const Row& row : *rows) {
    EXPECT_EQ(row.group, "data");
    EXPECT_GT(row.value, 0) << row.name;
    EXPECT_FALSE(row.note.empty()) << row.name;
    const bool micro = row.name.starts_with("sample") || row.name.starts_with("bad-encoding") ||
                       row.name.starts_with("Reed–Solomon encode");
    EXPECT_EQ(row.unit, micro ? "µs" : "ms")
        << row.name;
    got.push_back(row.name);
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "Reed–Solomon encode of one 64+64 line (ISA-L)",
                     "2D Reed–Solomon extend, 16 KiB",
                     "row/column commitments, 16 KiB",
                     "2D Reed–Solomon extend, 256 KiB",
                     "row/column commitments, 256 KiB",
                     "2D Reed–Solomon extend, 2048 KiB",
                     "row/column commitments, 2048 KiB",
                     "2D Reed–Solomon extend, 2048 KiB, two cores",
                     "row/column commitments, 2048 KiB, two cores",
                     "repair from the three parity quadrants, 2048 KiB",
                     "sample 16 shares: verify",
                     "bad-encoding proof: verify",
                 }));
  EXPECT_EQ((*rows)[1].note, "k=8: 16×16 extended square of 512-byte shares, one core");
}

base::Status failing_group(Context& context) {
  context.report("first", 1, "B");
  return base::fail(base::Errc::io_error, "node unreachable");
}

base::Status throwing_group(Context&) { throw std::runtime_error("boom"); }

TEST(RunGroups, AFailingGroupStopsTheRunAndIsNamed) {
  const Group groups[] = {{"failing", "fails", &failing_group}, {"throwing", "throws", &throwing_group}};
  const Group* first[] = {&groups[0], &groups[1]};
  int seen = 0;
  const auto rows = run_groups(first, RunOptions{}, [&seen](const Row&) { ++seen; });
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(rows.error().code, base::Errc::io_error);
  EXPECT_EQ(rows.error().reason, "group 'failing': node unreachable");

  const Group* second[] = {&groups[1]};
  const auto thrown = run_groups(second, RunOptions{}, [](const Row&) {});
  ASSERT_FALSE(thrown.ok());
  EXPECT_EQ(thrown.error().code, base::Errc::internal);
  EXPECT_EQ(thrown.error().reason, "group 'throwing': boom");
}

TEST(Context, CarriesTheRunOptions) {
  RunOptions options;
  options.quick = true;
  options.devnet = false;
  options.node = "http://127.0.0.1:9000";
  std::vector<Row> rows;
  const RowSink sink = [&rows](const Row& row) { rows.push_back(row); };
  const Context context("state", options, sink);
  EXPECT_TRUE(context.quick());
  EXPECT_FALSE(context.devnet());
  EXPECT_EQ(context.node(), "http://127.0.0.1:9000");
  EXPECT_EQ(context.measure_options().max_samples, 7u);

  Stats stats;
  stats.median = 0.00125;
  context.report_time("t", stats, TimeUnit::ms, "n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].group, "state");
  EXPECT_DOUBLE_EQ(rows[0].value, 1.25);
  EXPECT_EQ(rows[0].unit, "ms");
  EXPECT_EQ(rows[0].note, "n");
}

}  // namespace
}  // namespace sion::bench
