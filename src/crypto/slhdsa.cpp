// SLH-DSA (FIPS 205). Section and algorithm numbers below are FIPS 205's
// unless marked otherwise.
//
// Structure: the tweakable hash functions of Sec. 11 (ShakeHashes,
// Sha2Hashes) under one engine template, Slh<set>, that holds Sec. 5-9
// with every parameter a compile-time constant. The public functions at the
// bottom check lengths and dispatch on the key's parameter set.
//
// Side channels: keygen and signing branch and index memory only on public
// values: tree, leaf and FORS indices come from H_msg of the message and R,
// which the signature publishes, and WOTS+ digits come from the message or
// from tree roots that a verifier recomputes from the signature. Named
// secret buffers (the key during keygen, WOTS+ chains during key generation,
// the SHA2 PRF block, HMAC and SHAKE states) are wiped when done; transient
// copies on the stack inside the hash functions are not.

#include "sion/crypto/slhdsa.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <type_traits>

#include "sion/crypto/keccak.hpp"
#include "sion/crypto/sha2.hpp"

namespace sion::crypto::slhdsa {
namespace {

using base::ByteView;
using base::Bytes;

// M given as the concatenation of its pieces, so that the external
// interface can sign 0x00 || len(ctx) || ctx || M without copying M.
using MessageParts = std::span<const ByteView>;

inline void store_be32(std::uint8_t* p, std::uint32_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

inline void store_be64(std::uint8_t* p, std::uint64_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

inline void store_be(std::uint8_t* p, std::uint32_t v) noexcept { store_be32(p, v); }
inline void store_be(std::uint8_t* p, std::uint64_t v) noexcept { store_be64(p, v); }

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
inline void base_2b(const std::uint8_t* x, unsigned b, std::size_t out_len,
                    std::uint32_t* out) noexcept {
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
    store_be32(out, layer_);
    store_be32(out + 4, 0);
    store_be64(out + 8, tree_);
    store_be32(out + 16, static_cast<std::uint32_t>(type_));
    store_be32(out + 20, key_pair_);
    store_be32(out + 24, chain_or_height_);
    store_be32(out + 28, hash_or_index_);
  }

  // ADRSc = ADRS[3] || ADRS[8:16] || ADRS[19] || ADRS[20:32] (Sec. 11.2).
  void write_compressed(std::uint8_t* out) const noexcept {
    out[0] = static_cast<std::uint8_t>(layer_);
    store_be64(out + 1, tree_);
    out[9] = static_cast<std::uint8_t>(type_);
    store_be32(out + 10, key_pair_);
    store_be32(out + 14, chain_or_height_);
    store_be32(out + 18, hash_or_index_);
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

// SLH-DSA-SHAKE (Sec. 11.1): every function is SHAKE256.
template <std::size_t kN>
class ShakeHashes {
 public:
  ShakeHashes(const std::uint8_t* pk_seed, const std::uint8_t* sk_seed) noexcept
      : pk_seed_(pk_seed), sk_seed_(sk_seed) {}

  // PRF(PK.seed, SK.seed, ADRS) = SHAKE256(PK.seed || ADRS || SK.seed, 8n)
  void prf(const Adrs& adrs, std::uint8_t* out) const noexcept {
    tweak(adrs, {ByteView{sk_seed_, kN}}, out);
  }
  // F(PK.seed, ADRS, M1) = SHAKE256(PK.seed || ADRS || M1, 8n)
  void f(const Adrs& adrs, const std::uint8_t* in, std::uint8_t* out) const noexcept {
    tweak(adrs, {ByteView{in, kN}}, out);
  }
  // H(PK.seed, ADRS, M2) = SHAKE256(PK.seed || ADRS || M2, 8n), M2 = left || right
  void h(const Adrs& adrs, const std::uint8_t* left, const std::uint8_t* right,
         std::uint8_t* out) const noexcept {
    tweak(adrs, {ByteView{left, kN}, ByteView{right, kN}}, out);
  }
  // T_l(PK.seed, ADRS, M_l) = SHAKE256(PK.seed || ADRS || M_l, 8n), l = count
  void t(const Adrs& adrs, const std::uint8_t* in, std::size_t count,
         std::uint8_t* out) const noexcept {
    tweak(adrs, {ByteView{in, count * kN}}, out);
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
  static void h_msg(const std::uint8_t* r, const std::uint8_t* pk_seed,
                    const std::uint8_t* pk_root, MessageParts m,
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
  void tweak(const Adrs& adrs, std::initializer_list<ByteView> inputs,
             std::uint8_t* out) const noexcept {
    std::uint8_t a[Adrs::kFullBytes];
    adrs.write_full(a);
    Shake256 xof;
    xof.absorb({pk_seed_, kN});
    xof.absorb(a);
    for (const ByteView in : inputs) xof.absorb(in);
    xof.finalize();
    xof.squeeze({out, kN});
  }

  const std::uint8_t* pk_seed_;
  const std::uint8_t* sk_seed_;
};

// The chaining value after the single block PK.seed || toByte(0, b - n)
// that starts every SHA2 tweakable hash (Sec. 11.2).
template <class Traits>
std::array<typename Traits::Word, 8> seeded_state(const std::uint8_t* pk_seed,
                                                  std::size_t n) noexcept {
  std::array<std::uint8_t, Traits::kBlockBytes> block{};
  std::memcpy(block.data(), pk_seed, n);
  std::array<typename Traits::Word, 8> state = Traits::kInitial;
  Traits::compress(state, block.data(), 1);
  return state;
}

// Trunc_n(Hash(PK.seed || toByte(0, b - n) || ADRSc || in_1 || ... || in_P))
// for P n-byte inputs that fit, with padding, into the one block after the
// PK.seed block: a single compression from the `seeded` midstate. The block
// is wiped afterwards when it held a secret (kSecret).
template <class Traits, std::size_t kN, std::size_t kParts, bool kSecret>
void hash_one_block(const std::array<typename Traits::Word, 8>& seeded, const Adrs& adrs,
                    const std::array<const std::uint8_t*, kParts>& inputs,
                    std::uint8_t* out) noexcept {
  using Word = typename Traits::Word;
  constexpr std::size_t kBlock = Traits::kBlockBytes;
  constexpr std::size_t kMessage = Adrs::kCompressedBytes + kParts * kN;
  static_assert(kMessage + 1 + Traits::kLengthBytes <= kBlock);
  static_assert(kN % sizeof(Word) == 0);

  std::array<std::uint8_t, kBlock> block{};
  adrs.write_compressed(block.data());
  for (std::size_t i = 0; i < kParts; ++i) {
    std::memcpy(block.data() + Adrs::kCompressedBytes + i * kN, inputs[i], kN);
  }
  // FIPS 180-4, Sec. 5.1: 0x80, zeros, then the bit length of everything
  // hashed (the PK.seed block included) in the last 8 bytes (its upper bytes
  // in SHA-512's 16-byte length field stay zero).
  block[kMessage] = 0x80;
  store_be64(block.data() + kBlock - 8, (kBlock + kMessage) * 8);
  std::array<Word, 8> state = seeded;
  Traits::compress(state, block.data(), 1);
  for (std::size_t i = 0; i < kN / sizeof(Word); ++i) store_be(out + i * sizeof(Word), state[i]);
  if constexpr (kSecret) {
    base::secure_wipe(block.data(), block.size());
    base::secure_wipe(state.data(), sizeof(state));
  }
}

// SLH-DSA-SHA2 (Sec. 11.2). kWide selects security categories 3 and 5
// (Sec. 11.2.2), where H, T_l, H_msg and PRF_msg use SHA-512 and PK.seed is
// padded to SHA-512's 128-byte block for H and T_l; F and PRF stay on
// SHA-256 in every category (Sec. 11.2.1 and 11.2.2).
template <std::size_t kN, bool kWide>
class Sha2Hashes {
  using BigTraits = std::conditional_t<kWide, Sha512Traits, Sha256Traits>;
  using Big = Sha2<BigTraits>;

 public:
  Sha2Hashes(const std::uint8_t* pk_seed, const std::uint8_t* sk_seed) noexcept
      : sk_seed_(sk_seed), seed256_(seeded_state<Sha256Traits>(pk_seed, kN)) {
    if constexpr (kWide) {
      seed_big_ = seeded_state<Sha512Traits>(pk_seed, kN);
    } else {
      seed_big_ = seed256_;
    }
  }

  // PRF(PK.seed, SK.seed, ADRS) =
  //   Trunc_n(SHA-256(PK.seed || toByte(0, 64 - n) || ADRSc || SK.seed))
  void prf(const Adrs& adrs, std::uint8_t* out) const noexcept {
    hash_one_block<Sha256Traits, kN, 1, true>(seed256_, adrs, {sk_seed_}, out);
  }
  // F(PK.seed, ADRS, M1) = Trunc_n(SHA-256(PK.seed || toByte(0, 64 - n) || ADRSc || M1))
  void f(const Adrs& adrs, const std::uint8_t* in, std::uint8_t* out) const noexcept {
    hash_one_block<Sha256Traits, kN, 1, false>(seed256_, adrs, {in}, out);
  }
  // H(PK.seed, ADRS, M2) = Trunc_n(SHA-X(PK.seed || toByte(0, b - n) || ADRSc || M2)),
  // SHA-X = SHA-256 (b = 64) in category 1, SHA-512 (b = 128) in 3 and 5.
  void h(const Adrs& adrs, const std::uint8_t* left, const std::uint8_t* right,
         std::uint8_t* out) const noexcept {
    hash_one_block<BigTraits, kN, 2, false>(seed_big_, adrs, {left, right}, out);
  }
  // T_l(PK.seed, ADRS, M_l): as H, with M_l of `count` n-byte strings.
  void t(const Adrs& adrs, const std::uint8_t* in, std::size_t count,
         std::uint8_t* out) const noexcept {
    std::uint8_t a[Adrs::kCompressedBytes];
    adrs.write_compressed(a);
    Big hasher(seed_big_, 1);
    hasher.update(a);
    hasher.update({in, count * kN});
    const typename Big::Digest digest = hasher.finalize();
    std::memcpy(out, digest.data(), kN);
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
  static void h_msg(const std::uint8_t* r, const std::uint8_t* pk_seed,
                    const std::uint8_t* pk_root, MessageParts m,
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
  const std::uint8_t* sk_seed_;
  Sha256State seed256_;                // for F and PRF
  typename Big::State seed_big_;       // for H and T_l
};

// ---------------------------------------------------------------------------
// The scheme for one parameter set.

// Leaves computed per call of a tree's leaf generator: the unit a
// multi-buffer hash (several lanes of SHA-256 or Keccak at once) would fill.
constexpr std::uint32_t kLeafBatch = 8;

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

  using Hashes = std::conditional_t<kP.family == HashFamily::shake, ShakeHashes<kN>,
                                    Sha2Hashes<kN, (kP.security_category > 1)>>;

  // slh_keygen_internal (Alg. 18): writes SK = SK.seed || SK.prf || PK.seed || PK.root.
  static void keygen(const std::uint8_t* sk_seed, const std::uint8_t* sk_prf,
                     const std::uint8_t* pk_seed, std::uint8_t* sk) noexcept {
    const Slh slh(pk_seed, sk_seed);
    Adrs adrs;
    adrs.set_layer_address(static_cast<std::uint32_t>(kD - 1));
    std::memcpy(sk, sk_seed, kN);
    std::memcpy(sk + kN, sk_prf, kN);
    std::memcpy(sk + 2 * kN, pk_seed, kN);
    slh.xmss_tree(nullptr, 0, adrs, nullptr, sk + 3 * kN);
  }

  // slh_sign_internal (Alg. 19) for the encoded secret key `sk`; `addrnd`
  // is n bytes, or null for the deterministic variant. Beyond FIPS 205:
  // false when the hypertree's top root, computed anyway, is not the key's
  // PK.root, i.e. the key is corrupt and its signatures would never verify.
  static bool sign(const std::uint8_t* sk, MessageParts m, const std::uint8_t* addrnd,
                   std::uint8_t* sig) noexcept {
    const std::uint8_t* sk_seed = sk;
    const std::uint8_t* sk_prf = sk + kN;
    const std::uint8_t* pk_seed = sk + 2 * kN;
    const std::uint8_t* pk_root = sk + 3 * kN;

    const std::uint8_t* opt_rand = addrnd != nullptr ? addrnd : pk_seed;  // line 2
    Hashes::prf_msg(sk_prf, opt_rand, m, sig);  // lines 3-4: R is the first n bytes of SIG
    std::array<std::uint8_t, kP.m> digest;
    Hashes::h_msg(sig, pk_seed, pk_root, m, digest);
    const DigestIndices at = split_digest(digest.data());

    const Slh slh(pk_seed, sk_seed);
    Adrs adrs;
    adrs.set_tree_address(at.idx_tree);
    adrs.set_type_and_clear(AdrsType::fors_tree);
    adrs.set_key_pair_address(at.idx_leaf);
    std::uint8_t pk_fors[kN];
    slh.fors_sign(at.md, adrs, sig + kN, pk_fors);
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

    const Slh slh(pk_seed, nullptr);
    Adrs adrs;
    adrs.set_tree_address(at.idx_tree);
    adrs.set_type_and_clear(AdrsType::fors_tree);
    adrs.set_key_pair_address(at.idx_leaf);
    std::uint8_t pk_fors[kN];
    slh.fors_pk_from_sig(sig_fors, at.md, adrs, pk_fors);
    return slh.ht_verify(pk_fors, sig_ht, at.idx_tree, at.idx_leaf, pk_root);
  }

 private:
  Slh(const std::uint8_t* pk_seed, const std::uint8_t* sk_seed) noexcept
      : hash_(pk_seed, sk_seed) {}

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
    constexpr std::uint64_t kTreeMask =
        kTreeBits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << kTreeBits) - 1;
    return DigestIndices{
        digest,
        to_int(digest + kMdBytes, kTreeBytes) & kTreeMask,
        static_cast<std::uint32_t>(to_int(digest + kMdBytes + kTreeBytes, kLeafBytes) &
                                   ((std::uint64_t{1} << kHp) - 1)),
    };
  }

  // The multi-hash seams: PRF or F on `count` independent inputs, one address
  // each. Loops today; a multi-buffer hash replaces them without touching the
  // algorithms. f_many works in place: x_i = F(PK.seed, adrs[i], x_i).
  void prf_many(const Adrs* adrs, std::uint8_t* out, std::size_t count) const noexcept {
    for (std::size_t i = 0; i < count; ++i) hash_.prf(adrs[i], out + i * kN);
  }
  void f_many(const Adrs* adrs, std::uint8_t* x, std::size_t count) const noexcept {
    for (std::size_t i = 0; i < count; ++i) hash_.f(adrs[i], x + i * kN, x + i * kN);
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

  // chain (Alg. 5), in place.
  void chain(std::uint8_t* x, std::uint32_t start, std::uint32_t steps, Adrs& adrs) const noexcept {
    for (std::uint32_t j = start; j < start + steps; ++j) {
      adrs.set_hash_address(j);
      hash_.f(adrs, x, x);
    }
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

  // wots_pkGen (Alg. 6); `adrs` is a WOTS_HASH address with its key pair set.
  // The len chains are independent, so they advance in lockstep: step j of
  // every chain is one f_many call.
  void wots_pk_gen(const Adrs& adrs, std::uint8_t* pk) const noexcept {
    SecretBuffer<kLen * kN> tmp;
    std::array<Adrs, kLen> chain_adrs;
    Adrs sk_adrs = wots_prf_adrs(adrs);
    for (std::size_t i = 0; i < kLen; ++i) {
      chain_adrs[i] = sk_adrs;
      chain_adrs[i].set_chain_address(static_cast<std::uint32_t>(i));
    }
    prf_many(chain_adrs.data(), tmp.data(), kLen);  // lines 5-6
    for (std::size_t i = 0; i < kLen; ++i) {
      chain_adrs[i] = adrs;
      chain_adrs[i].set_chain_address(static_cast<std::uint32_t>(i));
    }
    for (std::uint32_t j = 0; j < kW - 1; ++j) {  // lines 7-8: chain(sk, 0, w - 1)
      for (Adrs& a : chain_adrs) a.set_hash_address(j);
      f_many(chain_adrs.data(), tmp.data(), kLen);
    }
    hash_.t(wots_pk_adrs(adrs), tmp.data(), kLen, pk);  // lines 10-13
  }

  // wots_sign (Alg. 7): writes the len * n byte signature of the n-byte msg.
  void wots_sign(const std::uint8_t* msg, Adrs adrs, std::uint8_t* sig) const noexcept {
    const std::array<std::uint32_t, kLen> digits = wots_digits(msg);
    Adrs sk_adrs = wots_prf_adrs(adrs);
    for (std::size_t i = 0; i < kLen; ++i) {
      sk_adrs.set_chain_address(static_cast<std::uint32_t>(i));
      hash_.prf(sk_adrs, sig + i * kN);
      adrs.set_chain_address(static_cast<std::uint32_t>(i));
      chain(sig + i * kN, 0, digits[i], adrs);
    }
  }

  // wots_pkFromSig (Alg. 8).
  void wots_pk_from_sig(const std::uint8_t* sig, const std::uint8_t* msg, Adrs adrs,
                        std::uint8_t* pk) const noexcept {
    const std::array<std::uint32_t, kLen> digits = wots_digits(msg);
    std::array<std::uint8_t, kLen * kN> tmp;
    std::memcpy(tmp.data(), sig, tmp.size());
    for (std::size_t i = 0; i < kLen; ++i) {
      adrs.set_chain_address(static_cast<std::uint32_t>(i));
      chain(tmp.data() + i * kN, digits[i], kW - 1 - digits[i], adrs);
    }
    hash_.t(wots_pk_adrs(adrs), tmp.data(), kLen, pk);
  }

  // --- Merkle trees (shared by XMSS, Sec. 6, and FORS, Sec. 8) ---

  // The root of a tree of height kHeight and the authentication path of leaf
  // `target` (skipped when auth is null): the recursive xmss_node /
  // fors_node (Alg. 9 and 15) evaluated bottom-up, left to right, so that
  // each node is computed once. A left child waits in stack slot z (its
  // height) until its right sibling is done.
  //   leaves(first, count, out): leaves first .. first + count - 1
  //   node(z, i, left, right, out): the node at height z, index i
  template <std::size_t kHeight, class Leaves, class Node>
  void tree_hash(std::uint32_t target, Leaves&& leaves, Node&& node, std::uint8_t* auth,
                 std::uint8_t* root) const noexcept {
    static_assert(kHeight >= 1 && kHeight < 32);
    constexpr std::uint32_t kLeaves = std::uint32_t{1} << kHeight;
    constexpr std::uint32_t kBatch = std::min(kLeafBatch, kLeaves);
    std::uint8_t stack[kHeight * kN];
    std::uint8_t batch[kBatch * kN];
    for (std::uint32_t first = 0; first < kLeaves; first += kBatch) {
      leaves(first, kBatch, batch);
      for (std::uint32_t b = 0; b < kBatch; ++b) {
        std::uint8_t* current = batch + b * kN;
        std::uint32_t idx = first + b;
        for (std::uint32_t z = 0;; ++z) {
          if (z == kHeight) {
            std::memcpy(root, current, kN);
            break;
          }
          if (auth != nullptr && idx == ((target >> z) ^ 1U)) {
            std::memcpy(auth + z * kN, current, kN);
          }
          if ((idx & 1U) == 0) {
            std::memcpy(stack + z * kN, current, kN);
            break;
          }
          node(z + 1, idx >> 1, stack + z * kN, current, current);
          idx >>= 1;
        }
      }
    }
  }

  // --- XMSS (Sec. 6) ---

  // xmss_node (Alg. 9) for the root, and xmss_sign (Alg. 10) when `sig` is
  // not null: the WOTS+ signature of `msg` by leaf `idx` followed by AUTH.
  // `tree_adrs` has the layer and tree address set. `root` may alias `msg`.
  void xmss_tree(const std::uint8_t* msg, std::uint32_t idx, const Adrs& tree_adrs,
                 std::uint8_t* sig, std::uint8_t* root) const noexcept {
    if (sig != nullptr) {  // Alg. 10 lines 5-7
      Adrs adrs = tree_adrs;
      adrs.set_type_and_clear(AdrsType::wots_hash);
      adrs.set_key_pair_address(idx);
      wots_sign(msg, adrs, sig);
    }
    tree_hash<kHp>(
        idx,
        [&](std::uint32_t first, std::uint32_t count, std::uint8_t* out) {
          for (std::uint32_t j = 0; j < count; ++j) {  // Alg. 9 lines 2-4
            Adrs adrs = tree_adrs;
            adrs.set_type_and_clear(AdrsType::wots_hash);
            adrs.set_key_pair_address(first + j);
            wots_pk_gen(adrs, out + j * kN);
          }
        },
        [&](std::uint32_t z, std::uint32_t i, const std::uint8_t* left, const std::uint8_t* right,
            std::uint8_t* out) {  // Alg. 9 lines 8-11
          Adrs adrs = tree_adrs;
          adrs.set_type_and_clear(AdrsType::tree);
          adrs.set_tree_height(z);
          adrs.set_tree_index(i);
          hash_.h(adrs, left, right, out);
        },
        sig == nullptr ? nullptr : sig + kLen * kN, root);
  }

  // xmss_pkFromSig (Alg. 11).
  void xmss_pk_from_sig(std::uint32_t idx, const std::uint8_t* sig, const std::uint8_t* msg,
                        const Adrs& tree_adrs, std::uint8_t* out) const noexcept {
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
  void ht_sign(const std::uint8_t* msg, std::uint64_t idx_tree, std::uint32_t idx_leaf,
               std::uint8_t* sig, std::uint8_t* root) const noexcept {
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
    }
  }

  // ht_verify (Alg. 13).
  bool ht_verify(const std::uint8_t* msg, const std::uint8_t* sig, std::uint64_t idx_tree,
                 std::uint32_t idx_leaf, const std::uint8_t* pk_root) const noexcept {
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
  void fors_roots_to_pk(const Adrs& adrs, const std::uint8_t* roots,
                        std::uint8_t* pk) const noexcept {
    Adrs pk_adrs = adrs;
    pk_adrs.set_type_and_clear(AdrsType::fors_roots);
    pk_adrs.set_key_pair_address(adrs.key_pair_address());
    hash_.t(pk_adrs, roots, kK, pk);
  }

  // fors_sign (Alg. 16), plus the FORS public key: the k tree roots come out
  // of building the trees, equal to what fors_pkFromSig (Alg. 17) computes
  // from the signature in Alg. 19 line 16. `adrs` is the FORS_TREE address
  // of the key pair.
  void fors_sign(const std::uint8_t* md, const Adrs& adrs, std::uint8_t* sig,
                 std::uint8_t* pk) const noexcept {
    std::array<std::uint32_t, kK> indices;
    base_2b(md, kA, kK, indices.data());
    std::array<std::uint8_t, kK * kN> roots;
    for (std::uint32_t i = 0; i < kK; ++i) {
      std::uint8_t* sig_i = sig + i * (kA + 1) * kN;
      const std::uint32_t offset = i << kA;  // leaf 0 of tree i
      hash_.prf(fors_prf_adrs(adrs, offset + indices[i]), sig_i);  // line 4
      tree_hash<kA>(
          indices[i],
          [&](std::uint32_t first, std::uint32_t count, std::uint8_t* out) {
            // fors_node (Alg. 15) lines 2-5 for `count` leaves.
            std::array<Adrs, kLeafBatch> leaf_adrs;
            for (std::uint32_t j = 0; j < count; ++j) {
              leaf_adrs[j] = fors_prf_adrs(adrs, offset + first + j);
            }
            prf_many(leaf_adrs.data(), out, count);
            for (std::uint32_t j = 0; j < count; ++j) {
              leaf_adrs[j] = adrs;
              leaf_adrs[j].set_tree_height(0);
              leaf_adrs[j].set_tree_index(offset + first + j);
            }
            f_many(leaf_adrs.data(), out, count);
          },
          [&](std::uint32_t z, std::uint32_t j, const std::uint8_t* left,
              const std::uint8_t* right, std::uint8_t* out) {  // Alg. 15 lines 9-11
            Adrs node_adrs = adrs;
            node_adrs.set_tree_height(z);
            node_adrs.set_tree_index((i << (kA - z)) + j);
            hash_.h(node_adrs, left, right, out);
          },
          sig_i + kN, roots.data() + i * kN);
    }
    fors_roots_to_pk(adrs, roots.data(), pk);
  }

  // fors_pkFromSig (Alg. 17).
  void fors_pk_from_sig(const std::uint8_t* sig, const std::uint8_t* md, Adrs adrs,
                        std::uint8_t* pk) const noexcept {
    std::array<std::uint32_t, kK> indices;
    base_2b(md, kA, kK, indices.data());
    std::array<std::uint8_t, kK * kN> roots;
    for (std::uint32_t i = 0; i < kK; ++i) {
      const std::uint8_t* sk = sig + i * (kA + 1) * kN;
      const std::uint8_t* auth = sk + kN;
      std::uint8_t* node = roots.data() + i * kN;
      adrs.set_tree_height(0);
      adrs.set_tree_index((i << kA) + indices[i]);
      hash_.f(adrs, sk, node);
      for (std::uint32_t j = 0; j < kA; ++j) {
        adrs.set_tree_height(j + 1);
        if (((indices[i] >> j) & 1U) == 0) {
          adrs.set_tree_index(adrs.tree_index() / 2);
          hash_.h(adrs, node, auth + j * kN, node);
        } else {
          adrs.set_tree_index((adrs.tree_index() - 1) / 2);
          hash_.h(adrs, auth + j * kN, node, node);
        }
      }
    }
    fors_roots_to_pk(adrs, roots.data(), pk);
  }

  Hashes hash_;
};

// Calls fn(std::integral_constant<ParameterSet, set>{}) so that fn can
// instantiate Slh<set>. `set` is valid: keys are only built by from_bytes
// and keygen, which check it.
template <class Fn>
decltype(auto) with_parameter_set(ParameterSet set, Fn&& fn) {
  switch (set) {
    case ParameterSet::sha2_128s:
      return fn(std::integral_constant<ParameterSet, ParameterSet::sha2_128s>{});
    case ParameterSet::sha2_128f:
      return fn(std::integral_constant<ParameterSet, ParameterSet::sha2_128f>{});
    case ParameterSet::sha2_192f:
      return fn(std::integral_constant<ParameterSet, ParameterSet::sha2_192f>{});
    case ParameterSet::sha2_256s:
      return fn(std::integral_constant<ParameterSet, ParameterSet::sha2_256s>{});
    case ParameterSet::shake_128f:
      return fn(std::integral_constant<ParameterSet, ParameterSet::shake_128f>{});
  }
  __builtin_unreachable();
}

bool is_known(ParameterSet set) noexcept {
  return static_cast<std::size_t>(set) < kParameterSets.size();
}

constexpr std::size_t kMaxContextBytes = 255;

// M' = toByte(0, 1) || toByte(|ctx|, 1) || ctx || M (Alg. 22 line 8 and
// Alg. 24 line 4); |ctx| <= 255 is checked by the caller.
struct PureMessage {
  PureMessage(ByteView message, ByteView context) noexcept
      : header{0, static_cast<std::uint8_t>(context.size())},
        parts{ByteView{header}, context, message} {}
  std::uint8_t header[2];
  ByteView parts[3];
};

// `addrnd` is n bytes, or null for deterministic signing.
base::Result<Bytes> sign_parts(const SecretKey& sk, MessageParts m, const std::uint8_t* addrnd) {
  Bytes sig(params(sk.parameter_set()).sig_bytes);
  const std::uint8_t* key = sk.bytes().data();
  const bool consistent = with_parameter_set(sk.parameter_set(), [&](auto set) {
    return Slh<decltype(set)::value>::sign(key, m, addrnd, sig.data());
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
  return with_parameter_set(pk.parameter_set(), [&](auto set) {
    return Slh<decltype(set)::value>::verify(pk.bytes().data(), m, signature);
  });
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

base::Result<PublicKey> PublicKey::from_bytes(ParameterSet set, ByteView bytes) {
  if (!is_known(set)) {
    return base::fail(base::Errc::invalid_argument, "unknown SLH-DSA parameter set");
  }
  if (bytes.size() != params(set).pk_bytes) {
    return base::fail(base::Errc::invalid_value,
                      std::string(params(set).name) + " public key must be " +
                          std::to_string(params(set).pk_bytes) + " bytes, got " +
                          std::to_string(bytes.size()));
  }
  return PublicKey(set, bytes);
}

SecretKey::SecretKey(ParameterSet set, ByteView bytes) noexcept : set_(set) {
  std::memcpy(bytes_.data(), bytes.data(), bytes.size());
}

SecretKey::~SecretKey() { base::secure_wipe(bytes_.data(), bytes_.size()); }

base::Result<SecretKey> SecretKey::from_bytes(ParameterSet set, ByteView bytes) {
  if (!is_known(set)) {
    return base::fail(base::Errc::invalid_argument, "unknown SLH-DSA parameter set");
  }
  if (bytes.size() != params(set).sk_bytes) {
    return base::fail(base::Errc::invalid_value,
                      std::string(params(set).name) + " secret key must be " +
                          std::to_string(params(set).sk_bytes) + " bytes, got " +
                          std::to_string(bytes.size()));
  }
  return SecretKey(set, bytes);
}

PublicKey SecretKey::public_key() const noexcept {
  const std::size_t n = params(set_).n;
  return PublicKey(set_, {bytes_.data() + 2 * n, 2 * n});
}

base::Result<KeyPair> keygen(ParameterSet set, ByteView sk_seed, ByteView sk_prf,
                             ByteView pk_seed) {
  if (!is_known(set)) {
    return base::fail(base::Errc::invalid_argument, "unknown SLH-DSA parameter set");
  }
  const std::size_t n = params(set).n;
  if (sk_seed.size() != n || sk_prf.size() != n || pk_seed.size() != n) {
    return base::fail(base::Errc::invalid_argument,
                      std::string(params(set).name) + " key generation takes three " +
                          std::to_string(n) + "-byte seeds");
  }
  SecretBuffer<SecretKey::kMaxBytes> sk;
  with_parameter_set(set, [&](auto s) {
    Slh<decltype(s)::value>::keygen(sk_seed.data(), sk_prf.data(), pk_seed.data(), sk.data());
  });
  base::Result<SecretKey> secret = SecretKey::from_bytes(set, {sk.data(), params(set).sk_bytes});
  return KeyPair{*secret, secret->public_key()};
}

base::Result<Bytes> sign(const SecretKey& sk, ByteView message, ByteView context,
                         ByteView addrnd) {
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
