#include "sion/commit/hash.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace sion::commit {

Hash tagged_hash(Domain domain, base::ByteView data) noexcept {
  // Ids and objects are short: one copy onto the stack lets the one-shot
  // hash (BMI2 where the CPU has it) take them.
  constexpr std::size_t kShort = 512;
  if (data.size() < kShort) {
    std::array<std::uint8_t, kShort> buffer;
    buffer[0] = static_cast<std::uint8_t>(domain);
    if (!data.empty()) std::memcpy(buffer.data() + 1, data.data(), data.size());
    return crypto::sha3_256(base::ByteView(buffer.data(), data.size() + 1));
  }
  crypto::Sha3_256 sponge;
  const auto tag = static_cast<std::uint8_t>(domain);
  sponge.absorb(base::ByteView(&tag, 1));
  sponge.absorb(data);
  sponge.finalize();
  Hash out;
  sponge.squeeze(out);
  return out;
}

namespace {

// Inputs per pass: the tagged copies of a pass stay in cache while they are
// hashed, and equal lengths still fill every Keccak lane.
constexpr std::size_t kTaggedChunk = 256;

void tagged_hashes_slice(Domain domain, std::span<const base::ByteView> inputs, Hash* out) {
  std::vector<std::uint8_t> buffer;
  std::array<base::ByteView, kTaggedChunk> tagged;
  for (std::size_t begin = 0; begin < inputs.size(); begin += kTaggedChunk) {
    const auto chunk = inputs.subspan(begin, std::min(kTaggedChunk, inputs.size() - begin));
    std::size_t total = 0;
    for (const base::ByteView input : chunk) total += 1 + input.size();
    buffer.resize(total);
    std::size_t offset = 0;
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      buffer[offset] = static_cast<std::uint8_t>(domain);
      if (!chunk[i].empty()) std::memcpy(buffer.data() + offset + 1, chunk[i].data(), chunk[i].size());
      tagged[i] = base::ByteView(buffer.data() + offset, 1 + chunk[i].size());
      offset += 1 + chunk[i].size();
    }
    crypto::sha3_256_each(std::span(tagged.data(), chunk.size()), out + begin);
  }
}

}  // namespace

void tagged_hashes(Domain domain, std::span<const base::ByteView> inputs, Hash* out, base::Executor* executor) {
  // Slices of whole chunks, a few per thread; each result depends only on
  // its input, so the split changes nothing but the speed.
  const std::size_t chunks = (inputs.size() + kTaggedChunk - 1) / kTaggedChunk;
  const auto slices = static_cast<unsigned>(std::min<std::size_t>(chunks, 4 * base::concurrency(executor)));
  base::for_slices(executor, chunks, slices, [&](unsigned, std::size_t first, std::size_t last) {
    const std::size_t begin = first * kTaggedChunk;
    const std::size_t end = std::min(inputs.size(), last * kTaggedChunk);
    if (begin < end) tagged_hashes_slice(domain, inputs.subspan(begin, end - begin), out + begin);
  });
}

namespace {

constexpr std::size_t kNodeInput = 1 + 2 * sizeof(Hash);

void fill_node_input(std::uint8_t* buffer, Domain domain, const Hash& left, const Hash& right) noexcept {
  buffer[0] = static_cast<std::uint8_t>(domain);
  std::memcpy(buffer + 1, left.data(), left.size());
  std::memcpy(buffer + 1 + left.size(), right.data(), right.size());
}

}  // namespace

Hash hash_node(Domain domain, const Hash& left, const Hash& right) noexcept {
  std::array<std::uint8_t, kNodeInput> input;
  fill_node_input(input.data(), domain, left, right);
  return crypto::sha3_256(input);
}

void hash_nodes(Domain domain, const Hash* left, const Hash* right, Hash* out, std::size_t count) noexcept {
  // Chunks of 8 inputs: as many as the widest Keccak path hashes at once.
  constexpr std::size_t kChunk = 8;
  std::array<std::array<std::uint8_t, kNodeInput>, kChunk> inputs;
  std::array<const std::uint8_t*, kChunk> pointers;
  for (std::size_t j = 0; j < kChunk; ++j) pointers[j] = inputs[j].data();
  for (std::size_t done = 0; done < count; done += kChunk) {
    const std::size_t n = std::min(kChunk, count - done);
    for (std::size_t j = 0; j < n; ++j) {
      fill_node_input(inputs[j].data(), domain, left[done + j], right[done + j]);
    }
    crypto::sha3_256_many(pointers.data(), kNodeInput, out + done, n);
  }
}

}  // namespace sion::commit
