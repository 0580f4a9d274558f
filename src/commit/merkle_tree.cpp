#include "sion/commit/merkle_tree.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "sion/base/endian.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/crypto/sha2.hpp"

namespace sion::commit {
namespace {

// SHA-256 of tag || left || right (65 bytes) is two blocks whose padding
// (FIPS 180-4, Sec. 5.1.1) is fixed: 0x80 after the input, then the length
// 520 bits big endian in the last 8 bytes.
using Sha256NodeBlocks = std::array<std::uint8_t, 128>;

void fill_sha256_node(Sha256NodeBlocks& blocks, Domain tag, const Hash& left, const Hash& right) noexcept {
  blocks[0] = static_cast<std::uint8_t>(tag);
  std::memcpy(blocks.data() + 1, left.data(), left.size());
  std::memcpy(blocks.data() + 33, right.data(), right.size());
}

Sha256NodeBlocks sha256_node_template() noexcept {
  Sha256NodeBlocks blocks{};
  blocks[65] = 0x80;
  blocks[126] = 0x02;  // 520 = 0x0208
  blocks[127] = 0x08;
  return blocks;
}

Hash sha256_digest(const crypto::Sha256State& state) noexcept {
  Hash out;
  for (std::size_t i = 0; i < state.size(); ++i) {
    for (std::size_t b = 0; b < 4; ++b) out[4 * i + b] = static_cast<std::uint8_t>(state[i] >> (24 - 8 * b));
  }
  return out;
}

}  // namespace

base::Failure detail::index_error(std::uint64_t index, const std::string& bound) {
  return base::fail(base::Errc::invalid_argument, "leaf index " + std::to_string(index) + " is not below " + bound);
}

Hash TreeHasher::empty() const noexcept {
  return function == HashFunction::sha256 ? crypto::sha256({}) : crypto::sha3_256({});
}

Hash TreeHasher::leaf(base::ByteView data) const noexcept {
  if (function == HashFunction::sha3_256) return tagged_hash(leaf_tag, data);
  crypto::Sha256 sha;
  const auto tag = static_cast<std::uint8_t>(leaf_tag);
  sha.update(base::ByteView(&tag, 1));
  sha.update(data);
  return sha.finalize();
}

Hash TreeHasher::node(const Hash& left, const Hash& right) const noexcept {
  if (function == HashFunction::sha3_256) return hash_node(node_tag, left, right);
  Sha256NodeBlocks blocks = sha256_node_template();
  fill_sha256_node(blocks, node_tag, left, right);
  crypto::Sha256State state = crypto::kSha256Initial;
  crypto::sha256_compress(state, blocks.data(), 2);
  return sha256_digest(state);
}

void TreeHasher::leaves(const std::uint8_t* const* inputs, std::size_t length, Hash* out, std::size_t count) const {
  constexpr std::size_t kChunk = 16;  // as in pairs()
  // tag || input, then FIPS 180-4, Sec. 5.1.1 padding: 0x80, zeros, and
  // the bit length in the last 8 bytes. SHA3-256 pads inside
  // sha3_256_many; only the tag is prepended.
  const std::size_t message = 1 + length;
  const bool sha256 = function == HashFunction::sha256;
  const std::size_t blocks = (message + 1 + 8 + 63) / 64;
  const std::size_t stride = sha256 ? blocks * 64 : message;
  std::vector<std::uint8_t> buffer(kChunk * stride, 0);
  std::array<const std::uint8_t*, kChunk> pointers;
  for (std::size_t j = 0; j < kChunk; ++j) {
    std::uint8_t* m = buffer.data() + j * stride;
    pointers[j] = m;
    m[0] = static_cast<std::uint8_t>(leaf_tag);
    if (!sha256) continue;
    m[message] = 0x80;
    const std::uint64_t bits = static_cast<std::uint64_t>(message) * 8;
    base::store_be(m + stride - 8, bits);
  }
  std::array<crypto::Sha256State, kChunk> states;
  for (std::size_t done = 0; done < count; done += kChunk) {
    const std::size_t n = std::min(kChunk, count - done);
    for (std::size_t j = 0; j < n; ++j) {
      if (length != 0) std::memcpy(buffer.data() + j * stride + 1, inputs[done + j], length);
    }
    if (!sha256) {
      crypto::sha3_256_many(pointers.data(), message, out + done, n);
      continue;
    }
    std::fill_n(states.begin(), n, crypto::kSha256Initial);
    crypto::sha256_compress_many(states.data(), pointers.data(), n, blocks);
    for (std::size_t j = 0; j < n; ++j) out[done + j] = sha256_digest(states[j]);
  }
}

void TreeHasher::pairs(const Hash* level, Hash* out, std::size_t count) const noexcept {
  // Chunks of 16: as many messages as the widest SHA-256 path runs at once
  // (two Keccak x8 calls for SHA3).
  constexpr std::size_t kChunk = 16;
  if (function == HashFunction::sha3_256) {
    std::array<Hash, kChunk> left;
    std::array<Hash, kChunk> right;
    for (std::size_t done = 0; done < count; done += kChunk) {
      const std::size_t n = std::min(kChunk, count - done);
      for (std::size_t j = 0; j < n; ++j) {
        left[j] = level[2 * (done + j)];
        right[j] = level[2 * (done + j) + 1];
      }
      hash_nodes(node_tag, left.data(), right.data(), out + done, n);
    }
    return;
  }
  std::array<Sha256NodeBlocks, kChunk> blocks;
  blocks.fill(sha256_node_template());
  std::array<const std::uint8_t*, kChunk> pointers;
  for (std::size_t j = 0; j < kChunk; ++j) pointers[j] = blocks[j].data();
  std::array<crypto::Sha256State, kChunk> states;
  for (std::size_t done = 0; done < count; done += kChunk) {
    const std::size_t n = std::min(kChunk, count - done);
    for (std::size_t j = 0; j < n; ++j) {
      fill_sha256_node(blocks[j], node_tag, level[2 * (done + j)], level[2 * (done + j) + 1]);
      states[j] = crypto::kSha256Initial;
    }
    crypto::sha256_compress_many(states.data(), pointers.data(), n, 2);
    for (std::size_t j = 0; j < n; ++j) out[done + j] = sha256_digest(states[j]);
  }
}

}  // namespace sion::commit
