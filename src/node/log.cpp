#include "sion/node/log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <map>
#include <mutex>
#include <utility>

namespace sion::node {
namespace {

// The process's loggers. Each writes into `root`, whose one child is the
// configured destination: reconfiguring swaps that child, so loggers handed
// out earlier follow.
struct Registry {
  std::mutex mutex;
  std::shared_ptr<spdlog::sinks::dist_sink_mt> root;
  spdlog::level::level_enum level = spdlog::level::info;
  std::map<std::string, std::shared_ptr<spdlog::logger>, std::less<>> loggers;

  Registry() : root(std::make_shared<spdlog::sinks::dist_sink_mt>()) {
    root->set_sinks({formatted(std::make_shared<spdlog::sinks::stderr_sink_mt>())});
  }

  static std::shared_ptr<spdlog::sinks::sink> formatted(std::shared_ptr<spdlog::sinks::sink> sink) {
    sink->set_formatter(
        std::make_unique<spdlog::pattern_formatter>(std::string(kLogPattern), spdlog::pattern_time_type::utc));
    return sink;
  }
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

spdlog::level::level_enum to_spdlog(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::trace: return spdlog::level::trace;
    case LogLevel::debug: return spdlog::level::debug;
    case LogLevel::info: return spdlog::level::info;
    case LogLevel::warn: return spdlog::level::warn;
    case LogLevel::error: return spdlog::level::err;
    case LogLevel::off: return spdlog::level::off;
  }
  return spdlog::level::info;
}

base::Status setup_logging(const LogConfig& config, std::shared_ptr<spdlog::sinks::sink> sink) {
  if (!sink) {
    if (config.file) {
      try {
        sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(*config.file, false);
      } catch (const std::exception& e) {
        return base::fail(base::Errc::io_error, "cannot open log file '" + *config.file + "': " + e.what());
      }
    } else {
      sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    }
  }
  {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    r.level = to_spdlog(config.level);
    r.root->set_sinks({Registry::formatted(std::move(sink))});
    for (auto& entry : r.loggers) entry.second->set_level(r.level);
  }
  // spdlog::info() and the like, from code that names no component, go to
  // the same place as "node".
  spdlog::set_default_logger(component_logger("node"));
  return {};
}

std::shared_ptr<spdlog::logger> component_logger(std::string_view component) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  const auto it = r.loggers.find(component);
  if (it != r.loggers.end()) return it->second;
  auto logger = std::make_shared<spdlog::logger>(std::string(component), r.root);
  logger->set_level(r.level);
  // Every line reaches the file at once: an operator tails it, and a crash
  // must not lose the lines before it.
  logger->flush_on(spdlog::level::trace);
  r.loggers.emplace(std::string(component), logger);
  return logger;
}

}  // namespace sion::node
