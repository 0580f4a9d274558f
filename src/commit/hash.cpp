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

void tagged_hashes(Domain domain, std::span<const base::ByteView> inputs, Hash* out) {
  // Each input behind its tag in one buffer; then runs of equal length.
  std::vector<std::size_t> offsets(inputs.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    offsets[i] = total;
    total += 1 + inputs[i].size();
  }
  std::vector<std::uint8_t> buffer(total);
  std::vector<base::ByteView> tagged(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    buffer[offsets[i]] = static_cast<std::uint8_t>(domain);
    if (!inputs[i].empty()) std::memcpy(buffer.data() + offsets[i] + 1, inputs[i].data(), inputs[i].size());
    tagged[i] = base::ByteView(buffer.data() + offsets[i], 1 + inputs[i].size());
  }
  crypto::sha3_256_each(tagged, out);
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
