// SLH-DSA (FIPS 205). Section and algorithm numbers below are FIPS 205's
// unless marked otherwise.
//
// Structure: the tweakable hash functions of Sec. 11 (ShakeHashes,
// Sha2Hashes) under one engine template, Slh<set>, that holds Sec. 5-9
// with every parameter a compile-time constant. The public functions at the
// bottom check lengths and dispatch on the key's parameter set.
//
// Speed: the algorithms are written in batches of independent hashes (all
// WOTS+ chains of 16 XMSS leaves at once, a whole level of a Merkle tree,
// all FORS leaves of a tree, the len chains and the k FORS paths of a
// verification). Sha2Hashes runs a batch on the SHA-2 kernels chosen once
// per operation from cpu_features() (Sha2Kernels): 16 AVX-512 lanes or 8
// AVX2 lanes (slhdsa_x86.cpp, which keeps a WOTS+ chain in registers for
// all its steps), two interleaved SHA-NI streams, or one portable hash at a
// time. Every path computes the same bytes; the tests run the ACVP vectors
// on each. Keygen and signing build every tree level by level in a heap
// workspace (SlhWorkspace) instead of the node-by-node stack of Alg. 9.
//
// Side channels: keygen and signing branch and index memory only on public
// values: tree, leaf and FORS indices come from H_msg of the message and R,
// which the signature publishes, and WOTS+ digits come from the message or
// from tree roots that a verifier recomputes from the signature. Which
// lanes a kernel masks, and how batches are ordered and split, follow from
// those alone. The constant-time check (tests/ct, sion/base/ct.hpp) marks
// SK.seed, SK.prf and opt_rand secret; base::ct_public declassifies, where
// they are computed, exactly those public values: PK.root, R, the public
// key inside the secret key, the FORS public key and each XMSS root. Named secret buffers (the key during keygen, the SK.seed
// words, the SHA2 PRF blocks, HMAC and SHAKE states, one-block hashes' input
// blocks) are wiped when done; transient copies on the stack or in
// registers inside the hash functions are not.

#include "sion/crypto/slhdsa.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "sion/base/cpu.hpp"
#include "sion/base/ct.hpp"
#include "sion/base/endian.hpp"
#include "sion/crypto/detail/sha2_x86.hpp"
#include "sion/crypto/detail/slhdsa_x86.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/crypto/sha2.hpp"

namespace sion::crypto::slhdsa {
namespace {

using base::Bytes;
using base::ByteView;

// M given as the concatenation of its pieces, so that the external
// interface can sign 0x00 || len(ctx) || ctx || M without copying M.
using MessageParts = std::span<const ByteView>;

// Words are big-endian for SHA-2 (FIPS 180-4, Sec. 3.1) and ADRS (Sec. 4.2),
// little-endian for Keccak lanes (FIPS 202, Sec. B.1): sion/base/endian.hpp.
using base::load_be;
using base::load_le;
using base::store_be;
using base::store_le;

// toInt (Alg. 2) for at most 8 bytes.
inline std::uint64_t to_int(const std::uint8_t* x, std::size_t len) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < len; ++i) v = (v << 8) | x[i];
  return v;
}

// base_2b (Alg. 4): the first out_len base-2^b digits of x, most significant
// first. Only the low b + 7 bits of `total` are ever read, so a 32-bit
// accumulator is exact for every b <= 24 (SLH-DSA uses b = lg_w = 4 and
// b = a <= 14).
inline void base_2b(const std::uint8_t* x, unsigned b, std::size_t out_len, std::uint32_t* out) noexcept {
  std::size_t in = 0;
  unsigned bits = 0;
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < out_len; ++i) {
    while (bits < b) {
      total = (total << 8) | x[in++];
      bits += 8;
    }
    bits -= b;
    out[i] = (total >> bits) & ((std::uint32_t{1} << b) - 1);
  }
}

// Fixed-size storage for secret-derived bytes, wiped when it goes out of scope.
template <std::size_t N>
class SecretBuffer {
 public:
  SecretBuffer() noexcept = default;
  SecretBuffer(const SecretBuffer&) = delete;
  SecretBuffer& operator=(const SecretBuffer&) = delete;
  ~SecretBuffer() { base::secure_wipe(bytes_.data(), N); }
  std::uint8_t* data() noexcept { return bytes_.data(); }

 private:
  std::array<std::uint8_t, N> bytes_;
};

// ---------------------------------------------------------------------------
// ADRS (Sec. 4.2 and 4.3)

enum class AdrsType : std::uint32_t {
  wots_hash = 0,
  wots_pk = 1,
  tree = 2,
  fors_tree = 3,
  fors_roots = 4,
  wots_prf = 5,
  fors_prf = 6,
};

// The address, kept as its fields and serialised per hash call: in full (32
// bytes, Sec. 4.2) for SHAKE, compressed (22 bytes, ADRSc of Sec. 11.2) for
// SHA2. The member functions are those of Table 1; the three words after the
// type are key pair address, chain address / tree height and hash address /
// tree index. The tree address is 12 bytes in ADRS, but idx_tree < 2^64 for
// every parameter set (h - h' <= 64), so its top 4 bytes are always zero.
class Adrs {
 public:
  static constexpr std::size_t kFullBytes = 32;
  static constexpr std::size_t kCompressedBytes = 22;

  void set_layer_address(std::uint32_t layer) noexcept { layer_ = layer; }
  void set_tree_address(std::uint64_t tree) noexcept { tree_ = tree; }
  void set_type_and_clear(AdrsType type) noexcept {
    type_ = type;
    key_pair_ = 0;
    chain_or_height_ = 0;
    hash_or_index_ = 0;
  }
  void set_key_pair_address(std::uint32_t i) noexcept { key_pair_ = i; }
  std::uint32_t key_pair_address() const noexcept { return key_pair_; }
  void set_chain_address(std::uint32_t i) noexcept { chain_or_height_ = i; }
  void set_tree_height(std::uint32_t z) noexcept { chain_or_height_ = z; }
  void set_hash_address(std::uint32_t i) noexcept { hash_or_index_ = i; }
  void set_tree_index(std::uint32_t i) noexcept { hash_or_index_ = i; }
  std::uint32_t tree_index() const noexcept { return hash_or_index_; }

  void write_full(std::uint8_t* out) const noexcept {
    store_be<std::uint32_t>(out, layer_);
    store_be<std::uint32_t>(out + 4, 0);
    store_be<std::uint64_t>(out + 8, tree_);
    store_be<std::uint32_t>(out + 16, static_cast<std::uint32_t>(type_));
    store_be<std::uint32_t>(out + 20, key_pair_);
    store_be<std::uint32_t>(out + 24, chain_or_height_);
    store_be<std::uint32_t>(out + 28, hash_or_index_);
  }

  // ADRSc = ADRS[3] || ADRS[8:16] || ADRS[19] || ADRS[20:32] (Sec. 11.2).
  void write_compressed(std::uint8_t* out) const noexcept {
    out[0] = static_cast<std::uint8_t>(layer_);
    store_be<std::uint64_t>(out + 1, tree_);
    out[9] = static_cast<std::uint8_t>(type_);
    store_be<std::uint32_t>(out + 10, key_pair_);
    store_be<std::uint32_t>(out + 14, chain_or_height_);
    store_be<std::uint32_t>(out + 18, hash_or_index_);
  }

  // ADRSc as the big-endian 32-bit words of a SHA-256 block: bytes 4i ..
  // 4i + 3 in w[i] for i < 5, and bytes 20-21 in the upper half of w[5].
  void compressed_words(std::uint32_t* w) const noexcept {
    const auto type = static_cast<std::uint32_t>(type_);
    w[0] = ((layer_ & 0xFFU) << 24) | static_cast<std::uint32_t>(tree_ >> 40);
    w[1] = static_cast<std::uint32_t>(tree_ >> 8);
    w[2] = (static_cast<std::uint32_t>(tree_ & 0xFFU) << 24) | ((type & 0xFFU) << 16) | (key_pair_ >> 16);
    w[3] = (key_pair_ << 16) | (chain_or_height_ >> 16);
    w[4] = (chain_or_height_ << 16) | (hash_or_index_ >> 16);
    w[5] = hash_or_index_ << 16;
  }

  // compressed_words as the kernels' rows (slhdsa_x86.hpp): row r at
  // rows[r * stride], six 32-bit rows, or three 64-bit ones for SHA-512.
  template <class Word>
  void compressed_rows(Word* rows, std::size_t stride) const noexcept {
    std::uint32_t w[6];
    compressed_words(w);
    if constexpr (sizeof(Word) == 4) {
      for (std::size_t r = 0; r < 6; ++r) rows[r * stride] = w[r];
    } else {
      for (std::size_t r = 0; r < 3; ++r) {
        rows[r * stride] = (std::uint64_t{w[2 * r]} << 32) | w[2 * r + 1];
      }
    }
  }

 private:
  std::uint32_t layer_ = 0;
  std::uint64_t tree_ = 0;
  AdrsType type_ = AdrsType::wots_hash;
  std::uint32_t key_pair_ = 0;
  std::uint32_t chain_or_height_ = 0;
  std::uint32_t hash_or_index_ = 0;
};

// ---------------------------------------------------------------------------
// Tweakable hash functions (Sec. 4.1), one class per instantiation. An object
// lives for one keygen, signing or verification and holds what every call
// shares: PK.seed (for SHA2 as a compressed midstate) and SK.seed (null when
// verifying). `out` may alias any input.
//
// Besides the single calls, each class has the batch calls the algorithms
// are written in (the multi-hash seams): chains() for WOTS+ chains and FORS
// leaves, h_many() for a level of Merkle-tree nodes, t_many() for WOTS+
// public keys. The batches are independent hashes, so a multi-lane hash
// computes many at once; the portable versions loop over the single calls.

// A batch of WOTS+ chains (chain, Alg. 5), which also serves the FORS leaves
// (Alg. 15 lines 2-5: PRF, then one F). Chain i:
//   x_i = PRF(PK.seed, SK.seed, prf_adrs[i]) if prf_adrs is set, else the n
//         bytes at x + i * n;
//   then steps[i] times x_i = F(PK.seed, adrs[i], x_i), with hash address
//   start[i], start[i] + 1, ... (the rest of adrs[i] as given);
//   x_i is written back to x + i * n.
// For chains capture_first + c, c < capture_count, the chain value at index
// capture_at[c] (after capture_at[c] - start steps) is also written to
// capture + c * n: the WOTS+ signature (Alg. 7) of the leaf being built
// (Alg. 10 needs that leaf's chains anyway for its root).
struct ChainJobs {
  static constexpr std::uint32_t kNoCapture = 0xFFFFFFFFU;

  std::size_t count = 0;
  const Adrs* adrs = nullptr;
  const Adrs* prf_adrs = nullptr;
  const std::uint32_t* start = nullptr;
  const std::uint32_t* steps = nullptr;
  std::uint8_t* x = nullptr;
  std::size_t capture_first = 0;
  std::size_t capture_count = 0;
  const std::uint32_t* capture_at = nullptr;
  std::uint8_t* capture = nullptr;

  // The chain index whose value chain i captures, or kNoCapture.
  std::uint32_t capture_index(std::size_t i) const noexcept {
    const std::size_t c = i - capture_first;  // wraps around for i < capture_first
    return c < capture_count ? capture_at[c] : kNoCapture;
  }
  std::uint8_t* capture_out(std::size_t i, std::size_t n) const noexcept { return capture + (i - capture_first) * n; }
};

