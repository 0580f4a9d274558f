#pragma once
// Token buckets per client address (docs/http.md, "Rate limiting"), in
// integer milli-tokens so refills never round through floating point.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "sion/http/options.hpp"

namespace sion::http::detail {

class RateLimiter {
 public:
  explicit RateLimiter(RateLimit limit) : limit_(limit) {}
  // Takes a token for `address`; false when its bucket is empty.
  bool allow(const std::string& address, bool loopback, std::chrono::steady_clock::time_point now);

 private:
  struct Bucket {
    std::uint64_t milli_tokens = 0;
    std::chrono::steady_clock::time_point updated{};
  };
  void refill(Bucket& bucket, std::chrono::steady_clock::time_point now) const;

  const RateLimit limit_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace sion::http::detail
