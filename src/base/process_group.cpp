#include "sion/base/process_group.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "sion/base/file.hpp"

namespace sion::base {
namespace {

using base::quoted_path;

base::Failure system_error(const std::string& what) { return fail(Errc::io_error, what + ": " + std::strerror(errno)); }

// Makes `from` the descriptor `to`, open across exec.
bool move_fd(int from, int to) {
  // dup2 onto itself would keep FD_CLOEXEC.
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) == to;
}

// The child between fork and exec: async-signal-safe calls only (the parent
// may have other threads, whose locks a fork copies held). On failure, the
// errno goes to the parent through `report`, which exec closes on success.
[[noreturn]] void run_child(const char* program, char* const* argv, int input, int output, int report, pid_t parent) {
  // Its own process group: a terminal's Ctrl-C goes to the supervisor only.
  ::setpgid(0, 0);
  // Stopped if the supervisor dies; it may have died before this call.
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent) ::_exit(127);
  // A clean start: the supervisor's handlers and ignored signals are not the
  // program's, and the parent blocked every signal around fork.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) ::sigaction(signal, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (move_fd(input, STDIN_FILENO) && move_fd(output, STDOUT_FILENO) && move_fd(output, STDERR_FILENO)) {
    ::execv(program, argv);
  }
  const int error = errno;
  [[maybe_unused]] const ssize_t written = ::write(report, &error, sizeof error);
  ::_exit(127);
}

// Blocks every signal in this thread while it lives: a signal arriving
// between fork and exec would otherwise run the supervisor's handler in the
// child and be lost.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, &old_);
  }
  ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t old_{};
};

}  // namespace

std::string ChildExit::describe() const {
  std::string text;
  if (!wait_status) {
    text = "ended (its exit status was collected elsewhere)";
  } else if (WIFEXITED(*wait_status)) {
    text = "exited with status " + std::to_string(WEXITSTATUS(*wait_status));
  } else if (WIFSIGNALED(*wait_status)) {
    const int signal = WTERMSIG(*wait_status);
    text = "was killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
  } else {
    text = "ended with wait status " + std::to_string(*wait_status);
  }
  if (killed) text += " after not stopping within the grace period";
  return text;
}

bool ChildExit::clean() const noexcept {
  if (!wait_status || killed) return false;
  return (WIFEXITED(*wait_status) && WEXITSTATUS(*wait_status) == 0) ||
         (WIFSIGNALED(*wait_status) && WTERMSIG(*wait_status) == SIGTERM);
}

ProcessGroup::~ProcessGroup() { stop(); }

Result<std::size_t> ProcessGroup::spawn(const std::string& program, const std::vector<std::string>& args,
                                        const std::string& output_file) {
  if (args.empty()) return fail(Errc::invalid_argument, "no arguments for " + quoted_path(program));
  // Everything the child uses is made before fork.
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const base::FileDescriptor input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!input.valid()) return system_error("cannot open /dev/null");
  const std::string output_path = output_file.empty() ? std::string("/dev/null") : output_file;
  const base::FileDescriptor output(
      ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0600));
  if (!output.valid()) return system_error("cannot open " + quoted_path(output_path));
  int report_ends[2];
  if (::pipe2(report_ends, O_CLOEXEC) != 0) return system_error("cannot make a pipe");
  const base::FileDescriptor report_read(report_ends[0]);
  base::FileDescriptor report_write(report_ends[1]);

  pid_t pid = -1;
  {
    const SignalsBlocked blocked;
    const pid_t parent = ::getpid();
    pid = ::fork();
    if (pid == 0) run_child(program.c_str(), argv.data(), input.get(), output.get(), report_write.get(), parent);
  }
  if (pid < 0) return system_error("cannot start " + quoted_path(program));
  report_write.close();

  // Nothing to read: exec succeeded and closed the pipe.
  int child_errno = 0;
  ssize_t got = 0;
  do {
    got = ::read(report_read.get(), &child_errno, sizeof child_errno);
  } while (got < 0 && errno == EINTR);
  children_.push_back({pid, {}});
  const std::size_t index = children_.size() - 1;
  if (got == static_cast<ssize_t>(sizeof child_errno)) {
    reap(index, true);
    children_.pop_back();
    return fail(Errc::io_error, "cannot run " + quoted_path(program) + ": " + std::strerror(child_errno));
  }
  return index;
}

std::size_t ProcessGroup::running_count() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(children_.begin(), children_.end(), [](const Child& child) { return !child.exit; }));
}

bool ProcessGroup::reap(std::size_t index, bool block) {
  Child& child = children_[index];
  if (child.exit) return true;
  int status = 0;
  pid_t got = -1;
  do {
    got = ::waitpid(child.pid, &status, block ? 0 : WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got == 0) return false;
  ChildExit exit;
  exit.index = index;
  exit.pid = child.pid;
  // ECHILD: reaped by someone else (SIGCHLD ignored, or waitpid(-1) elsewhere).
  if (got == child.pid) exit.wait_status = status;
  child.exit = exit;
  return true;
}

Status ProcessGroup::kill_and_reap(std::size_t index, int signal_number) {
  if (index >= children_.size()) return fail(Errc::invalid_argument, "no child " + std::to_string(index));
  if (children_[index].exit) return {};
  if (::kill(children_[index].pid, signal_number) != 0 && errno != ESRCH) {
    return fail(Errc::io_error,
                "cannot signal process " + std::to_string(children_[index].pid) + ": " + std::strerror(errno));
  }
  reap(index, true);
  return {};
}

std::optional<ChildExit> ProcessGroup::wait_any(const std::function<bool()>& should_stop,
                                                std::chrono::milliseconds poll) {
  while (true) {
    bool any_running = false;
    for (std::size_t i = 0; i < children_.size(); ++i) {
      if (children_[i].exit) continue;
      if (reap(i, false)) return children_[i].exit;
      any_running = true;
    }
    if (!any_running || (should_stop && should_stop())) return std::nullopt;
    std::this_thread::sleep_for(poll);
  }
}

std::vector<ChildExit> ProcessGroup::stop(std::chrono::milliseconds grace) {
  std::vector<std::size_t> stopping;
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (children_[i].exit) continue;
    ::kill(children_[i].pid, SIGTERM);
    stopping.push_back(i);
  }
  // Signalled together, so one deadline gives each child the whole grace.
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (true) {
    bool all_ended = true;
    for (const std::size_t i : stopping) all_ended = reap(i, false) && all_ended;
    const auto now = std::chrono::steady_clock::now();
    if (all_ended || now >= deadline) break;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(20), deadline - now));
  }
  std::vector<ChildExit> ended;
  for (const std::size_t i : stopping) {
    if (!children_[i].exit) {
      ::kill(children_[i].pid, SIGKILL);
      reap(i, true);
      children_[i].exit->killed = true;
    }
    ended.push_back(*children_[i].exit);
  }
  return ended;
}

}  // namespace sion::base