// Chain i of `jobs` with single calls, from value x at hash address j (its
// PRF first if `prf`) to its end; the end value goes to jobs.x.
template <std::size_t kN, class Hashes>
void chain_from(const Hashes& hash, const ChainJobs& jobs, std::size_t i, std::uint8_t* x, std::uint32_t j,
                bool prf) noexcept {
  if (prf) hash.prf(jobs.prf_adrs[i], x);
  const std::uint32_t capture = jobs.capture_index(i);
  const std::uint32_t end = jobs.start[i] + jobs.steps[i];
  Adrs adrs = jobs.adrs[i];
  for (;; ++j) {
    if (j == capture) std::memcpy(jobs.capture_out(i, kN), x, kN);
    if (j == end) break;
    adrs.set_hash_address(j);
    hash.f(adrs, x, x);
  }
  std::memmove(jobs.x + i * kN, x, kN);
}

// The batch calls one single call at a time.
template <std::size_t kN, class Hashes>
void chains_one_by_one(const Hashes& hash, const ChainJobs& jobs) noexcept {
  for (std::size_t i = 0; i < jobs.count; ++i) {
    chain_from<kN>(hash, jobs, i, jobs.x + i * kN, jobs.start[i], jobs.prf_adrs != nullptr);
  }
}

// Orders order[0..count) by decreasing steps (ties by index), so that
// chains run side by side have similar lengths. Steps are public.
// `order` comes in increasing index order; chain lengths are at most
// w - 1 = 15 everywhere, so a counting sort does it.
// Returns false when all lengths are equal (the order is left alone).
inline bool sort_by_steps(const ChainJobs& jobs, std::uint32_t* order, std::size_t count) noexcept {
  constexpr std::uint32_t kBuckets = 64;
  std::uint32_t most = 0;
  bool uniform = true;
  for (std::size_t q = 0; q < count; ++q) {
    most = std::max(most, jobs.steps[order[q]]);
    uniform = uniform && jobs.steps[order[q]] == jobs.steps[order[0]];
  }
  if (uniform) return false;
  if (most >= kBuckets) {
    std::sort(order, order + count, [&](std::uint32_t a, std::uint32_t b) {
      return jobs.steps[a] != jobs.steps[b] ? jobs.steps[a] > jobs.steps[b] : a < b;
    });
    return true;
  }
  std::array<std::uint32_t, kBuckets + 1> first{};  // first[b]: where length kBuckets - 1 - b starts
  for (std::size_t q = 0; q < count; ++q) ++first[kBuckets - jobs.steps[order[q]]];
  for (std::uint32_t b = 1; b <= kBuckets; ++b) first[b] += first[b - 1];
  std::array<std::uint32_t, 256> sorted;
  for (std::size_t q = 0; q < count; ++q) {
    sorted[first[kBuckets - 1 - jobs.steps[order[q]]]++] = order[q];
  }
  std::copy(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(count), order);
  return true;
}

// Calls run(order, m, sorted) for each window of up to 256 chains of
// `jobs`: order[0..m) are their indices, longest first (sort_by_steps)
// when `sorted`, else in index order (all of one length).
template <class Run>
void by_length(const ChainJobs& jobs, Run&& run) noexcept {
  constexpr std::size_t kWindow = 256;  // a multiple of every lane count
  std::array<std::uint32_t, kWindow> order;
  for (std::size_t first = 0; first < jobs.count; first += kWindow) {
    const std::size_t m = std::min(kWindow, jobs.count - first);
    for (std::size_t q = 0; q < m; ++q) order[q] = static_cast<std::uint32_t>(first + q);
    const bool sorted = sort_by_steps(jobs, order.data(), m);
    run(order.data(), m, sorted);
  }
}

// out_i = H(adrs[i], in_2i || in_2i+1) for the n-byte values in_j at in + j * n
// and out_i at out + i * n. `out` may be `in` (a tree level reduced in place).
template <std::size_t kN, class Hashes>
void h_one_by_one(const Hashes& hash, const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out,
                  std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) {
    hash.h(adrs[i], in + 2 * i * kN, in + (2 * i + 1) * kN, out + i * kN);
  }
}

// SLH-DSA-SHAKE (Sec. 11.1): every function is SHAKE256(PK.seed || ADRS ||
// M, 8n). For PRF, F and H, PK.seed || ADRS || M (at most 3n + 32 <= 135
// bytes) and its padding fill one 136-byte block: one Keccak-f[1600] each,
// built straight into the state as lanes. The batches run kWays such
// hashes side by side in the multi-state permutations of keccak.hpp, the
// ways chosen once per operation from cpu_features(): 8 states with
// AVX-512, 4 with AVX2 (on the CPUs measured about 1 and 1.5 scalar
// permutations), else one hash at a time.
template <std::size_t kN>
class ShakeHashes {
  static_assert(kN % 8 == 0 && 3 * kN + Adrs::kFullBytes < Shake256::kRateBytes);
  static constexpr std::size_t kRateLanes = Shake256::kRateBytes / 8;
  static constexpr std::size_t kValueLanes = kN / 8;
  // The rate lanes of one padded block (the capacity lanes are zero).
  using Block = std::array<std::uint64_t, kRateLanes>;

 public:
  ShakeHashes(const std::uint8_t* pk_seed, const std::uint8_t* sk_seed) noexcept
      : pk_seed_(pk_seed), sk_seed_(sk_seed), ways_(select_ways()) {}

  // PRF(PK.seed, SK.seed, ADRS) = SHAKE256(PK.seed || ADRS || SK.seed, 8n)
  void prf(const Adrs& adrs, std::uint8_t* out) const noexcept { one_block(adrs, sk_seed_, nullptr, out); }
  // F(PK.seed, ADRS, M1) = SHAKE256(PK.seed || ADRS || M1, 8n)
  void f(const Adrs& adrs, const std::uint8_t* in, std::uint8_t* out) const noexcept {
    one_block(adrs, in, nullptr, out);
  }
  // H(PK.seed, ADRS, M2) = SHAKE256(PK.seed || ADRS || M2, 8n), M2 = left || right
  void h(const Adrs& adrs, const std::uint8_t* left, const std::uint8_t* right, std::uint8_t* out) const noexcept {
    one_block(adrs, left, right, out);
  }
  // T_l(PK.seed, ADRS, M_l) = SHAKE256(PK.seed || ADRS || M_l, 8n), l = count
  void t(const Adrs& adrs, const std::uint8_t* in, std::size_t count, std::uint8_t* out) const noexcept {
    std::uint8_t a[Adrs::kFullBytes];
    adrs.write_full(a);
    Shake256 xof;
    xof.absorb({pk_seed_, kN});
    xof.absorb(a);
    xof.absorb({in, count * kN});
    xof.finalize();
    xof.squeeze({out, kN});
  }

  // The batch calls (see ChainJobs and h_one_by_one); t_many computes
  // out_i = T_l(adrs[i], in_i) for l = kValues and in_i at in + i * l * n.
  void chains(const ChainJobs& jobs) const noexcept {
    const std::size_t done = with_ways([&](auto ways) {
      this->template chains_lanes<decltype(ways)::value>(jobs);
      return jobs.count;
    });
    if (done < jobs.count) chains_one_by_one<kN>(*this, jobs);
  }
  void h_many(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    const std::size_t done =
        with_ways([&](auto ways) { return this->template h_lanes<decltype(ways)::value>(adrs, in, out, count); });
    for (std::size_t i = done; i < count; ++i) {
      h(adrs[i], in + 2 * i * kN, in + (2 * i + 1) * kN, out + i * kN);
    }
  }
  template <std::size_t kValues>
  void t_many(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    const std::size_t done = with_ways(
        [&](auto ways) { return this->template t_lanes<kValues, decltype(ways)::value>(adrs, in, out, count); });
    for (std::size_t i = done; i < count; ++i) {
      t(adrs[i], in + i * kValues * kN, kValues, out + i * kN);
    }
  }

  // PRF_msg(SK.prf, opt_rand, M) = SHAKE256(SK.prf || opt_rand || M, 8n)
  static void prf_msg(const std::uint8_t* sk_prf, const std::uint8_t* opt_rand, MessageParts m,
                      std::uint8_t* out) noexcept {
    Shake256 xof;
    xof.absorb({sk_prf, kN});
    xof.absorb({opt_rand, kN});
    for (const ByteView part : m) xof.absorb(part);
    xof.finalize();
    xof.squeeze({out, kN});
  }

  // H_msg(R, PK.seed, PK.root, M) = SHAKE256(R || PK.seed || PK.root || M, 8m)
  static void h_msg(const std::uint8_t* r, const std::uint8_t* pk_seed, const std::uint8_t* pk_root, MessageParts m,
                    base::MutableByteView out) noexcept {
    Shake256 xof;
    xof.absorb({r, kN});
    xof.absorb({pk_seed, kN});
    xof.absorb({pk_root, kN});
    for (const ByteView part : m) xof.absorb(part);
    xof.finalize();
    xof.squeeze(out);
  }

 private:
  enum class Ways : std::uint8_t { one, x4, x8 };

  static Ways select_ways() noexcept {
    const base::CpuFeatures& cpu = base::cpu_features();
    return cpu.avx512f ? Ways::x8 : cpu.avx2 ? Ways::x4 : Ways::one;
  }

  // fn(std::integral_constant<std::size_t, kWays>{}) for the ways chosen,
  // which returns how many of the batch it did; 0 (none) with one way.
  template <class Fn>
  std::size_t with_ways(Fn&& fn) const noexcept {
    switch (ways_) {
      case Ways::x8: return fn(std::integral_constant<std::size_t, 8>{});
      case Ways::x4: return fn(std::integral_constant<std::size_t, 4>{});
      case Ways::one: break;
    }
    return 0;
  }

  // The block PK.seed || ADRS || M || padding (FIPS 202, Sec. 6.2 and B.2:
  // the suffix 1111 and pad10*1 give 0x1f after M and 0x80 in the last
  // byte), M = m1 || m2 (m2 may be null), ADRS as 32 bytes.
  void block(const std::uint8_t* adrs, const std::uint8_t* m1, const std::uint8_t* m2, Block& b) const noexcept {
    std::size_t w = 0;
    const auto lanes = [&](const std::uint8_t* bytes, std::size_t count) {
      for (std::size_t i = 0; i < count; ++i) {
        b[w++] = load_le<std::uint64_t>(bytes + 8 * i);
      }
    };
    lanes(pk_seed_, kValueLanes);
    lanes(adrs, Adrs::kFullBytes / 8);
    lanes(m1, kValueLanes);
    if (m2 != nullptr) lanes(m2, kValueLanes);
    b[w++] = 0x1f;
    while (w < kRateLanes) b[w++] = 0;
    b[kRateLanes - 1] |= std::uint64_t{0x80} << 56;
  }

  // The first n output bytes of a squeezed state: lanes 0 .. n/8 - 1.
  template <class Lane>
  static void output(Lane&& lane, std::uint8_t* out) noexcept {
    for (std::size_t i = 0; i < kValueLanes; ++i) {
      store_le<std::uint64_t>(out + 8 * i, lane(i));
    }
  }

  void one_block(const Adrs& adrs, const std::uint8_t* m1, const std::uint8_t* m2, std::uint8_t* out) const noexcept {
    std::uint8_t a[Adrs::kFullBytes];
    adrs.write_full(a);
    Block b;
    block(a, m1, m2, b);
    KeccakState state{};
    std::copy(b.begin(), b.end(), state.begin());
    keccak_f1600(state);
    output([&](std::size_t i) { return state[i]; }, out);
    base::secure_wipe(b.data(), sizeof(b));
    base::secure_wipe(state.data(), sizeof(state));
  }

  // Lane l of `states` := block b.
  template <std::size_t kWays>
  static void put(KeccakStates<kWays>& states, std::size_t l, const Block& b) noexcept {
    for (std::size_t i = 0; i < kRateLanes; ++i) states.lanes[i][l] = b[i];
    for (std::size_t i = kRateLanes; i < 25; ++i) states.lanes[i][l] = 0;
  }

