#pragma once
// A bounded queue of jobs run by threads the queue owns: where the node
// puts work that must not run on the HTTP threads (signature checks on
// admission). A full queue refuses new jobs at once, so a flood of
// submissions is answered "busy" instead of queueing without bound.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sion::node {

class WorkQueue {
 public:
  using Job = std::function<void()>;

  WorkQueue(unsigned threads, std::size_t max_queued, std::string thread_name);
  ~WorkQueue();  // stop()
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // False (and the job dropped unrun) when the queue is full or stopped.
  bool submit(Job job);
  // Runs what is queued, then joins the threads. Idempotent.
  void stop();

  std::size_t queued() const;

 private:
  void run();

  const std::size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace sion::node
