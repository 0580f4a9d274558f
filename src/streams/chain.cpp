#include "sion/streams/chain.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>

#include "sion/commit/merkle_log.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::streams {
namespace {

// The 33 bytes one step hashes: the tag, then the element.
struct StepInput {
  std::array<std::uint8_t, 1 + 32> bytes{static_cast<std::uint8_t>(commit::Domain::stream_step)};
  void set(const Hash& element) noexcept { std::memcpy(bytes.data() + 1, element.data(), 32); }
  Hash hash() const noexcept { return crypto::sha3_256(bytes); }
};

}  // namespace

Hash chain_step(const Hash& element) noexcept {
  StepInput input;
  input.set(element);
  return input.hash();
}

Hash walk(const Hash& element, std::uint64_t steps) noexcept {
  StepInput input;
  input.set(element);
  Hash out = element;
  for (std::uint64_t i = 0; i < steps; ++i) {
    out = input.hash();
    input.set(out);
  }
  return out;
}

void walk_many(std::span<const Hash> elements, std::span<const std::uint32_t> steps, Hash* out) {
  const std::size_t count = std::min(elements.size(), steps.size());
  // Walks still running, each one hash further per round, all together in
  // lanes; a walk leaves the group when its steps are done.
  std::vector<StepInput> inputs(count);
  std::vector<std::size_t> live;
  live.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    inputs[i].set(elements[i]);
    out[i] = elements[i];
    if (steps[i] > 0) live.push_back(i);
  }
  std::vector<const std::uint8_t*> pointers;
  std::vector<Hash> hashed;
  for (std::uint32_t round = 1; !live.empty(); ++round) {
    pointers.clear();
    for (const std::size_t i : live) pointers.push_back(inputs[i].bytes.data());
    hashed.resize(live.size());
    crypto::sha3_256_many(pointers.data(), 33, hashed.data(), live.size());
    std::size_t kept = 0;
    for (std::size_t j = 0; j < live.size(); ++j) {
      const std::size_t i = live[j];
      out[i] = hashed[j];
      inputs[i].set(hashed[j]);
      if (steps[i] > round) live[kept++] = i;
    }
    live.resize(kept);
  }
}

std::uint32_t checkpoint_spacing(std::uint32_t length) noexcept {
  std::uint64_t spacing = 1;
  while (spacing * spacing < length) spacing <<= 1;
  return static_cast<std::uint32_t>(spacing);
}

std::uint32_t checkpoint_count(std::uint32_t length) noexcept { return length / checkpoint_spacing(length); }

Hash checkpoint_root(std::span<const Hash> checkpoints) {
  commit::MerkleLog log(kCheckpointHasher);
  log.reserve(checkpoints.size());
  for (const Hash& checkpoint : checkpoints) log.append(checkpoint);
  return log.root();
}

base::Result<std::vector<Hash>> checkpoint_path(std::span<const Hash> checkpoints, std::uint32_t number) {
  if (number == 0 || number > checkpoints.size()) {
    return base::fail(base::Errc::invalid_argument,
                      "checkpoint " + std::to_string(number) + " is not in 1.." + std::to_string(checkpoints.size()));
  }
  commit::MerkleLog log(kCheckpointHasher);
  log.reserve(checkpoints.size());
  for (const Hash& checkpoint : checkpoints) log.append(checkpoint);
  SION_TRY(auto proof, log.inclusion_proof(number - 1, checkpoints.size()));
  return std::move(proof.path);
}

bool proves_checkpoint(const Hash& element, std::uint32_t number, std::uint32_t count, std::span<const Hash> path,
                       const Hash& root) noexcept {
  if (number == 0 || number > count) return false;
  commit::InclusionProof proof;
  proof.leaf_index = number - 1;
  proof.tree_size = count;
  proof.path.assign(path.begin(), path.end());
  return commit::verify_inclusion(kCheckpointHasher, kCheckpointHasher.leaf(element), proof,
                                  commit::TreeHead{count, root});
}

base::Result<Chain> build_chain(const Hash& seed, std::uint32_t length) {
  if (length == 0) return base::fail(base::Errc::invalid_argument, "a chain has at least 1 element");
  Chain chain;
  chain.length = length;
  const std::uint32_t spacing = checkpoint_spacing(length);
  chain.checkpoints.resize(checkpoint_count(length));
  StepInput input;
  input.set(seed);
  Hash element = seed;
  for (std::uint32_t index = length; index > 0; --index) {
    // element is x[index]
    if (index % spacing == 0) chain.checkpoints[index / spacing - 1] = element;
    element = input.hash();
    input.set(element);
  }
  chain.anchor = element;
  chain.root = checkpoint_root(chain.checkpoints);
  return chain;
}

}  // namespace sion::streams