  template <std::size_t kWays>
  static void permute(KeccakStates<kWays>& states) noexcept {
    if constexpr (kWays == 8) {
      keccak_f1600_x8(states);
    } else {
      keccak_f1600_x4(states);
    }
  }

  // H in groups of kWays (in each group's spare states, zeros); returns how
  // many it computed, leaving a lone remainder to the caller.
  template <std::size_t kWays>
  std::size_t h_lanes(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    std::size_t i = 0;
    while (count - i >= 2) {
      const std::size_t m = std::min(kWays, count - i);
      KeccakStates<kWays> states{};
      Block b;
      for (std::size_t q = 0; q < m; ++q) {
        std::uint8_t a[Adrs::kFullBytes];
        adrs[i + q].write_full(a);
        const std::uint8_t* pair = in + 2 * (i + q) * kN;
        block(a, pair, pair + kN, b);
        put(states, q, b);
      }
      permute(states);
      for (std::size_t q = 0; q < m; ++q) {
        output([&](std::size_t r) { return states.lanes[r][q]; }, out + (i + q) * kN);
      }
      i += m;
    }
    return i;
  }

  // T_l in groups of kWays sponges (keccak.hpp, Shake256x4 / Shake256x8:
  // every message is n + 32 + l n bytes); returns how many it computed,
  // leaving a lone remainder to the caller.
  template <std::size_t kValues, std::size_t kWays>
  std::size_t t_lanes(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    constexpr std::size_t kLen = kN + Adrs::kFullBytes + kValues * kN;
    constexpr std::size_t kRate = Shake256::kRateBytes;
    std::array<std::uint8_t, kWays * kLen> messages;
    std::array<std::uint8_t, kWays * kRate> blocks;
    std::size_t i = 0;
    while (count - i >= 2) {
      const std::size_t m = std::min(kWays, count - i);
      const std::uint8_t* inputs[kWays];
      std::uint8_t* outputs[kWays];
      for (std::size_t q = 0; q < kWays; ++q) {
        std::uint8_t* msg = messages.data() + q * kLen;
        if (q < m) {
          std::memcpy(msg, pk_seed_, kN);
          adrs[i + q].write_full(msg + kN);
          std::memcpy(msg + kN + Adrs::kFullBytes, in + (i + q) * kValues * kN, kValues * kN);
        }
        inputs[q] = q < m ? msg : messages.data();
        outputs[q] = q < m ? blocks.data() + q * kRate : nullptr;
      }
      KeccakSpongeN<kRate, 0x1f, kWays> sponges;
      sponges.absorb_once(inputs, kLen);
      sponges.squeeze_blocks(outputs, 1);
      for (std::size_t q = 0; q < m; ++q) std::memcpy(out + (i + q) * kN, outputs[q], kN);
      i += m;
    }
    return i;
  }

  // The chains in windows ordered longest first, each run by chain_queue.
  template <std::size_t kWays>
  void chains_lanes(const ChainJobs& jobs) const noexcept {
    by_length(jobs, [&](const std::uint32_t* order, std::size_t m, bool) { chain_queue<kWays>(jobs, order, m); });
  }

  // Runs chains order[0..count) on kWays states: a state takes the next
  // chain as soon as its own ends (a PRF start is one more hash), so the
  // states stay busy until the queue runs dry; the last chain left alone
  // finishes with single calls. Which state runs what, and when, follows
  // from the chain lengths alone (public). The chain values (secret when
  // signing) are wiped at the end.
  template <std::size_t kWays>
  void chain_queue(const ChainJobs& jobs, const std::uint32_t* order, std::size_t count) const noexcept {
    struct Lane {
      std::uint32_t chain = 0;
      std::uint32_t j = 0;    // the hash address of the next F
      std::uint32_t end = 0;  // start + steps
      bool prf = false;       // the next hash is the chain's PRF
      bool busy = false;
      std::uint8_t adrs[Adrs::kFullBytes];
    };
    std::array<Lane, kWays> lanes;
    alignas(64) std::array<std::uint8_t, kWays * kN> x;
    KeccakStates<kWays> states{};
    Block b;
    std::size_t next = 0;
    for (;;) {
      std::size_t live = 0;  // busy states
      for (std::size_t l = 0; l < kWays; ++l) {
        Lane& lane = lanes[l];
        while (!lane.busy && next < count) {
          const std::uint32_t i = order[next++];
          lane.chain = i;
          lane.j = jobs.start[i];
          lane.end = lane.j + jobs.steps[i];
          lane.prf = jobs.prf_adrs != nullptr;
          (lane.prf ? jobs.prf_adrs : jobs.adrs)[i].write_full(lane.adrs);
          if (!lane.prf) std::memcpy(x.data() + l * kN, jobs.x + i * kN, kN);
          lane.busy = lane.prf || lane.j != lane.end;
          if (!lane.busy) chain_from<kN>(*this, jobs, i, x.data() + l * kN, lane.j, false);
        }
        if (lane.busy) ++live;
      }
      if (live == 0) break;
      if (live == 1 && next == count) {
        for (std::size_t l = 0; l < kWays; ++l) {
          const Lane& lane = lanes[l];
          if (lane.busy) {
            chain_from<kN>(*this, jobs, lane.chain, x.data() + l * kN, lane.j, lane.prf);
          }
        }
        break;
      }
      for (std::size_t l = 0; l < kWays; ++l) {
        Lane& lane = lanes[l];
        if (!lane.busy) continue;
        std::uint8_t* xl = x.data() + l * kN;
        if (lane.prf) {
          block(lane.adrs, sk_seed_, nullptr, b);
        } else {
          if (lane.j == jobs.capture_index(lane.chain)) {
            std::memcpy(jobs.capture_out(lane.chain, kN), xl, kN);
          }
          store_be<std::uint32_t>(lane.adrs + 28, lane.j);  // the hash address (Sec. 4.2)
          block(lane.adrs, xl, nullptr, b);
        }
        put(states, l, b);
      }
      permute(states);
      for (std::size_t l = 0; l < kWays; ++l) {
        Lane& lane = lanes[l];
        if (!lane.busy) continue;
        std::uint8_t* xl = x.data() + l * kN;
        output([&](std::size_t r) { return states.lanes[r][l]; }, xl);
        if (lane.prf) {
          lane.prf = false;
          jobs.adrs[lane.chain].write_full(lane.adrs);
        } else {
          ++lane.j;
        }
        if (lane.j == lane.end) {
          lane.busy = false;
          chain_from<kN>(*this, jobs, lane.chain, xl, lane.j, false);  // capture, write back
        }
      }
    }
    base::secure_wipe(x.data(), x.size());
    base::secure_wipe(&states, sizeof(states));
    base::secure_wipe(b.data(), sizeof(b));
  }

  const std::uint8_t* pk_seed_;
  const std::uint8_t* sk_seed_;
  Ways ways_;
};

// The chaining value after the single block PK.seed || toByte(0, b - n)
// that starts every SHA2 tweakable hash (Sec. 11.2).
template <class Traits>
std::array<typename Traits::Word, 8> seeded_state(const std::uint8_t* pk_seed, std::size_t n) noexcept {
  std::array<std::uint8_t, Traits::kBlockBytes> block{};
  std::memcpy(block.data(), pk_seed, n);
  std::array<typename Traits::Word, 8> state = Traits::kInitial;
  Traits::compress(state, block.data(), 1);
  return state;
}

// The one block ADRSc || M || padding that follows the PK.seed block in
// every one-block SHA2 tweakable hash (PRF, F, H), M being kMessage bytes.
// FIPS 180-4, Sec. 5.1: 0x80, zeros, then the bit length of everything
// hashed (the PK.seed block included) in the last 8 bytes (the upper bytes
// of SHA-512's 16-byte length field stay zero).
template <class Traits, std::size_t kMessage>
struct OneBlock {
  static constexpr std::size_t kBlock = Traits::kBlockBytes;
  static_assert(Adrs::kCompressedBytes + kMessage + 1 + Traits::kLengthBytes <= kBlock);

  OneBlock() noexcept = default;
  explicit OneBlock(const Adrs& adrs) noexcept { init(adrs); }
  void init(const Adrs& adrs) noexcept {
    adrs.write_compressed(bytes.data());
    bytes[Adrs::kCompressedBytes + kMessage] = 0x80;
    store_be<std::uint64_t>(bytes.data() + kBlock - 8, (kBlock + Adrs::kCompressedBytes + kMessage) * 8);
  }
  ~OneBlock() { base::secure_wipe(bytes.data(), bytes.size()); }
  OneBlock(const OneBlock&) = delete;
  OneBlock& operator=(const OneBlock&) = delete;

  std::uint8_t* message() noexcept { return bytes.data() + Adrs::kCompressedBytes; }
  // ADRSc bytes 18-21: the hash address (tree index) of ADRS.
  void set_hash_address(std::uint32_t j) noexcept { store_be<std::uint32_t>(bytes.data() + 18, j); }

  std::array<std::uint8_t, kBlock> bytes{};
};

// The first n bytes of a SHA-2 chaining value (Trunc_n of the digest).
template <class Word>
void store_truncated(std::uint8_t* out, const std::array<Word, 8>& state, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n / sizeof(Word); ++i) store_be(out + i * sizeof(Word), state[i]);
}

// `words` big-endian words of `in` into one lane of lane-interleaved rows
// (word r at rows[r * stride]), and back.
template <class Word>
void load_rows(const std::uint8_t* in, std::size_t words, Word* rows, std::size_t stride) noexcept {
  for (std::size_t r = 0; r < words; ++r) rows[r * stride] = load_be<Word>(in + r * sizeof(Word));
}

template <class Word>
void store_rows(const Word* rows, std::size_t stride, std::size_t words, std::uint8_t* out) noexcept {
  for (std::size_t r = 0; r < words; ++r) store_be(out + r * sizeof(Word), rows[r * stride]);
}

// The SHA-2 kernels one SLH-DSA-SHA2 operation uses, chosen once from
// cpu_features() when the operation starts:
//   sha256  PRF, F (every category) and H, T (category 1): 16 AVX-512
//           lanes, else two interleaved SHA-NI streams, else 8 AVX2 lanes
//           (on the CPUs measured, SHA-NI beats AVX2 lanes, AVX-512 lanes
//           beat SHA-NI), else portable, one hash at a time;
//   sha512  H and T of categories 3 and 5: 8 AVX-512 lanes, 4 AVX2 lanes,
//           else portable;
//   sha_ni  SHA-NI for single SHA-256 hashes, and for batch remainders
//           under half the SIMD lanes (a group of 16 AVX-512 lanes costs
//           about as much as 8 hashes in two SHA-NI streams).
struct Sha2Kernels {
  enum class Lanes : std::uint8_t { one, sha_ni, avx2, avx512 };

  Lanes sha256 = Lanes::one;
  Lanes sha512 = Lanes::one;
  bool sha_ni = false;

  static Sha2Kernels select() noexcept {
    const base::CpuFeatures& cpu = base::cpu_features();
    Sha2Kernels k;
    k.sha_ni = cpu.sha_ni && cpu.sse42;
    const bool avx512 = cpu.avx512f && cpu.avx512bw;
    if (avx512) {
      k.sha256 = k.sha512 = Lanes::avx512;
    } else {
      k.sha256 = k.sha_ni ? Lanes::sha_ni : cpu.avx2 ? Lanes::avx2 : Lanes::one;
      k.sha512 = cpu.avx2 ? Lanes::avx2 : Lanes::one;
    }
    return k;
  }
};

