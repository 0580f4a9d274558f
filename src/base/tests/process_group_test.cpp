#include "sion/base/process_group.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "sion/base/testing/file_mode.hpp"
#include "sion/base/testing/temp_dir.hpp"

namespace sion::base {
namespace {

using namespace std::chrono_literals;
using base::testing::file_mode;
using base::testing::TempDir;
using Clock = std::chrono::steady_clock;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Waits up to 10 s for `needle` to appear in the file.
bool wait_for_text(const std::string& path, const std::string& needle) {
  const auto deadline = Clock::now() + 10s;
  while (Clock::now() < deadline) {
    if (read_text(path).find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

Result<std::size_t> shell(ProcessGroup& group, const std::string& script, const std::string& output = "") {
  return group.spawn("/bin/sh", {"sh", "-c", script}, output);
}

// A wait_any() bounded at 10 s.
std::optional<ChildExit> wait_bounded(ProcessGroup& group) {
  const auto deadline = Clock::now() + 10s;
  return group.wait_any([&] { return Clock::now() > deadline; }, 10ms);
}

bool gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

TEST(ProcessGroup, StopsEveryChildWithSigterm) {
  ProcessGroup group;
  for (int i = 0; i < 3; ++i) {
    const auto index = group.spawn("/bin/sleep", {"sleep", "30"}, "");
    ASSERT_TRUE(index) << index.error().reason;
    EXPECT_EQ(*index, static_cast<std::size_t>(i));
  }
  ASSERT_EQ(group.running_count(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(group.running(i));
    EXPECT_EQ(::kill(group.pid(i), 0), 0);
    // Its own process group: a terminal's Ctrl-C does not reach it.
    EXPECT_EQ(::getpgid(group.pid(i)), group.pid(i));
  }

  const auto start = Clock::now();
  const std::vector<ChildExit> ended = group.stop(5s);
  EXPECT_LT(Clock::now() - start, 4s);
  ASSERT_EQ(ended.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ended[i].index, i);
    EXPECT_FALSE(ended[i].killed);
    ASSERT_TRUE(ended[i].wait_status);
    EXPECT_TRUE(WIFSIGNALED(*ended[i].wait_status));
    EXPECT_EQ(WTERMSIG(*ended[i].wait_status), SIGTERM);
    EXPECT_TRUE(ended[i].clean()) << ended[i].describe();
    EXPECT_FALSE(group.running(i));
    EXPECT_TRUE(gone(group.pid(i)));  // reaped, not a zombie
  }
  EXPECT_EQ(group.running_count(), 0u);
  EXPECT_TRUE(group.stop(5s).empty());  // nothing left to stop
}

TEST(ProcessGroup, KillsAChildThatIgnoresSigterm) {
  TempDir tmp;
  const std::string output = tmp / "out";
  ProcessGroup group;
  // exec: the sleep itself ignores SIGTERM, and no grandchild outlives it.
  ASSERT_TRUE(shell(group, "trap '' TERM; echo ready; exec sleep 30", output));
  ASSERT_TRUE(wait_for_text(output, "ready")) << read_text(output);

  const auto start = Clock::now();
  const std::vector<ChildExit> ended = group.stop(300ms);
  const auto took = Clock::now() - start;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_TRUE(ended[0].killed);
  ASSERT_TRUE(ended[0].wait_status);
  EXPECT_EQ(WTERMSIG(*ended[0].wait_status), SIGKILL);
  EXPECT_FALSE(ended[0].clean());
  EXPECT_NE(ended[0].describe().find("signal 9"), std::string::npos) << ended[0].describe();
  EXPECT_TRUE(gone(ended[0].pid));
}

TEST(ProcessGroup, ReportsAChildThatExitsOnItsOwn) {
  ProcessGroup group;
  ASSERT_TRUE(group.spawn("/bin/sleep", {"sleep", "30"}, ""));
  ASSERT_TRUE(shell(group, "sleep 0.2; exit 3"));
  ASSERT_TRUE(group.spawn("/bin/sleep", {"sleep", "30"}, ""));

  const std::optional<ChildExit> ended = wait_bounded(group);
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->index, 1u);
  EXPECT_EQ(ended->pid, group.pid(1));
  ASSERT_TRUE(ended->wait_status);
  EXPECT_TRUE(WIFEXITED(*ended->wait_status));
  EXPECT_EQ(ended->describe(), "exited with status 3");
  EXPECT_FALSE(ended->clean());
  EXPECT_FALSE(group.running(1));
  EXPECT_EQ(group.exit(1)->index, 1u);
  EXPECT_EQ(group.running_count(), 2u);

  // The others are stopped the same way; the one that ended is not signalled.
  const std::vector<ChildExit> stopped = group.stop(5s);
  ASSERT_EQ(stopped.size(), 2u);
  EXPECT_EQ(stopped[0].index, 0u);
  EXPECT_EQ(stopped[1].index, 2u);
  EXPECT_TRUE(stopped[0].clean() && stopped[1].clean());
}

TEST(ProcessGroup, WaitsUntilAskedToStopAndStopsWhenDestroyed) {
  pid_t pid = -1;
  {
    ProcessGroup group;
    EXPECT_FALSE(group.wait_any([] { return false; }));  // no child: returns at once
    ASSERT_TRUE(group.spawn("/bin/sleep", {"sleep", "30"}, ""));
    pid = group.pid(0);
    int polls = 0;
    EXPECT_FALSE(group.wait_any([&] { return ++polls == 3; }, 1ms));
    EXPECT_EQ(polls, 3);
    EXPECT_TRUE(group.running(0));
  }
  EXPECT_TRUE(gone(pid));
}

TEST(ProcessGroup, AppendsOutputToItsFile) {
  TempDir tmp;
  const std::string output = tmp / "node.log";
  std::ofstream(output) << "earlier\n";
  ProcessGroup group;
  // Standard input is /dev/null: read gets end of file at once.
  ASSERT_TRUE(shell(group, "echo out; echo err >&2; if read line; then echo input; else echo eof; fi", output));
  const std::optional<ChildExit> ended = wait_bounded(group);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->clean()) << ended->describe();
  EXPECT_EQ(read_text(output), "earlier\nout\nerr\neof\n");

  const std::string fresh = tmp / "fresh.log";
  ASSERT_TRUE(shell(group, "echo hello", fresh));
  ASSERT_TRUE(wait_bounded(group));
  EXPECT_EQ(read_text(fresh), "hello\n");
  EXPECT_EQ(file_mode(fresh), 0600u);
}

TEST(ProcessGroup, ReportsWhatCannotBeStarted) {
  TempDir tmp;
  ProcessGroup group;
  const auto missing = group.spawn(tmp / "no-such-program", {"x"}, "");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Errc::io_error);
  EXPECT_NE(missing.error().reason.find("no-such-program"), std::string::npos) << missing.error().reason;
  EXPECT_NE(missing.error().reason.find("No such file"), std::string::npos) << missing.error().reason;

  const auto no_args = group.spawn("/bin/sh", {}, "");
  ASSERT_FALSE(no_args);
  EXPECT_EQ(no_args.error().code, Errc::invalid_argument);

  const auto bad_output = group.spawn("/bin/sh", {"sh", "-c", "true"}, tmp / "missing/out.log");
  ASSERT_FALSE(bad_output);
  EXPECT_EQ(bad_output.error().code, Errc::io_error);
  EXPECT_NE(bad_output.error().reason.find("missing/out.log"), std::string::npos) << bad_output.error().reason;
  EXPECT_EQ(group.size(), 0u);
}

TEST(ProcessGroup, KillsOneChildAndReapsIt) {
  ProcessGroup group;
  ASSERT_TRUE(group.spawn("/bin/sleep", {"sleep", "30"}, ""));
  ASSERT_TRUE(group.spawn("/bin/sleep", {"sleep", "30"}, ""));
  ASSERT_TRUE(group.kill_and_reap(0, SIGKILL));
  EXPECT_FALSE(group.running(0));
  EXPECT_TRUE(group.running(1));
  EXPECT_NE(group.exit(0)->describe().find("signal 9"), std::string::npos) << group.exit(0)->describe();
  EXPECT_TRUE(group.kill_and_reap(0, SIGKILL));  // already ended: nothing to do
  EXPECT_FALSE(group.kill_and_reap(5, SIGKILL));
  group.stop();
}

}  // namespace
}  // namespace sion::base
