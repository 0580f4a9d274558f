#include "sion/bench/group.hpp"
#include "sion/bench/cores.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <string_view>
#include <thread>

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

TEST(Registry, ListsTheGroupsInTheDocumentedOrder) {
  ASSERT_FALSE(all_groups().empty());
  EXPECT_EQ(all_groups()[0].name, "signatures");
  EXPECT_EQ(group_names(), "signatures, authorization, state, data, transparency, execution, lineage, streams, devnet");
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
  EXPECT_EQ(selected.error().reason,
            "unknown group 'nosuch' in --only; valid groups: signatures, authorization, state, data, transparency, "
            "execution, lineage, streams, devnet");
}

TEST(SelectGroups, NamesAreCaseSensitive) { EXPECT_FALSE(select_groups("State").ok()); }

TEST(SelectGroups, AListNamingNoGroupIsAnError) {
  for (const char* only : {"", ",", " , "}) {
    const auto selected = select_groups(only);
    ASSERT_FALSE(selected.ok()) << '"' << only << '"';
    EXPECT_EQ(selected.error().code, base::Errc::invalid_argument);
    EXPECT_EQ(selected.error().reason,
              "--only names no group; valid groups: signatures, authorization, state, data, transparency, execution, "
              "lineage, streams, devnet");
  }
}

TEST(RunGroups, StateReportsTheSha3RowAsItIsMeasured) {
  RunOptions options;
  options.quick = true;
  const auto selected = select_groups("state");
  ASSERT_TRUE(selected.ok());
  std::vector<Row> streamed;
  const auto rows = run_groups(*selected, options, [&streamed](const Row& row) { streamed.push_back(row); });
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
    EXPECT_EQ(row.unit, micro ? "µs" : "ms") << row.name;
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
  options.devnet_dir = "/srv/devnet";
  std::vector<Row> rows;
  const RowSink sink = [&rows](const Row& row) { rows.push_back(row); };
  const Context context("state", options, sink);
  EXPECT_TRUE(context.quick());
  EXPECT_FALSE(context.devnet());
  EXPECT_EQ(context.node(), "http://127.0.0.1:9000");
  EXPECT_EQ(context.devnet_dir(), "/srv/devnet");
  EXPECT_EQ(context.measure_options().max_samples, 7u);

  Stats stats;
  stats.median = 0.00125;
  stats.p95 = 0.002;
  context.report_time("t", stats, TimeUnit::ms, "n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].group, "state");
  EXPECT_DOUBLE_EQ(rows[0].value, 1.25);
  ASSERT_TRUE(rows[0].p95.has_value());
  EXPECT_DOUBLE_EQ(*rows[0].p95, 2.0);  // converted to the row's unit, as the median
  EXPECT_EQ(rows[0].unit, "ms");
  EXPECT_EQ(rows[0].note, "n");

  // A rate's p95 is the rate at the 95th-percentile time: the slow end.
  context.report_rate("r", stats, 512, "tx/s");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[1].value, 512 / 0.00125);
  ASSERT_TRUE(rows[1].p95.has_value());
  EXPECT_DOUBLE_EQ(*rows[1].p95, 512 / 0.002);

  // A bare value has no p95.
  context.report("v", 3, "B");
  EXPECT_FALSE(rows[2].p95.has_value());
}