// SLH-DSA-SHA2 (Sec. 11.2). kWide selects security categories 3 and 5
// (Sec. 11.2.2), where H, T_l, H_msg and PRF_msg use SHA-512 and PK.seed is
// padded to SHA-512's 128-byte block for H and T_l; F and PRF stay on
// SHA-256 in every category (Sec. 11.2.1 and 11.2.2).
template <std::size_t kN, bool kWide>
class Sha2Hashes {
  using BigTraits = std::conditional_t<kWide, Sha512Traits, Sha256Traits>;
  using Big = Sha2<BigTraits>;
  using BigWord = typename BigTraits::Word;
  using BigState = typename Big::State;
  using Lanes = Sha2Kernels::Lanes;
  static constexpr std::size_t kWords = kN / 4;  // SHA-256 words of an n-byte value

 public:
  Sha2Hashes(const std::uint8_t* pk_seed, const std::uint8_t* sk_seed) noexcept
      : kernels_(Sha2Kernels::select()), sk_seed_(sk_seed), seed256_(seeded_state<Sha256Traits>(pk_seed, kN)) {
    if constexpr (kWide) {
      seed_big_ = seeded_state<Sha512Traits>(pk_seed, kN);
    } else {
      seed_big_ = seed256_;
    }
    if (sk_seed != nullptr) {
      load_rows(sk_seed, kWords, sk_words_.data(), 1);
    }
  }
  ~Sha2Hashes() { base::secure_wipe(sk_words_.data(), sizeof(sk_words_)); }
  Sha2Hashes(const Sha2Hashes&) = delete;
  Sha2Hashes& operator=(const Sha2Hashes&) = delete;

  // PRF(PK.seed, SK.seed, ADRS) =
  //   Trunc_n(SHA-256(PK.seed || toByte(0, 64 - n) || ADRSc || SK.seed))
  void prf(const Adrs& adrs, std::uint8_t* out) const noexcept {
    OneBlock<Sha256Traits, kN> block(adrs);
    std::memcpy(block.message(), sk_seed_, kN);
    hash256(block, out);
  }
  // F(PK.seed, ADRS, M1) = Trunc_n(SHA-256(PK.seed || toByte(0, 64 - n) || ADRSc || M1))
  void f(const Adrs& adrs, const std::uint8_t* in, std::uint8_t* out) const noexcept {
    OneBlock<Sha256Traits, kN> block(adrs);
    std::memcpy(block.message(), in, kN);
    hash256(block, out);
  }
  // H(PK.seed, ADRS, M2) = Trunc_n(SHA-X(PK.seed || toByte(0, b - n) || ADRSc || M2)),
  // SHA-X = SHA-256 (b = 64) in category 1, SHA-512 (b = 128) in 3 and 5.
  void h(const Adrs& adrs, const std::uint8_t* left, const std::uint8_t* right, std::uint8_t* out) const noexcept {
    OneBlock<BigTraits, 2 * kN> block(adrs);
    std::memcpy(block.message(), left, kN);
    std::memcpy(block.message() + kN, right, kN);
    BigState state = seed_big_;
    compress_big(state, block.bytes.data(), 1);
    store_truncated(out, state, kN);
  }
  // T_l(PK.seed, ADRS, M_l): as H, with M_l of `count` n-byte strings.
  void t(const Adrs& adrs, const std::uint8_t* in, std::size_t count, std::uint8_t* out) const noexcept {
    std::uint8_t a[Adrs::kCompressedBytes];
    adrs.write_compressed(a);
    Big hasher(seed_big_, 1);
    hasher.update(a);
    hasher.update({in, count * kN});
    const typename Big::Digest digest = hasher.finalize();
    std::memcpy(out, digest.data(), kN);
  }

  // --- Batch calls (see ChainJobs) ---

  void chains(const ChainJobs& jobs) const noexcept {
    switch (kernels_.sha256) {
      case Lanes::avx512: chains_lanes<16>(jobs); return;
      case Lanes::avx2: chains_lanes<8>(jobs); return;
      case Lanes::sha_ni:
      case Lanes::one: break;
    }
    by_length(jobs, [&](const std::uint32_t* order, std::size_t m, bool) { chains_blocks(jobs, order, m); });
  }

  // out_i = H(adrs[i], in + 2i n .. in + (2i + 2) n), out_i at out + i n;
  // `out` may be `in` (a tree level reduced in place).
  void h_many(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    using Word = std::conditional_t<kWide, std::uint64_t, std::uint32_t>;
    switch (kWide ? kernels_.sha512 : kernels_.sha256) {
      case Lanes::avx512: h_lanes<Word, 64 / sizeof(Word)>(adrs, in, out, count); return;
      case Lanes::avx2: h_lanes<Word, 32 / sizeof(Word)>(adrs, in, out, count); return;
      case Lanes::sha_ni:
      case Lanes::one: break;
    }
    if constexpr (kWide) {
      h_one_by_one<kN>(*this, adrs, in, out, count);
    } else {
      h256_blocks(adrs, in, out, count);
    }
  }

  // out_i = T_l(adrs[i], in_i), l = kValues, in_i at in + i l n: the
  // messages padded side by side and compressed by the multi-buffer
  // sha256_compress_many / sha512_compress_many.
  template <std::size_t kValues>
  void t_many(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    constexpr std::size_t kBlock = BigTraits::kBlockBytes;
    constexpr std::size_t kMessage = Adrs::kCompressedBytes + kValues * kN;
    constexpr std::size_t kBlocks = (kMessage + 1 + BigTraits::kLengthBytes + kBlock - 1) / kBlock;
    constexpr std::size_t kBytes = kBlocks * kBlock;
    constexpr std::size_t kMaxItems = kWide ? 8 : 16;  // one AVX-512 call
    std::array<std::uint8_t, kMaxItems * kBytes> buffer;
    std::array<BigState, kMaxItems> states;
    std::array<const std::uint8_t*, kMaxItems> data;
    for (std::size_t first = 0; first < count; first += kMaxItems) {
      const std::size_t m = std::min(kMaxItems, count - first);
      for (std::size_t q = 0; q < m; ++q) {
        std::uint8_t* p = buffer.data() + q * kBytes;
        adrs[first + q].write_compressed(p);
        std::memcpy(p + Adrs::kCompressedBytes, in + (first + q) * kValues * kN, kValues * kN);
        p[kMessage] = 0x80;
        std::memset(p + kMessage + 1, 0, kBytes - kMessage - 1 - 8);
        store_be<std::uint64_t>(p + kBytes - 8, (kBlock + kMessage) * 8);
        states[q] = seed_big_;
        data[q] = p;
      }
      if constexpr (kWide) {
        sha512_compress_many(states.data(), data.data(), m, kBlocks);
      } else {
        sha256_compress_many(states.data(), data.data(), m, kBlocks);
      }
      for (std::size_t q = 0; q < m; ++q) store_truncated(out + (first + q) * kN, states[q], kN);
    }
  }

  // PRF_msg(SK.prf, opt_rand, M) = Trunc_n(HMAC-SHA-X(SK.prf, opt_rand || M))
  static void prf_msg(const std::uint8_t* sk_prf, const std::uint8_t* opt_rand, MessageParts m,
                      std::uint8_t* out) noexcept {
    Hmac<Big> mac({sk_prf, kN});
    mac.update({opt_rand, kN});
    for (const ByteView part : m) mac.update(part);
    const typename Big::Digest digest = mac.finalize();
    std::memcpy(out, digest.data(), kN);
  }

  // H_msg(R, PK.seed, PK.root, M) =
  //   MGF1-SHA-X(R || PK.seed || SHA-X(R || PK.seed || PK.root || M), m)
  static void h_msg(const std::uint8_t* r, const std::uint8_t* pk_seed, const std::uint8_t* pk_root, MessageParts m,
                    base::MutableByteView out) noexcept {
    Big hasher;
    hasher.update({r, kN});
    hasher.update({pk_seed, kN});
    hasher.update({pk_root, kN});
    for (const ByteView part : m) hasher.update(part);
    const typename Big::Digest inner = hasher.finalize();

    std::array<std::uint8_t, 2 * kN + Big::kDigestBytes> seed;
    std::memcpy(seed.data(), r, kN);
    std::memcpy(seed.data() + kN, pk_seed, kN);
    std::memcpy(seed.data() + 2 * kN, inner.data(), inner.size());
    if constexpr (kWide) {
      mgf1_sha512(seed, out);
    } else {
      mgf1_sha256(seed, out);
    }
  }

 private:
  // One SHA-256 compression from the PK.seed midstate; Trunc_n to `out`.
  template <std::size_t kMessage>
  void hash256(const OneBlock<Sha256Traits, kMessage>& block, std::uint8_t* out) const noexcept {
    Sha256State state = seed256_;
    compress256(state, block.bytes.data());
    store_truncated(out, state, kN);
    base::secure_wipe(state.data(), sizeof(state));
  }

  void compress256(Sha256State& state, const std::uint8_t* block) const noexcept {
    if (kernels_.sha_ni) {
      crypto::detail::sha256_compress_shani(state, block, 1);
    } else {
      sha256_compress(state, block, 1);
    }
  }
  // Two independent one-block compressions; interleaved with SHA-NI.
  void compress256_x2(Sha256State& s0, Sha256State& s1, const std::uint8_t* b0, const std::uint8_t* b1) const noexcept {
    if (kernels_.sha_ni) {
      crypto::detail::sha256_compress_shani_x2(s0, s1, b0, b1, 1);
    } else {
      sha256_compress(s0, b0, 1);
      sha256_compress(s1, b1, 1);
    }
  }
  void compress_big(BigState& state, const std::uint8_t* data, std::size_t blocks) const noexcept {
    if constexpr (kWide) {
      sha512_compress(state, data, blocks);
    } else {
      for (std::size_t b = 0; b < blocks; ++b) compress256(state, data + 64 * b);
    }
  }

  // --- One or two hashes at a time (portable, SHA-NI) ---

  // Chains order[0..count), two at a time with SHA-NI; each chain's block
  // is kept between steps, its output written straight back as M.
  void chains_blocks(const ChainJobs& jobs, const std::uint32_t* order, std::size_t count) const noexcept {
    std::size_t q = 0;
    if (kernels_.sha_ni) {
      for (; q + 1 < count; q += 2) chain_streams<2>(jobs, order + q);
    }
    for (; q < count; ++q) chain_streams<1>(jobs, order + q);
  }

  template <std::size_t kStreams>
  void chain_streams(const ChainJobs& jobs, const std::uint32_t* which) const noexcept {
    std::array<OneBlock<Sha256Traits, kN>, kStreams> blocks;
    std::array<Sha256State, kStreams> state;
    std::array<std::uint32_t, kStreams> j, end, capture;
    for (std::size_t k = 0; k < kStreams; ++k) {
      const std::uint32_t i = which[k];
      blocks[k].init(jobs.adrs[i]);
      if (jobs.prf_adrs == nullptr) std::memcpy(blocks[k].message(), jobs.x + i * kN, kN);
      j[k] = jobs.start[i];
      end[k] = j[k] + jobs.steps[i];
      capture[k] = jobs.capture_index(i);
    }
    if (jobs.prf_adrs != nullptr) {  // x = PRF(prf_adrs)
      for (std::size_t k = 0; k < kStreams; ++k) {
        OneBlock<Sha256Traits, kN> prf_block(jobs.prf_adrs[which[k]]);
        std::memcpy(prf_block.message(), sk_seed_, kN);
        state[k] = seed256_;
        compress256(state[k], prf_block.bytes.data());
        store_truncated(blocks[k].message(), state[k], kN);
      }
    }
    for (;;) {
      std::size_t live = 0;
      std::array<std::size_t, kStreams> active;
      for (std::size_t k = 0; k < kStreams; ++k) {
        if (j[k] == capture[k]) {
          std::memcpy(jobs.capture_out(which[k], kN), blocks[k].message(), kN);
        }
        if (j[k] != end[k]) {
          blocks[k].set_hash_address(j[k]++);
          state[k] = seed256_;
          active[live++] = k;
        }
      }
      if (live == 0) break;
      if (live == 2) {
        compress256_x2(state[active[0]], state[active[1]], blocks[active[0]].bytes.data(),
                       blocks[active[1]].bytes.data());
      } else {
        compress256(state[active[0]], blocks[active[0]].bytes.data());
      }
      for (std::size_t a = 0; a < live; ++a) {
        store_truncated(blocks[active[a]].message(), state[active[a]], kN);
      }
    }
    for (std::size_t k = 0; k < kStreams; ++k) {
      std::memcpy(jobs.x + which[k] * kN, blocks[k].message(), kN);
    }
    base::secure_wipe(state.data(), sizeof(state));
  }

