#include "sion/crypto/verify_cache.hpp"

#include <cstring>

#include "sion/base/random.hpp"
#include "sion/crypto/sha2.hpp"

namespace sion::crypto {
namespace {
constexpr std::string_view kCacheTag = "sion/verify-cache/v1";
constexpr std::string_view kSignatureDigestTag = "sion/signature-bundle/v1";
}  // namespace

std::size_t VerifyCache::KeyHash::operator()(const Key& key) const noexcept {
  // Keys are already uniform hashes; any 8 bytes of them will do.
  std::size_t h;
  std::memcpy(&h, key.data() + 8, sizeof(h));
  return h;
}

VerifyCache::VerifyCache(std::size_t capacity)
    : capacity_per_shard_(capacity / kShards > 0 ? capacity / kShards : 1), shards_(new Shard[kShards]) {
  // If the OS has no randomness the salt stays zero: the cache still works,
  // it is just not hardened against precomputed collisions.
  (void)base::random_bytes(salt_);
}

Hash256 VerifyCache::signature_digest(const SignatureBundle& signatures) {
  Sha256 h;
  h.update(base::as_bytes(kSignatureDigestTag));
  h.update(codec::encode(signatures));
  return h.finalize();
}

VerifyCache::Key VerifyCache::key(const Hash256& bundle_id, const Hash256& signature_digest, base::ByteView message,
                                  base::ByteView context) const noexcept {
  Sha256 h;
  h.update(base::as_bytes(kCacheTag));
  h.update(salt_);
  h.update(bundle_id);
  h.update(signature_digest);
  const std::uint8_t context_length = static_cast<std::uint8_t>(context.size());
  h.update({&context_length, 1});
  h.update(context);
  h.update(message);
  return h.finalize();
}

bool VerifyCache::contains(const Key& key) {
  Shard& shard = shard_for(key);
  std::lock_guard lock(shard.mutex);
  auto it = shard.index.find(key);
  if (it == shard.index.end()) {
    misses_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  shard.order.splice(shard.order.begin(), shard.order, it->second);
  hits_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void VerifyCache::insert(const Key& key) {
  Shard& shard = shard_for(key);
  std::lock_guard lock(shard.mutex);
  if (auto it = shard.index.find(key); it != shard.index.end()) {
    shard.order.splice(shard.order.begin(), shard.order, it->second);
    return;
  }
  if (shard.index.size() >= capacity_per_shard_) {
    shard.index.erase(shard.order.back());
    shard.order.pop_back();
  }
  shard.order.push_front(key);
  shard.index.emplace(key, shard.order.begin());
}

std::size_t VerifyCache::size() const {
  std::size_t total = 0;
  for (std::size_t i = 0; i < kShards; ++i) {
    std::lock_guard lock(shards_[i].mutex);
    total += shards_[i].index.size();
  }
  return total;
}

bool verify_bundle_cached(VerifyCache& cache, const KeyBundleRef& keys, base::ByteView message, base::ByteView context,
                          const SignatureBundle& signatures, const Hash256& signature_digest) noexcept {
  if (context.size() > kMaxContextBytes) return false;
  const VerifyCache::Key key = cache.key(keys.id(), signature_digest, message, context);
  try {
    if (cache.contains(key)) return true;
    if (!verify_bundle(keys, message, context, signatures)) return false;
    cache.insert(key);
  } catch (const std::bad_alloc&) {
    // The cache could not grow; the verification result still stands.
    return verify_bundle(keys, message, context, signatures);
  }
  return true;
}

}  // namespace sion::crypto
