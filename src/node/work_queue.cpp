#include "sion/node/work_queue.hpp"

#include <utility>

#include "sion/base/thread_name.hpp"

namespace sion::node {

WorkQueue::WorkQueue(unsigned threads, std::size_t max_queued, std::string thread_name)
    : max_queued_(max_queued == 0 ? 1 : max_queued) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) {
    threads_.emplace_back([this, thread_name] {
      base::name_this_thread(thread_name);
      run();
    });
  }
}

WorkQueue::~WorkQueue() { stop(); }

bool WorkQueue::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void WorkQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

std::size_t WorkQueue::queued() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

void WorkQueue::run() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left to run
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace sion::node