  // H for category 1, two at a time with SHA-NI.
  void h256_blocks(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    std::size_t i = 0;
    if (kernels_.sha_ni) {
      for (; i + 1 < count; i += 2) {
        OneBlock<Sha256Traits, 2 * kN> b0(adrs[i]);
        OneBlock<Sha256Traits, 2 * kN> b1(adrs[i + 1]);
        std::memcpy(b0.message(), in + 2 * i * kN, 2 * kN);
        std::memcpy(b1.message(), in + 2 * (i + 1) * kN, 2 * kN);
        Sha256State s0 = seed256_;
        Sha256State s1 = seed256_;
        compress256_x2(s0, s1, b0.bytes.data(), b1.bytes.data());
        store_truncated(out + i * kN, s0, kN);
        store_truncated(out + (i + 1) * kN, s1, kN);
      }
    }
    for (; i < count; ++i) h(adrs[i], in + 2 * i * kN, in + (2 * i + 1) * kN, out + i * kN);
  }

  // --- SIMD lanes ---

  // Chains in groups of kLanes SIMD lanes, the longest first; a remainder
  // of under half the lanes goes to SHA-NI when there is SHA-NI. Chains of
  // different lengths (verification) run two to a lane where there are
  // more than kLanes: the i-th longest, then the i-th shortest of the next
  // up to kLanes, so that the lanes finish close together.
  template <std::size_t kLanes>
  void chains_lanes(const ChainJobs& jobs) const noexcept {
    by_length(jobs, [&](const std::uint32_t* order, std::size_t m, bool sorted) {
      std::size_t q = 0;
      if (sorted && jobs.prf_adrs == nullptr && jobs.capture_count == 0) {
        while (m - q > kLanes) {
          const std::size_t take = std::min(2 * kLanes, m - q);
          chain_pair_group<kLanes>(jobs, order + q, take);
          q += take;
        }
      }
      for (; m - q >= kLanes; q += kLanes) chain_group<kLanes>(jobs, order + q, kLanes);
      const std::size_t rest = m - q;
      if (rest == 0) return;
      if (kernels_.sha_ni && 2 * rest < kLanes) {
        chains_blocks(jobs, order + q, rest);
      } else {
        chain_group<kLanes>(jobs, order + q, rest);
      }
    });
  }

  // One kernel call for the `count` <= kLanes chains which[0..count); the
  // spare lanes repeat chain which[0] and are discarded. Every array the
  // kernel reads is filled for all lanes (captured only where it is read).
  // Nothing secret is left in them: the PRF outputs and the chains' inner
  // values live in the kernel's registers; x ends as the chain ends (WOTS+
  // public-key values, FORS leaves) and captured as a WOTS+ signature.
  template <std::size_t kLanes>
  void chain_group(const ChainJobs& jobs, const std::uint32_t* which, std::size_t count) const noexcept {
    alignas(64) std::array<std::uint32_t, 6 * kLanes> adrs;
    alignas(64) std::array<std::uint32_t, 6 * kLanes> prf_adrs;
    alignas(64) std::array<std::uint32_t, kWords * kLanes> x;
    alignas(64) std::array<std::uint32_t, kWords * kLanes> captured;
    alignas(64) std::array<std::uint32_t, kLanes> start, steps, capture_at;
    unsigned max_steps = 0;
    bool capture = false;
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::uint32_t i = which[l < count ? l : 0];
      jobs.adrs[i].compressed_rows(adrs.data() + l, kLanes);
      if (jobs.prf_adrs != nullptr) {
        jobs.prf_adrs[i].compressed_rows(prf_adrs.data() + l, kLanes);
      } else {
        load_rows(jobs.x + i * kN, kWords, x.data() + l, kLanes);
      }
      start[l] = jobs.start[i];
      steps[l] = jobs.steps[i];
      max_steps = std::max<unsigned>(max_steps, steps[l]);
      capture_at[l] = l < count ? jobs.capture_index(i) : ChainJobs::kNoCapture;
      capture = capture || capture_at[l] != ChainJobs::kNoCapture;
    }
    if (capture) captured.fill(0);
    const crypto::detail::SlhSha256Chains args{
        seed256_.data(),
        adrs.data(),
        jobs.prf_adrs != nullptr ? prf_adrs.data() : nullptr,
        sk_words_.data(),
        x.data(),
        start.data(),
        steps.data(),
        max_steps,
        static_cast<unsigned>(kWords),
        capture ? capture_at.data() : nullptr,
        captured.data(),
    };
    if constexpr (kLanes == 16) {
      crypto::detail::slh_sha256_chains_x16_avx512(args);
    } else {
      crypto::detail::slh_sha256_chains_x8_avx2(args);
    }
    for (std::size_t l = 0; l < count; ++l) {
      const std::uint32_t i = which[l];
      store_rows(x.data() + l, kLanes, kWords, jobs.x + i * kN);
      if (capture_at[l] != ChainJobs::kNoCapture) {
        store_rows(captured.data() + l, kLanes, kWords, jobs.capture_out(i, kN));
      }
    }
  }

  // kLanes < count <= 2 kLanes chains which[0..count), by decreasing
  // length, two to a lane: lane l runs which[l], then which[count - 1 - l]
  // if that is past the first kLanes. No PRF start, no capture.
  template <std::size_t kLanes>
  void chain_pair_group(const ChainJobs& jobs, const std::uint32_t* which, std::size_t count) const noexcept {
    alignas(64) std::array<std::uint32_t, 6 * kLanes> adrs, adrs2;
    alignas(64) std::array<std::uint32_t, kWords * kLanes> x, x2;
    alignas(64) std::array<std::uint32_t, kLanes> start, steps, start2, steps2;
    unsigned max_steps = 0;
    const auto pack = [&](std::uint32_t i, std::size_t l, std::uint32_t* a, std::uint32_t* v) {
      jobs.adrs[i].compressed_rows(a + l, kLanes);
      load_rows(jobs.x + i * kN, kWords, v + l, kLanes);
    };
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::uint32_t i = which[l];
      pack(i, l, adrs.data(), x.data());
      start[l] = jobs.start[i];
      steps[l] = jobs.steps[i];
      const bool two = count - 1 - l >= kLanes;
      const std::uint32_t i2 = two ? which[count - 1 - l] : i;
      pack(i2, l, adrs2.data(), x2.data());
      start2[l] = jobs.start[i2];
      steps2[l] = two ? jobs.steps[i2] : 0;
      max_steps = std::max<unsigned>(max_steps, steps[l] + steps2[l]);
    }
    const crypto::detail::SlhSha256Chain2 second{adrs2.data(), x2.data(), start2.data(), steps2.data()};
    crypto::detail::SlhSha256Chains args{seed256_.data(),  adrs.data(), nullptr,
                                         sk_words_.data(), x.data(),    start.data(),
                                         steps.data(),     max_steps,   static_cast<unsigned>(kWords),
                                         nullptr,          nullptr};
    args.second = &second;
    if constexpr (kLanes == 16) {
      crypto::detail::slh_sha256_chains_x16_avx512(args);
    } else {
      crypto::detail::slh_sha256_chains_x8_avx2(args);
    }
    for (std::size_t l = 0; l < kLanes; ++l) {
      store_rows(x.data() + l, kLanes, kWords, jobs.x + which[l] * kN);
      if (count - 1 - l >= kLanes) {
        store_rows(x2.data() + l, kLanes, kWords, jobs.x + which[count - 1 - l] * kN);
      }
    }
  }

  // H in groups of kLanes SIMD lanes (Word: SHA-256 or SHA-512 words).
  // A category 1 remainder of under half the lanes goes to SHA-NI where
  // there is SHA-NI (as in chains_lanes); a lone remainder on 4 AVX2 lanes
  // of SHA-512 is cheaper one at a time.
  template <class Word, std::size_t kLanes>
  void h_lanes(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    for (std::size_t i = 0; i < count; i += kLanes) {
      const std::size_t m = std::min(kLanes, count - i);
      const std::uint8_t* pairs = in + 2 * i * kN;
      if constexpr (!kWide) {
        if (kernels_.sha_ni && 2 * m < kLanes) {
          h256_blocks(adrs + i, pairs, out + i * kN, m);
          continue;
        }
      } else if constexpr (kLanes == 4) {
        if (m == 1) {
          h(adrs[i], pairs, pairs + kN, out + i * kN);
          continue;
        }
      }
      h_group<Word, kLanes>(adrs + i, pairs, out + i * kN, m);
    }
  }

  // One kernel call for `count` <= kLanes hashes; spare lanes repeat the first.
  template <class Word, std::size_t kLanes>
  void h_group(const Adrs* adrs, const std::uint8_t* in, std::uint8_t* out, std::size_t count) const noexcept {
    constexpr std::size_t kValueWords = kN / sizeof(Word);
    constexpr std::size_t kAdrsRows = 24 / sizeof(Word);
    alignas(64) std::array<Word, kAdrsRows * kLanes> a;
    alignas(64) std::array<Word, 2 * kValueWords * kLanes> m;
    alignas(64) std::array<Word, kValueWords * kLanes> h;
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t i = l < count ? l : 0;
      adrs[i].compressed_rows(a.data() + l, kLanes);
      load_rows(in + 2 * i * kN, 2 * kValueWords, m.data() + l, kLanes);
    }
    constexpr auto kIn = static_cast<unsigned>(2 * kValueWords);
    constexpr auto kOut = static_cast<unsigned>(kValueWords);
    if constexpr (sizeof(Word) == 4) {
      const crypto::detail::SlhSha256Hash args{seed256_.data(), a.data(), m.data(), h.data(), kIn, kOut};
      if constexpr (kLanes == 16) {
        crypto::detail::slh_sha256_hash_x16_avx512(args);
      } else {
        crypto::detail::slh_sha256_hash_x8_avx2(args);
      }
    } else {
      const crypto::detail::SlhSha512Hash args{seed_big_.data(), a.data(), m.data(), h.data(), kIn, kOut};
      if constexpr (kLanes == 8) {
        crypto::detail::slh_sha512_hash_x8_avx512(args);
      } else {
        crypto::detail::slh_sha512_hash_x4_avx2(args);
      }
    }
    for (std::size_t l = 0; l < count; ++l) {
      store_rows(h.data() + l, kLanes, kValueWords, out + l * kN);
    }
  }

  Sha2Kernels kernels_;
  const std::uint8_t* sk_seed_;
  Sha256State seed256_;                      // for F and PRF
  BigState seed_big_;                        // for H and T_l
  std::array<std::uint32_t, 8> sk_words_{};  // SK.seed as big-endian words, for the SIMD PRF
};

// ---------------------------------------------------------------------------
// The scheme for one parameter set.

// Scratch memory for keygen and signing (the heap, allocated by the callers
// of Slh::keygen and Slh::sign), sized for parameter set kSet.
template <ParameterSet kSet>
struct SlhWorkspace;

