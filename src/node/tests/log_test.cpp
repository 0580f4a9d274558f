#include "sion/node/log.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "sion/base/testing/temp_dir.hpp"

namespace sion::node {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

LogConfig at(LogLevel level) { return LogConfig{.level = level, .file = std::nullopt}; }

// Restores the default (standard error, info) after each test.
class Log : public ::testing::Test {
 protected:
  void TearDown() override { ASSERT_TRUE(setup_logging(LogConfig{})); }
};

TEST_F(Log, LevelFiltersAndEveryLineHasTimeLevelAndComponent) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  ASSERT_TRUE(setup_logging(at(LogLevel::info), sink));
  auto mempool = component_logger("mempool");
  mempool->debug("hidden {}", 1);
  mempool->info("admitted {} transactions", 3);
  component_logger("api")->warn("slow request");
  component_logger("store")->error("disk full");
  spdlog::info("from the default logger");
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 4u) << out.str();
  const std::regex format(
      R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z (info |warning|error) \[(mempool|api|store|node)\] .+$)");
  for (const std::string& line : lines) EXPECT_TRUE(std::regex_match(line, format)) << line;
  EXPECT_NE(lines[0].find("info  [mempool] admitted 3 transactions"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("warning [api] slow request"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("error [store] disk full"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("info  [node] from the default logger"), std::string::npos) << lines[3];
}

TEST_F(Log, ReconfiguringReachesLoggersMadeBefore) {
  auto node = component_logger("node");
  std::ostringstream first;
  ASSERT_TRUE(setup_logging(at(LogLevel::error), std::make_shared<spdlog::sinks::ostream_sink_mt>(first)));
  node->warn("not shown");
  node->error("shown");
  std::ostringstream second;
  ASSERT_TRUE(setup_logging(at(LogLevel::trace), std::make_shared<spdlog::sinks::ostream_sink_mt>(second)));
  node->trace("traced");
  ASSERT_TRUE(setup_logging(at(LogLevel::off), std::make_shared<spdlog::sinks::ostream_sink_mt>(second)));
  node->error("off");
  EXPECT_EQ(lines_of(first.str()).size(), 1u) << first.str();
  EXPECT_NE(first.str().find("[node] shown"), std::string::npos);
  EXPECT_EQ(lines_of(second.str()).size(), 1u) << second.str();
  EXPECT_NE(second.str().find("trace [node] traced"), std::string::npos);
  EXPECT_EQ(component_logger("node"), node);  // one logger per component
}

TEST_F(Log, WritesToTheConfiguredFile) {
  base::testing::TempDir dir;
  const std::string path = dir / "node.log";
  std::ofstream(path) << "earlier line\n";
  ASSERT_TRUE(setup_logging({.level = LogLevel::debug, .file = path}));
  component_logger("node")->debug("started");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const auto lines = lines_of(text.str());
  ASSERT_EQ(lines.size(), 2u) << text.str();  // appended, flushed at once
  EXPECT_EQ(lines[0], "earlier line");
  EXPECT_NE(lines[1].find("debug [node] started"), std::string::npos) << lines[1];

  // A file where its folder should be: the file cannot be opened.
  std::ofstream(dir / "plain") << "x";
  const auto failed = setup_logging({.level = LogLevel::info, .file = dir / "plain/x.log"});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, base::Errc::io_error);
  EXPECT_NE(failed.error().reason.find("plain/x.log"), std::string::npos) << failed.error().reason;
}

}  // namespace
}  // namespace sion::node
