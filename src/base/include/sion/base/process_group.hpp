#pragma once
// Child processes run and stopped together: `sion devnet --validators N`
// runs one `sion node` per validator and supervises them by pid, and so do
// the bench and the fault tests.
//
// Each child runs in a process group of its own, so a Ctrl-C at the
// terminal reaches only the supervisor, which then stops every child the
// same way (SIGTERM, a grace period, SIGKILL). A child also gets SIGTERM if
// the thread that started it dies (Linux PR_SET_PDEATHSIG): a supervisor
// killed outright leaves no orphaned node running. Children are reaped by
// pid only, never with waitpid(-1), so other children of the process are
// left alone.

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sion/base/result.hpp"

namespace sion::base {

// How a child ended, as waitpid(2) reported it.
struct ChildExit {
  std::size_t index = 0;  // in the order spawned
  pid_t pid = -1;
  std::optional<int> wait_status;  // none: it was reaped elsewhere (SIGCHLD ignored)
  bool killed = false;             // true: it outlived the grace period and was sent SIGKILL

  // "exited with status 3", "was killed by signal 9 (Killed)".
  std::string describe() const;
  // True if it exited with status 0 or ended by the SIGTERM it was sent.
  bool clean() const noexcept;
};

class ProcessGroup {
 public:
  ProcessGroup() = default;
  // Stops the children still running (stop() with the default grace).
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  static constexpr std::chrono::milliseconds kDefaultGrace{10'000};

  // Runs `program` with `args` (args[0] is the name it sees), its standard
  // input from /dev/null and its standard output and error appended to
  // `output_file` (created mode 0600 if missing; empty: /dev/null). Returns
  // its index. Errors: invalid_argument for no args, io_error naming the
  // program or the file when it cannot be started (exec failures included,
  // reported here rather than as an exit status).
  Result<std::size_t> spawn(const std::string& program, const std::vector<std::string>& args,
                            const std::string& output_file);

  std::size_t size() const noexcept { return children_.size(); }
  pid_t pid(std::size_t index) const { return children_.at(index).pid; }
  bool running(std::size_t index) const { return !children_.at(index).exit.has_value(); }
  std::size_t running_count() const noexcept;
  // How the child ended; nullopt while it runs.
  const std::optional<ChildExit>& exit(std::size_t index) const { return children_.at(index).exit; }

  // Waits until a child ends (returning how) or `should_stop()` is true
  // (nullopt), checking both every `poll`. Returns nullopt at once if no
  // child runs.
  std::optional<ChildExit> wait_any(const std::function<bool()>& should_stop,
                                    std::chrono::milliseconds poll = std::chrono::milliseconds(50));

  // Sends `signal_number` to child `index` and waits until it has ended (a
  // fault test's SIGKILL). Nothing for a child already ended.
  Status kill_and_reap(std::size_t index, int signal_number);

  // Sends SIGTERM to every running child, waits up to `grace` for all of
  // them, then sends SIGKILL to those still running and reaps them. Returns
  // how each of those children ended, in index order.
  std::vector<ChildExit> stop(std::chrono::milliseconds grace = kDefaultGrace);

 private:
  struct Child {
    pid_t pid = -1;
    std::optional<ChildExit> exit;
  };
  // Reaps child `index` if it has ended (blocking: waits until it does).
  bool reap(std::size_t index, bool block);

  std::vector<Child> children_;
};

}  // namespace sion::base