template <ParameterSet kSet>
class Slh {
 public:
  static constexpr Params kP = params(kSet);
  static constexpr std::size_t kN = kP.n;
  static constexpr std::size_t kLgW = kP.lg_w;
  static constexpr std::uint32_t kW = std::uint32_t{1} << kLgW;
  static constexpr std::size_t kLen = kP.len;
  static constexpr std::size_t kLen1 = (8 * kN + kLgW - 1) / kLgW;
  static constexpr std::size_t kLen2 = kLen - kLen1;
  static constexpr std::size_t kHp = kP.hp;
  static constexpr std::size_t kD = kP.d;
  static constexpr std::size_t kA = kP.a;
  static constexpr std::size_t kK = kP.k;
  static constexpr std::size_t kXmssSigBytes = (kLen + kHp) * kN;
  static constexpr std::size_t kForsSigBytes = kK * (kA + 1) * kN;
  static_assert(kP.sig_bytes == kN + kForsSigBytes + kD * kXmssSigBytes);
  static_assert(kP.h == kD * kHp);

  // XMSS leaves (WOTS+ key pairs) generated per batch of chains: 16 leaves
  // of len chains each fill 16 SIMD lanes exactly (16 * len is a multiple
  // of 16), and their WOTS+ public keys are 16 equal-length T_len hashes.
  static constexpr std::uint32_t kXmssLeaves = std::uint32_t{1} << kHp;
  static constexpr std::uint32_t kLeafBatch = std::min<std::uint32_t>(16, kXmssLeaves);
  // The most hashes per batch call; also the size of the address arrays.
  static constexpr std::size_t kBatch = kLeafBatch * kLen;
  // FORS trees are built 2^kForsChunk leaves at a time (2^kForsChunk * n
  // bytes of scratch), then the chunks' roots combined.
  static constexpr std::size_t kForsChunk = std::min<std::size_t>(kA, 12);

  using Hashes =
      std::conditional_t<kP.family == HashFamily::shake, ShakeHashes<kN>, Sha2Hashes<kN, (kP.security_category > 1)>>;
  using Workspace = SlhWorkspace<kSet>;

  // slh_keygen_internal (Alg. 18): writes SK = SK.seed || SK.prf || PK.seed || PK.root.
  static void keygen(const std::uint8_t* sk_seed, const std::uint8_t* sk_prf, const std::uint8_t* pk_seed,
                     std::uint8_t* sk, Workspace& ws) noexcept {
    const Slh slh(pk_seed, sk_seed, &ws);
    Adrs adrs;
    adrs.set_layer_address(static_cast<std::uint32_t>(kD - 1));
    std::memcpy(sk, sk_seed, kN);
    std::memcpy(sk + kN, sk_prf, kN);
    std::memcpy(sk + 2 * kN, pk_seed, kN);
    slh.xmss_tree(nullptr, 0, adrs, nullptr, sk + 3 * kN);
    base::ct_public(sk + 3 * kN, kN);  // PK.root is the public key
  }

  // slh_sign_internal (Alg. 19) for the encoded secret key `sk`; `addrnd`
  // is n bytes, or null for the deterministic variant. Beyond FIPS 205:
  // false when the hypertree's top root, computed anyway, is not the key's
  // PK.root, i.e. the key is corrupt and its signatures would never verify.
  static bool sign(const std::uint8_t* sk, MessageParts m, const std::uint8_t* addrnd, std::uint8_t* sig,
                   Workspace& ws) noexcept {
    const std::uint8_t* sk_seed = sk;
    const std::uint8_t* sk_prf = sk + kN;
    const std::uint8_t* pk_seed = sk + 2 * kN;
    const std::uint8_t* pk_root = sk + 3 * kN;

    base::ct_public(pk_seed, 2 * kN);                                     // PK.seed || PK.root: the public key
    const std::uint8_t* opt_rand = addrnd != nullptr ? addrnd : pk_seed;  // line 2
    Hashes::prf_msg(sk_prf, opt_rand, m, sig);                            // lines 3-4: R is the first n bytes of SIG
    base::ct_public(sig, kN);                                             // R is published
    std::array<std::uint8_t, kP.m> digest;
    Hashes::h_msg(sig, pk_seed, pk_root, m, digest);
    const DigestIndices at = split_digest(digest.data());

    const Slh slh(pk_seed, sk_seed, &ws);
    Adrs adrs;
    adrs.set_tree_address(at.idx_tree);
    adrs.set_type_and_clear(AdrsType::fors_tree);
    adrs.set_key_pair_address(at.idx_leaf);
    std::uint8_t pk_fors[kN];
    slh.fors_sign(at.md, adrs, sig + kN, pk_fors);
    base::ct_public(pk_fors, kN);  // what verification recomputes (Alg. 20 line 16)
    std::uint8_t root[kN];
    slh.ht_sign(pk_fors, at.idx_tree, at.idx_leaf, sig + kN + kForsSigBytes, root);
    return base::constant_time_equal({root, kN}, {pk_root, kN});
  }

  // slh_verify_internal (Alg. 20) for the encoded public key `pk`.
  static bool verify(const std::uint8_t* pk, MessageParts m, ByteView sig) noexcept {
    if (sig.size() != kP.sig_bytes) return false;  // line 1
    const std::uint8_t* pk_seed = pk;
    const std::uint8_t* pk_root = pk + kN;
    const std::uint8_t* r = sig.data();
    const std::uint8_t* sig_fors = r + kN;
    const std::uint8_t* sig_ht = sig_fors + kForsSigBytes;

    std::array<std::uint8_t, kP.m> digest;
    Hashes::h_msg(r, pk_seed, pk_root, m, digest);
    const DigestIndices at = split_digest(digest.data());

    const Slh slh(pk_seed, nullptr, nullptr);
    Adrs adrs;
    adrs.set_tree_address(at.idx_tree);
    adrs.set_type_and_clear(AdrsType::fors_tree);
    adrs.set_key_pair_address(at.idx_leaf);
    std::uint8_t pk_fors[kN];
    slh.fors_pk_from_sig(sig_fors, at.md, adrs, pk_fors);
    return slh.ht_verify(pk_fors, sig_ht, at.idx_tree, at.idx_leaf, pk_root);
  }

 private:
  Slh(const std::uint8_t* pk_seed, const std::uint8_t* sk_seed, Workspace* ws) noexcept
      : hash_(pk_seed, sk_seed), ws_(ws) {}

  struct DigestIndices {
    const std::uint8_t* md;
    std::uint64_t idx_tree;
    std::uint32_t idx_leaf;
  };

