#pragma once
// The wallet's transport bound to the http layer's client: an HttpCall to a
// node's URL, and a reader of its event stream for the load generator. The
// rest of the wallet speaks only HttpCall, so its tests run on a fake.

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "sion/base/result.hpp"
#include "sion/wallet/http_call.hpp"
#include "sion/wallet/load.hpp"

namespace sion::wallet {

// An HttpCall over one HTTP client of `url`; the client connects on first
// use. invalid_argument for a URL that is not http://host[:port].
base::Result<HttpCall> http_call_for(const std::string& url);

// Reads `transaction` events of the node's GET /v1/events on its own thread
// and queues each executed or removed transaction, stamped on the run's
// clock. The thread ends when the stream does or the follower is destroyed.
class EventFollower {
 public:
  static base::Result<std::unique_ptr<EventFollower>> start(const std::string& url, ObservedQueue& queue,
                                                            LoadClock& clock);
  ~EventFollower();
  EventFollower(const EventFollower&) = delete;
  EventFollower& operator=(const EventFollower&) = delete;

 private:
  EventFollower() = default;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace sion::wallet
