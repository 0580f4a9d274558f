#pragma once
// The `sion` command line: parses the arguments, runs the command, and turns
// every error into a message on standard error and an exit code.

namespace sion::cli {

enum class ExitCode : int {
  ok = 0,
  failure = 1,  // the command failed at run time (I/O, a failing measurement, a failed vector)
  usage = 2,    // the command line or its input is wrong (unknown option or group, a file that cannot
                //  be run, bytes that are not a transaction)
};

// main() of `sion`: returns an ExitCode. No exception leaves it.
int run(int argc, const char* const* argv) noexcept;

}  // namespace sion::cli