  // Alg. 19 lines 6-10 (Alg. 20 lines 9-13): md, idx_tree and idx_leaf from
  // the H_msg digest.
  static DigestIndices split_digest(const std::uint8_t* digest) noexcept {
    constexpr std::size_t kMdBytes = (kK * kA + 7) / 8;
    constexpr std::size_t kTreeBits = kP.h - kHp;
    constexpr std::size_t kTreeBytes = (kTreeBits + 7) / 8;
    constexpr std::size_t kLeafBytes = (kHp + 7) / 8;
    static_assert(kMdBytes + kTreeBytes + kLeafBytes == kP.m);
    static_assert(kTreeBits <= 64 && kHp < 32);
    constexpr std::uint64_t kTreeMask = kTreeBits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << kTreeBits) - 1;
    return DigestIndices{
        digest,
        to_int(digest + kMdBytes, kTreeBytes) & kTreeMask,
        static_cast<std::uint32_t>(to_int(digest + kMdBytes + kTreeBytes, kLeafBytes) &
                                   ((std::uint64_t{1} << kHp) - 1)),
    };
  }

  // --- WOTS+ (Sec. 5) ---

  // Alg. 7 and 8, lines 1-7: the len base-w digits of msg and of its checksum.
  static std::array<std::uint32_t, kLen> wots_digits(const std::uint8_t* msg) noexcept {
    std::array<std::uint32_t, kLen> digits;
    base_2b(msg, kLgW, kLen1, digits.data());
    std::uint32_t csum = 0;
    for (std::size_t i = 0; i < kLen1; ++i) csum += kW - 1 - digits[i];
    csum <<= (8 - (kLen2 * kLgW) % 8) % 8;
    std::uint8_t csum_bytes[(kLen2 * kLgW + 7) / 8];
    for (std::size_t i = 0; i < sizeof(csum_bytes); ++i) {
      csum_bytes[i] = static_cast<std::uint8_t>(csum >> (8 * (sizeof(csum_bytes) - 1 - i)));
    }
    base_2b(csum_bytes, kLgW, kLen2, digits.data() + kLen1);
    return digits;
  }

  // The WOTS_PRF address for the key pair `adrs` names; callers set the
  // chain address (Alg. 6 lines 1-3, Alg. 7 lines 8-10).
  static Adrs wots_prf_adrs(const Adrs& adrs) noexcept {
    Adrs sk_adrs = adrs;
    sk_adrs.set_type_and_clear(AdrsType::wots_prf);
    sk_adrs.set_key_pair_address(adrs.key_pair_address());
    return sk_adrs;
  }

  // The WOTS_PK address for compressing the chain ends (Alg. 6 and 8).
  static Adrs wots_pk_adrs(const Adrs& adrs) noexcept {
    Adrs pk_adrs = adrs;
    pk_adrs.set_type_and_clear(AdrsType::wots_pk);
    pk_adrs.set_key_pair_address(adrs.key_pair_address());
    return pk_adrs;
  }

  // wots_pkGen (Alg. 6) for the kLeafBatch key pairs first, first + 1, ...
  // of the XMSS tree `tree_adrs` (layer and tree address set): their public
  // keys, the tree's leaves (Alg. 9 lines 2-4), to out + j * n. All
  // kLeafBatch * len chains run in one batch, w - 1 steps each from their
  // PRF secret (lines 5-8). When `sig` is not null and key pair `sign_leaf`
  // is in the batch, its chains also leave their values at `digits` there:
  // the WOTS+ signature wots_sign (Alg. 7) of Alg. 10 lines 5-7.
  void wots_leaves(const Adrs& tree_adrs, std::uint32_t first, std::uint32_t sign_leaf, const std::uint32_t* digits,
                   std::uint8_t* sig, std::uint8_t* out) const noexcept {
    Workspace& ws = *ws_;
    for (std::uint32_t b = 0; b < kLeafBatch; ++b) {
      Adrs leaf = tree_adrs;
      leaf.set_type_and_clear(AdrsType::wots_hash);
      leaf.set_key_pair_address(first + b);
      const Adrs sk_adrs = wots_prf_adrs(leaf);
      for (std::size_t i = 0; i < kLen; ++i) {
        const std::size_t q = b * kLen + i;
        ws.adrs[q] = leaf;
        ws.adrs[q].set_chain_address(static_cast<std::uint32_t>(i));
        ws.prf_adrs[q] = sk_adrs;
        ws.prf_adrs[q].set_chain_address(static_cast<std::uint32_t>(i));
        ws.start[q] = 0;
        ws.steps[q] = kW - 1;
      }
    }
    ChainJobs jobs;
    jobs.count = kBatch;
    jobs.adrs = ws.adrs.data();
    jobs.prf_adrs = ws.prf_adrs.data();
    jobs.start = ws.start.data();
    jobs.steps = ws.steps.data();
    jobs.x = ws.chain_ends.data();
    if (sig != nullptr && sign_leaf - first < kLeafBatch) {
      jobs.capture_first = (sign_leaf - first) * kLen;
      jobs.capture_count = kLen;
      jobs.capture_at = digits;
      jobs.capture = sig;
    }
    hash_.chains(jobs);
    std::array<Adrs, kLeafBatch> pk_adrs;  // lines 10-13
    for (std::uint32_t b = 0; b < kLeafBatch; ++b) pk_adrs[b] = wots_pk_adrs(ws.adrs[b * kLen]);
    hash_.template t_many<kLen>(pk_adrs.data(), ws.chain_ends.data(), out, kLeafBatch);
  }

  // wots_pkFromSig (Alg. 8): the len chains, from the signature's values
  // to the top, in one batch (verification).
  void wots_pk_from_sig(const std::uint8_t* sig, const std::uint8_t* msg, const Adrs& adrs,
                        std::uint8_t* pk) const noexcept {
    const std::array<std::uint32_t, kLen> digits = wots_digits(msg);
    std::array<std::uint8_t, kLen * kN> tmp;
    std::memcpy(tmp.data(), sig, tmp.size());
    std::array<Adrs, kLen> chain_adrs;
    std::array<std::uint32_t, kLen> steps;
    for (std::size_t i = 0; i < kLen; ++i) {
      chain_adrs[i] = adrs;
      chain_adrs[i].set_chain_address(static_cast<std::uint32_t>(i));
      steps[i] = kW - 1 - digits[i];
    }
    ChainJobs jobs;
    jobs.count = kLen;
    jobs.adrs = chain_adrs.data();
    jobs.start = digits.data();
    jobs.steps = steps.data();
    jobs.x = tmp.data();
    hash_.chains(jobs);
    hash_.t(wots_pk_adrs(adrs), tmp.data(), kLen, pk);
  }

  // --- Merkle trees (shared by XMSS, Sec. 6, and FORS, Sec. 8) ---

  // Reduces the 2^height nodes at `nodes` (n bytes each, in index order) to
  // their root, left in the first slot, one level at a time, each level one
  // h_many batch computed in place (xmss_node, Alg. 9 lines 8-11, and
  // fors_node, Alg. 15 lines 9-11). The nodes are at tree height z0, the
  // first one with index `first` there. When auth is not null, the sibling
  // of node `target` (counted from the first) at each level is copied to
  // auth + level * n first: the authentication path of Alg. 10 and 16.
  //   node_adrs(z, i, adrs): sets adrs to the address of node i at height z
  template <class NodeAdrs>
  void reduce(std::uint8_t* nodes, std::size_t height, std::uint32_t z0, std::uint32_t first, std::uint32_t target,
              std::uint8_t* auth, NodeAdrs&& node_adrs) const noexcept {
    Adrs* adrs = ws_->adrs.data();
    for (std::size_t z = 0; z < height; ++z) {
      if (auth != nullptr) {
        std::memcpy(auth + z * kN, nodes + ((target >> z) ^ 1U) * kN, kN);
      }
      const std::uint32_t count = std::uint32_t{1} << (height - z - 1);
      const std::uint32_t level_first = first >> (z + 1);
      const auto level = static_cast<std::uint32_t>(z0 + z + 1);
      for (std::uint32_t b = 0; b < count; b += static_cast<std::uint32_t>(kBatch)) {
        const std::uint32_t m = std::min(count - b, static_cast<std::uint32_t>(kBatch));
        for (std::uint32_t q = 0; q < m; ++q) node_adrs(level, level_first + b + q, adrs[q]);
        hash_.h_many(adrs, nodes + 2 * std::size_t{b} * kN, nodes + std::size_t{b} * kN, m);
      }
    }
  }

  // --- XMSS (Sec. 6) ---

  // xmss_node (Alg. 9) for the root, and xmss_sign (Alg. 10) when `sig` is
  // not null: the WOTS+ signature of `msg` by leaf `idx` followed by AUTH.
  // `tree_adrs` has the layer and tree address set. `root` may alias `msg`.
  // All 2^h' leaves are built first, then the levels above them.
  void xmss_tree(const std::uint8_t* msg, std::uint32_t idx, const Adrs& tree_adrs, std::uint8_t* sig,
                 std::uint8_t* root) const noexcept {
    std::array<std::uint32_t, kLen> digits{};
    if (sig != nullptr) digits = wots_digits(msg);
    std::uint8_t* nodes = ws_->xmss_nodes.data();
    for (std::uint32_t first = 0; first < kXmssLeaves; first += kLeafBatch) {
      wots_leaves(tree_adrs, first, idx, digits.data(), sig, nodes + first * kN);
    }
    reduce(nodes, kHp, 0, 0, idx, sig == nullptr ? nullptr : sig + kLen * kN,
           [&](std::uint32_t z, std::uint32_t i, Adrs& adrs) {
             adrs = tree_adrs;
             adrs.set_type_and_clear(AdrsType::tree);
             adrs.set_tree_height(z);
             adrs.set_tree_index(i);
           });
    std::memcpy(root, nodes, kN);
  }

  // xmss_pkFromSig (Alg. 11).
  void xmss_pk_from_sig(std::uint32_t idx, const std::uint8_t* sig, const std::uint8_t* msg, const Adrs& tree_adrs,
                        std::uint8_t* out) const noexcept {
    Adrs adrs = tree_adrs;
    adrs.set_type_and_clear(AdrsType::wots_hash);
    adrs.set_key_pair_address(idx);
    std::uint8_t node[kN];
    wots_pk_from_sig(sig, msg, adrs, node);
    const std::uint8_t* auth = sig + kLen * kN;
    adrs.set_type_and_clear(AdrsType::tree);
    adrs.set_tree_index(idx);
    for (std::uint32_t k = 0; k < kHp; ++k) {
      adrs.set_tree_height(k + 1);
      if (((idx >> k) & 1U) == 0) {
        adrs.set_tree_index(adrs.tree_index() / 2);
        hash_.h(adrs, node, auth + k * kN, node);
      } else {
        adrs.set_tree_index((adrs.tree_index() - 1) / 2);
        hash_.h(adrs, auth + k * kN, node, node);
      }
    }
    std::memcpy(out, node, kN);
  }

  // --- Hypertree (Sec. 7) ---

  // ht_sign (Alg. 12). Each layer's root, the message of the layer above,
  // comes out of xmss_tree; it equals the xmss_pkFromSig of lines 5 and 14.
  // Writes the root of the top layer, which is PK.root for a consistent key.
  void ht_sign(const std::uint8_t* msg, std::uint64_t idx_tree, std::uint32_t idx_leaf, std::uint8_t* sig,
               std::uint8_t* root) const noexcept {
    std::memcpy(root, msg, kN);
    Adrs adrs;
    for (std::uint32_t j = 0; j < kD; ++j) {
      if (j > 0) {
        idx_leaf = static_cast<std::uint32_t>(idx_tree & ((std::uint64_t{1} << kHp) - 1));
        idx_tree >>= kHp;
      }
      adrs.set_layer_address(j);
      adrs.set_tree_address(idx_tree);
      xmss_tree(root, idx_leaf, adrs, sig + j * kXmssSigBytes, root);
      base::ct_public(root, kN);  // what verification recomputes (Alg. 13 line 11)
    }
  }

  // ht_verify (Alg. 13).
  bool ht_verify(const std::uint8_t* msg, const std::uint8_t* sig, std::uint64_t idx_tree, std::uint32_t idx_leaf,
                 const std::uint8_t* pk_root) const noexcept {
    std::uint8_t node[kN];
    std::memcpy(node, msg, kN);
    Adrs adrs;
    for (std::uint32_t j = 0; j < kD; ++j) {
      if (j > 0) {
        idx_leaf = static_cast<std::uint32_t>(idx_tree & ((std::uint64_t{1} << kHp) - 1));
        idx_tree >>= kHp;
      }
      adrs.set_layer_address(j);
      adrs.set_tree_address(idx_tree);
      xmss_pk_from_sig(idx_leaf, sig + j * kXmssSigBytes, node, adrs, node);
    }
    return base::constant_time_equal({node, kN}, {pk_root, kN});
  }

  // --- FORS (Sec. 8) ---

  // fors_skGen (Alg. 14), lines 1-4: the FORS_PRF address of leaf `idx`.
  static Adrs fors_prf_adrs(const Adrs& adrs, std::uint32_t idx) noexcept {
    Adrs sk_adrs = adrs;
    sk_adrs.set_type_and_clear(AdrsType::fors_prf);
    sk_adrs.set_key_pair_address(adrs.key_pair_address());
    sk_adrs.set_tree_index(idx);
    return sk_adrs;
  }

  // fors_pkFromSig (Alg. 17) lines 21-24: the FORS public key from the k roots.
  void fors_roots_to_pk(const Adrs& adrs, const std::uint8_t* roots, std::uint8_t* pk) const noexcept {
    Adrs pk_adrs = adrs;
    pk_adrs.set_type_and_clear(AdrsType::fors_roots);
    pk_adrs.set_key_pair_address(adrs.key_pair_address());
    hash_.t(pk_adrs, roots, kK, pk);
  }

  // FORS leaves first .. first + count - 1 (indices across all k trees,
  // Alg. 15 lines 2-5: F of the fors_skGen secret) to out + j * n, as
  // one-step chains whose hash address is the tree index.
  void fors_leaves(const Adrs& adrs, std::uint32_t first, std::uint32_t count, std::uint8_t* out) const noexcept {
    Workspace& ws = *ws_;
    for (std::uint32_t b = 0; b < count; b += static_cast<std::uint32_t>(kBatch)) {
      const std::uint32_t m = std::min(count - b, static_cast<std::uint32_t>(kBatch));
      for (std::uint32_t q = 0; q < m; ++q) {
        ws.prf_adrs[q] = fors_prf_adrs(adrs, first + b + q);
        ws.adrs[q] = adrs;
        ws.adrs[q].set_tree_height(0);
        ws.start[q] = first + b + q;
        ws.steps[q] = 1;
      }
      ChainJobs jobs;
      jobs.count = m;
      jobs.adrs = ws.adrs.data();
      jobs.prf_adrs = ws.prf_adrs.data();
      jobs.start = ws.start.data();
      jobs.steps = ws.steps.data();
      jobs.x = out + std::size_t{b} * kN;
      hash_.chains(jobs);
    }
  }

  // FORS tree i: its root, and the authentication path of leaf `target`
  // (fors_sign, Alg. 16 lines 5-10), 2^kForsChunk leaves at a time.
  void fors_tree(const Adrs& adrs, std::uint32_t i, std::uint32_t target, std::uint8_t* auth,
                 std::uint8_t* root) const noexcept {
    constexpr std::uint32_t kChunkLeaves = std::uint32_t{1} << kForsChunk;
    constexpr std::uint32_t kChunks = std::uint32_t{1} << (kA - kForsChunk);
    const auto node_adrs = [&](std::uint32_t z, std::uint32_t index, Adrs& a) {
      a = adrs;
      a.set_tree_height(z);
      a.set_tree_index(index);
    };
    std::uint8_t* nodes = ws_->fors_nodes.data();
    std::uint8_t* chunk_roots = ws_->fors_chunk_roots.data();
    const std::uint32_t tree_first = i << kA;
    for (std::uint32_t c = 0; c < kChunks; ++c) {
      const std::uint32_t first = tree_first + c * kChunkLeaves;
      fors_leaves(adrs, first, kChunkLeaves, nodes);
      const bool has_target = (target >> kForsChunk) == c;
      reduce(nodes, kForsChunk, 0, first, target - c * kChunkLeaves, has_target ? auth : nullptr, node_adrs);
      std::memcpy(chunk_roots + c * kN, nodes, kN);
    }
    if constexpr (kChunks > 1) {
      reduce(chunk_roots, kA - kForsChunk, static_cast<std::uint32_t>(kForsChunk), tree_first >> kForsChunk,
             target >> kForsChunk, auth + kForsChunk * kN, node_adrs);
    }
    std::memcpy(root, chunk_roots, kN);
  }

  // fors_sign (Alg. 16), plus the FORS public key: the k tree roots come out
  // of building the trees, equal to what fors_pkFromSig (Alg. 17) computes
  // from the signature in Alg. 19 line 16. `adrs` is the FORS_TREE address
  // of the key pair.
  void fors_sign(const std::uint8_t* md, const Adrs& adrs, std::uint8_t* sig, std::uint8_t* pk) const noexcept {
    std::array<std::uint32_t, kK> indices;
    base_2b(md, kA, kK, indices.data());
    std::array<std::uint8_t, kK * kN> roots;
    for (std::uint32_t i = 0; i < kK; ++i) {
      std::uint8_t* sig_i = sig + i * (kA + 1) * kN;
      hash_.prf(fors_prf_adrs(adrs, (i << kA) + indices[i]), sig_i);  // line 4
      fors_tree(adrs, i, indices[i], sig_i + kN, roots.data() + i * kN);
    }
    fors_roots_to_pk(adrs, roots.data(), pk);
  }

  // fors_pkFromSig (Alg. 17), the k trees side by side: all k leaves in one
  // batch, then each level of the k authentication paths in one batch.
  void fors_pk_from_sig(const std::uint8_t* sig, const std::uint8_t* md, const Adrs& adrs,
                        std::uint8_t* pk) const noexcept {
    std::array<std::uint32_t, kK> indices;
    base_2b(md, kA, kK, indices.data());
    std::array<std::uint8_t, kK * kN> nodes;
    std::array<Adrs, kK> node_adrs;
    std::array<std::uint32_t, kK> leaf, one;
    for (std::uint32_t i = 0; i < kK; ++i) {
      std::memcpy(nodes.data() + i * kN, sig + i * (kA + 1) * kN, kN);  // sk
      node_adrs[i] = adrs;
      node_adrs[i].set_tree_height(0);  // lines 6-7; the tree index is the hash address
      leaf[i] = (i << kA) + indices[i];
      one[i] = 1;
    }
    ChainJobs jobs;
    jobs.count = kK;
    jobs.adrs = node_adrs.data();
    jobs.start = leaf.data();
    jobs.steps = one.data();
    jobs.x = nodes.data();
    hash_.chains(jobs);  // line 8
    std::array<std::uint8_t, 2 * kK * kN> pairs;
    for (std::uint32_t j = 0; j < kA; ++j) {  // lines 10-20
      for (std::uint32_t i = 0; i < kK; ++i) {
        const std::uint8_t* auth = sig + (i * (kA + 1) + 1 + j) * kN;
        std::uint8_t* pair = pairs.data() + 2 * i * kN;
        if (((indices[i] >> j) & 1U) == 0) {
          std::memcpy(pair, nodes.data() + i * kN, kN);
          std::memcpy(pair + kN, auth, kN);
        } else {
          std::memcpy(pair, auth, kN);
          std::memcpy(pair + kN, nodes.data() + i * kN, kN);
        }
        node_adrs[i].set_tree_height(j + 1);
        node_adrs[i].set_tree_index(leaf[i] >> (j + 1));
      }
      hash_.h_many(node_adrs.data(), pairs.data(), nodes.data(), kK);
    }
    fors_roots_to_pk(adrs, nodes.data(), pk);
  }

  Hashes hash_;
  Workspace* ws_;  // null when verifying
};

