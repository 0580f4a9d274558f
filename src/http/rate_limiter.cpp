#include "rate_limiter.hpp"

#include <algorithm>

namespace sion::http::detail {

namespace {
// Buckets kept before full (idle) ones are forgotten.
constexpr std::size_t kMaxBuckets = 65'536;
}  // namespace

void RateLimiter::refill(Bucket& bucket, std::chrono::steady_clock::time_point now) const {
  const std::uint64_t capacity = std::uint64_t{limit_.burst == 0 ? limit_.requests_per_second : limit_.burst} * 1000;
  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(now - bucket.updated).count();
  if (elapsed <= 0) return;
  // requests_per_second tokens a second = requests_per_second milli-tokens a millisecond.
  const std::uint64_t added = static_cast<std::uint64_t>(elapsed) * limit_.requests_per_second / 1000;
  if (added == 0) return;
  bucket.milli_tokens = std::min(capacity, bucket.milli_tokens + added);
  bucket.updated = now;
}

bool RateLimiter::allow(const std::string& address, bool loopback, std::chrono::steady_clock::time_point now) {
  if (limit_.requests_per_second == 0 || (loopback && limit_.exempt_loopback)) return true;
  const std::uint64_t capacity = std::uint64_t{limit_.burst == 0 ? limit_.requests_per_second : limit_.burst} * 1000;
  std::lock_guard lock(mutex_);
  auto it = buckets_.find(address);
  if (it == buckets_.end()) {
    if (buckets_.size() >= kMaxBuckets) {
      for (auto old = buckets_.begin(); old != buckets_.end();) {
        refill(old->second, now);
        old = old->second.milli_tokens >= capacity ? buckets_.erase(old) : std::next(old);
      }
    }
    it = buckets_.emplace(address, Bucket{capacity, now}).first;
  } else {
    refill(it->second, now);
  }
  if (it->second.milli_tokens < 1000) return false;
  it->second.milli_tokens -= 1000;
  return true;
}

}  // namespace sion::http::detail
