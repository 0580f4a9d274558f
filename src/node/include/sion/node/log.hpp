#pragma once
// The process's log (docs/node-config.md, "[log]"): one line per event,
//
//   2026-12-04T13:50:36.123Z info  [mempool] admitted 3 transactions
//
// a UTC timestamp to the millisecond, the level and the component that
// wrote it. Every component logger writes through one sink, standard error
// or the [log] file, and filters at the one configured level. Loggers are
// spdlog loggers; they may be used from any thread.

#include <memory>
#include <string>
#include <string_view>

#include <spdlog/logger.h>
#include <spdlog/sinks/sink.h>

#include "sion/base/result.hpp"
#include "sion/node/config.hpp"

namespace sion::node {

// The pattern of every line (spdlog's flags; times in UTC).
inline constexpr std::string_view kLogPattern = "%Y-%m-%dT%H:%M:%S.%eZ %-5l [%n] %v";

// Sends every component logger, those made before and after, to the
// configured destination (the file opened for appending, created if
// missing) at the configured level. `sink`, if given, replaces the
// destination (tests). spdlog's default logger (spdlog::info() and the
// like) becomes the "node" logger. io_error when the file cannot be opened;
// the previous destination is then kept.
base::Status setup_logging(const LogConfig& config, std::shared_ptr<spdlog::sinks::sink> sink = nullptr);

// The logger of `component` ("node", "api", "mempool", "store", ...), made
// on first use. Before setup_logging, loggers write to standard error at
// level info.
std::shared_ptr<spdlog::logger> component_logger(std::string_view component);

// The spdlog level of a LogLevel.
spdlog::level::level_enum to_spdlog(LogLevel level) noexcept;

}  // namespace sion::node