template <ParameterSet kSet>
struct SlhWorkspace {
  using S = Slh<kSet>;
  std::array<std::uint8_t, S::kXmssLeaves * S::kN> xmss_nodes;
  std::array<std::uint8_t, S::kBatch * S::kN> chain_ends;
  std::array<Adrs, S::kBatch> adrs;
  std::array<Adrs, S::kBatch> prf_adrs;
  std::array<std::uint32_t, S::kBatch> start;
  std::array<std::uint32_t, S::kBatch> steps;
  std::array<std::uint8_t, (std::size_t{1} << S::kForsChunk) * S::kN> fors_nodes;
  std::array<std::uint8_t, (std::size_t{1} << (S::kA - S::kForsChunk)) * S::kN> fors_chunk_roots;

  ~SlhWorkspace() {
    base::secure_wipe(chain_ends.data(), chain_ends.size());
    base::secure_wipe(fors_nodes.data(), fors_nodes.size());
  }
};

// Calls fn(std::integral_constant<ParameterSet, set>{}) so that fn can
// instantiate Slh<set>. `set` is valid: keys are only built by from_bytes
// and keygen, which check it.
template <class Fn>
decltype(auto) with_parameter_set(ParameterSet set, Fn&& fn) {
  switch (set) {
    case ParameterSet::sha2_128s: return fn(std::integral_constant<ParameterSet, ParameterSet::sha2_128s>{});
    case ParameterSet::sha2_128f: return fn(std::integral_constant<ParameterSet, ParameterSet::sha2_128f>{});
    case ParameterSet::sha2_192f: return fn(std::integral_constant<ParameterSet, ParameterSet::sha2_192f>{});
    case ParameterSet::sha2_256s: return fn(std::integral_constant<ParameterSet, ParameterSet::sha2_256s>{});
    case ParameterSet::shake_128f: return fn(std::integral_constant<ParameterSet, ParameterSet::shake_128f>{});
  }
  __builtin_unreachable();
}

bool is_known(ParameterSet set) noexcept { return static_cast<std::size_t>(set) < kParameterSets.size(); }

constexpr std::size_t kMaxContextBytes = 255;

// M' = toByte(0, 1) || toByte(|ctx|, 1) || ctx || M (Alg. 22 line 8 and
// Alg. 24 line 4); |ctx| <= 255 is checked by the caller.
struct PureMessage {
  PureMessage(ByteView message, ByteView context) noexcept
      : header{0, static_cast<std::uint8_t>(context.size())}, parts{ByteView{header}, context, message} {}
  std::uint8_t header[2];
  ByteView parts[3];
};

// `addrnd` is n bytes, or null for deterministic signing.
base::Result<Bytes> sign_parts(const SecretKey& sk, MessageParts m, const std::uint8_t* addrnd) {
  Bytes sig(params(sk.parameter_set()).sig_bytes);
  const std::uint8_t* key = sk.bytes().data();
  const bool consistent = with_parameter_set(sk.parameter_set(), [&](auto set) {
    using S = Slh<decltype(set)::value>;
    const auto ws = std::make_unique_for_overwrite<typename S::Workspace>();
    return S::sign(key, m, addrnd, sig.data(), *ws);
  });
  if (!consistent) {
    base::secure_wipe(sig.data(), sig.size());
    return base::fail(base::Errc::invalid_value,
                      "SLH-DSA secret key is inconsistent: PK.root does not match SK.seed and "
                      "PK.seed");
  }
  return sig;
}

bool verify_parts(const PublicKey& pk, MessageParts m, ByteView signature) noexcept {
  return with_parameter_set(
      pk.parameter_set(), [&](auto set) { return Slh<decltype(set)::value>::verify(pk.bytes().data(), m, signature); });
}

}  // namespace

std::optional<ParameterSet> parameter_set_from_name(std::string_view name) noexcept {
  for (const Params& p : kParameterSets) {
    if (p.name == name) return p.set;
  }
  return std::nullopt;
}

PublicKey::PublicKey(ParameterSet set, ByteView bytes) noexcept : set_(set) {
  std::memcpy(bytes_.data(), bytes.data(), bytes.size());
}

namespace {

// What from_bytes checks: a known set, and the key size of that set.
base::Status check_key_bytes(ParameterSet set, ByteView bytes, bool secret) {
  if (!is_known(set)) {
    return base::fail(base::Errc::invalid_argument, "unknown SLH-DSA parameter set");
  }
  const std::size_t want = secret ? params(set).sk_bytes : params(set).pk_bytes;
  if (bytes.size() != want) {
    return base::fail(base::Errc::invalid_value, std::string(params(set).name) + (secret ? " secret" : " public") +
                                                     " key must be " + std::to_string(want) + " bytes, got " +
                                                     std::to_string(bytes.size()));
  }
  return {};
}

}  // namespace

base::Result<PublicKey> PublicKey::from_bytes(ParameterSet set, ByteView bytes) {
  SION_TRY_STATUS(check_key_bytes(set, bytes, false));
  return PublicKey(set, bytes);
}

SecretKey::SecretKey(ParameterSet set, ByteView bytes) noexcept : set_(set) {
  std::memcpy(bytes_.data(), bytes.data(), bytes.size());
}

SecretKey::~SecretKey() { base::secure_wipe(bytes_.data(), bytes_.size()); }

base::Result<SecretKey> SecretKey::from_bytes(ParameterSet set, ByteView bytes) {
  SION_TRY_STATUS(check_key_bytes(set, bytes, true));
  return SecretKey(set, bytes);
}

PublicKey SecretKey::public_key() const noexcept {
  const std::size_t n = params(set_).n;
  return PublicKey(set_, {bytes_.data() + 2 * n, 2 * n});
}

base::Result<KeyPair> keygen(ParameterSet set, ByteView sk_seed, ByteView sk_prf, ByteView pk_seed) {
  if (!is_known(set)) {
    return base::fail(base::Errc::invalid_argument, "unknown SLH-DSA parameter set");
  }
  const std::size_t n = params(set).n;
  if (sk_seed.size() != n || sk_prf.size() != n || pk_seed.size() != n) {
    return base::fail(base::Errc::invalid_argument, std::string(params(set).name) + " key generation takes three " +
                                                        std::to_string(n) + "-byte seeds");
  }
  SecretBuffer<SecretKey::kMaxBytes> sk;
  with_parameter_set(set, [&](auto s) {
    using S = Slh<decltype(s)::value>;
    const auto ws = std::make_unique_for_overwrite<typename S::Workspace>();
    S::keygen(sk_seed.data(), sk_prf.data(), pk_seed.data(), sk.data(), *ws);
  });
  base::Result<SecretKey> secret = SecretKey::from_bytes(set, {sk.data(), params(set).sk_bytes});
  return KeyPair{*secret, secret->public_key()};
}

base::Result<Bytes> sign(const SecretKey& sk, ByteView message, ByteView context, ByteView addrnd) {
  if (context.size() > kMaxContextBytes) {
    return base::fail(base::Errc::length_over_max, "SLH-DSA context is longer than 255 bytes");
  }
  if (addrnd.size() != params(sk.parameter_set()).n) {
    return base::fail(base::Errc::invalid_argument, "SLH-DSA addrnd must be n bytes");
  }
  const PureMessage m(message, context);
  return sign_parts(sk, m.parts, addrnd.data());
}

base::Result<Bytes> sign_deterministic(const SecretKey& sk, ByteView message, ByteView context) {
  if (context.size() > kMaxContextBytes) {
    return base::fail(base::Errc::length_over_max, "SLH-DSA context is longer than 255 bytes");
  }
  const PureMessage m(message, context);
  return sign_parts(sk, m.parts, nullptr);
}

bool verify(const PublicKey& pk, ByteView message, ByteView context, ByteView signature) noexcept {
  if (context.size() > kMaxContextBytes) return false;
  const PureMessage m(message, context);
  return verify_parts(pk, m.parts, signature);
}

base::Result<Bytes> sign_internal(const SecretKey& sk, ByteView message, ByteView addrnd) {
  if (addrnd.size() != params(sk.parameter_set()).n) {
    return base::fail(base::Errc::invalid_argument, "SLH-DSA addrnd must be n bytes");
  }
  return sign_parts(sk, {&message, 1}, addrnd.data());
}

base::Result<Bytes> sign_internal_deterministic(const SecretKey& sk, ByteView message) {
  return sign_parts(sk, {&message, 1}, nullptr);
}

bool verify_internal(const PublicKey& pk, ByteView message, ByteView signature) noexcept {
  return verify_parts(pk, {&message, 1}, signature);
}

}  // namespace sion::crypto::slhdsa