const Row* find_row(const std::vector<Row>& rows, std::string_view name) {
  for (const Row& row : rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

TEST(RunGroups, StateRootRowsHashEncodingsAndTimeAFirstCall) {
  RunOptions options;
  options.quick = true;
  const auto selected = select_groups("state");
  ASSERT_TRUE(selected.ok());
  const auto rows = run_groups(*selected, options, [](const Row&) {});
  ASSERT_TRUE(rows.ok()) << rows.error().reason;
  for (const char* name : {"state root of 1000 objects", "state root of 100000 objects"}) {
    const Row* row = find_row(*rows, name);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_EQ(row->note, "from the objects' encodings: object hashes, sort, every node; one core") << name;
    ASSERT_TRUE(row->p95.has_value()) << name;
    EXPECT_GE(*row->p95, row->value) << name;
  }
  const Row* first = find_row(*rows, "state root of 100000 objects, first call");
  ASSERT_NE(first, nullptr);
  EXPECT_GT(first->value, 0);
  EXPECT_NE(first->note.find("1 forked child process"), std::string::npos) << first->note;
  // --quick has no 1,000,000-object state.
  EXPECT_EQ(find_row(*rows, "state root of 1000000 objects"), nullptr);
}

// Restricts this thread (and the threads it starts) to one CPU while alive.
class OneCpu {
 public:
  OneCpu() {
    CPU_ZERO(&saved_);
    sched_getaffinity(0, sizeof saved_, &saved_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(static_cast<unsigned>(sched_getcpu()), &one);
    pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~OneCpu() { sched_setaffinity(0, sizeof saved_, &saved_); }
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

TEST(Cores, NotesCountTheCoresTheCodeCouldUse) {
  EXPECT_EQ(cores_note(nullptr), "one core");
  EXPECT_GE(usable_cores(), 1u);
  const base::Executor two(2);
  if (usable_cores() >= 2) {
    EXPECT_EQ(cores_note(&two), "two cores");
  }
  const OneCpu cpu;
  ASSERT_TRUE(cpu.pinned());
  EXPECT_EQ(usable_cores(), 1u);
  const base::Executor every(0);
  EXPECT_EQ(cores_note(&every), "one core");  // one thread per hardware thread, all on this one
  EXPECT_EQ(cores_note(&two), "one core");
}

TEST(Cores, OneCorePinsThreadsItStartsAndRestores) {
  const unsigned before = usable_cores();
  {
    const OneCore core;
    ASSERT_TRUE(core.pinned());
    EXPECT_EQ(core.note(), "one core");
    unsigned seen = 0;
    std::thread([&seen] { seen = usable_cores(); }).join();
    EXPECT_EQ(seen, 1u);
  }
  EXPECT_EQ(usable_cores(), before);
}

// The notes of the execution rows come from the run: on a process held to
// one CPU, the all-cores row says one core; every row names its pre-state.
TEST(RunGroups, ExecutionNotesSayWhatRan) {
  RunOptions options;
  options.quick = true;
  const auto selected = select_groups("execution");
  ASSERT_TRUE(selected.ok());
  const OneCpu cpu;
  ASSERT_TRUE(cpu.pinned());
  const auto rows = run_groups(*selected, options, [](const Row&) {});
  ASSERT_TRUE(rows.ok()) << rows.error().reason;
  std::vector<std::string> got;
  for (const Row& row : *rows) got.push_back(row.name);
  EXPECT_EQ(got, (std::vector<std::string>{
                     "client signing (ML-DSA-44 + SLH-DSA-128f)",
                     "Pulse of 64 transfers, with signature checks",
                     "Pulse of 64 transfers, with signature checks, all cores",
                     "Pulse of 64 transfers, state machine only",
                     "Pulse of 64 transfers, state machine only, ids given",
                     "Pulse of 64 transfers on a 100,000-account state",
                     "store a Pulse of 64 transfers",
                     "traced execution of 64 transfers",
                     "stateless replay of every chunk (stack A)",
                 }));
  const Row* all_cores = find_row(*rows, "Pulse of 64 transfers, with signature checks, all cores");
  ASSERT_NE(all_cores, nullptr);
  EXPECT_NE(all_cores->note.find("signature checks on one core"), std::string::npos) << all_cores->note;
  for (const Row& row : *rows) {
    EXPECT_EQ(row.note.find("target"), std::string::npos) << row.name;
    ASSERT_TRUE(row.p95.has_value()) << row.name;
    if (row.name.starts_with("Pulse") || row.name.starts_with("traced")) {
      const bool large = row.name.ends_with("-account state");
      EXPECT_NE(row.note.find(large ? "pre-state of 200,000 objects" : "pre-state of 128 objects in memory"),
                std::string::npos)
          << row.name << ": " << row.note;
    }
  }
  const Row* machine = find_row(*rows, "Pulse of 64 transfers, state machine only");
  ASSERT_NE(machine, nullptr);
  EXPECT_NE(machine->note.find("ids and usage computed inside the clock"), std::string::npos) << machine->note;
  const Row* stored = find_row(*rows, "store a Pulse of 64 transfers");
  ASSERT_NE(stored, nullptr);
  EXPECT_NE(stored->note.find("one synced RocksDB batch"), std::string::npos) << stored->note;
  const Row* traced = find_row(*rows, "traced execution of 64 transfers");
  ASSERT_NE(traced, nullptr);
  EXPECT_NE(traced->note.find("signature verdicts and ids supplied by the all-cores pre-check"), std::string::npos);
}

}  // namespace
}  // namespace sion::bench
