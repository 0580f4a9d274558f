#pragma once
// A thread-safe LRU cache of successful signature-bundle verifications (the
// Quasar seed's signature cache): a transaction seen in the mempool is not
// checked again when its Pulse executes.
//
// Entries are keyed by
//   SHA-256("sion/verify-cache/v1" || salt || bundle id || signature digest
//           || len(ctx) || ctx || message)
// where the salt is drawn at start-up, so nobody outside this process can
// aim a collision at a cached entry, and the signature digest is SHA-256 of
// the signature bundle's encoding. SHA-256 rather than SHA3-256 because
// the SHA extensions make it several times faster on ~20 KB of signatures;
// the cache is local, so the choice is not part of consensus. Callers that already hash a
// transaction's signatures (its witness id) pass that digest in, and a hit
// then costs one short hash and a lookup instead of re-hashing ~20 KB.
// Only successes are cached: a failure is cheap to repeat and caching it
// would let an attacker fill the cache.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "sion/crypto/bundle.hpp"

namespace sion::crypto {

class VerifyCache {
 public:
  using Key = Hash256;

  // At most `capacity` entries (about 120 bytes each), split over shards
  // that lock independently.
  explicit VerifyCache(std::size_t capacity = 1u << 16);

  static Hash256 signature_digest(const SignatureBundle& signatures);

  Key key(const Hash256& bundle_id, const Hash256& signature_digest, base::ByteView message,
          base::ByteView context) const noexcept;

  // True if present (and marks it most recently used).
  bool contains(const Key& key);
  void insert(const Key& key);

  std::size_t size() const;
  std::uint64_t hits() const noexcept { return hits_.load(std::memory_order_relaxed); }
  std::uint64_t misses() const noexcept { return misses_.load(std::memory_order_relaxed); }

 private:
  struct KeyHash {
    std::size_t operator()(const Key& key) const noexcept;
  };
  struct Shard {
    mutable std::mutex mutex;
    std::list<Key> order;  // most recently used first
    std::unordered_map<Key, std::list<Key>::iterator, KeyHash> index;
  };
  static constexpr std::size_t kShards = 16;

  Shard& shard_for(const Key& key) noexcept { return shards_[key[0] % kShards]; }

  std::size_t capacity_per_shard_;
  base::ByteArray<32> salt_{};
  std::unique_ptr<Shard[]> shards_;
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> misses_{0};
};

// verify_bundle() through the cache: a hit skips the signature checks; a
// successful check is remembered. `signature_digest` must be
// VerifyCache::signature_digest(signatures) (or the same value computed
// earlier); anything else only causes misses.
// The cache is keyed by the bundle id, which KeyBundleRef ties to the keys.
bool verify_bundle_cached(VerifyCache& cache, const KeyBundleRef& keys, base::ByteView message, base::ByteView context,
                          const SignatureBundle& signatures, const Hash256& signature_digest) noexcept;

}  // namespace sion::crypto
