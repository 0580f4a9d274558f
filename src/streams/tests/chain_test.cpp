// The chain, its checkpoints and their tree (docs/streams.md, "The chain").
#include "sion/streams/chain.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sion/crypto/keccak.hpp"

namespace sion::streams {
namespace {

Hash hash_n(std::uint8_t n) {
  Hash h{};
  h.fill(n);
  return h;
}

TEST(Chain, StepIsTheTaggedHash) {
  const Hash x = hash_n(7);
  base::Bytes input{0x4b};
  input.insert(input.end(), x.begin(), x.end());
  EXPECT_EQ(chain_step(x), crypto::sha3_256(input));
  EXPECT_EQ(walk(x, 0), x);
  EXPECT_EQ(walk(x, 2), chain_step(chain_step(x)));
}

TEST(Chain, SpacingIsTheLeastPowerOfTwoWhoseSquareCoversTheLength) {
  EXPECT_EQ(checkpoint_spacing(1), 1u);
  EXPECT_EQ(checkpoint_spacing(2), 2u);
  EXPECT_EQ(checkpoint_spacing(4), 2u);
  EXPECT_EQ(checkpoint_spacing(5), 4u);
  EXPECT_EQ(checkpoint_spacing(1'000'000), 1024u);
  EXPECT_EQ(checkpoint_spacing(1'048'576), 1024u);
  EXPECT_EQ(checkpoint_spacing(1'048'577), 2048u);
  EXPECT_EQ(checkpoint_spacing(kMaxLength), 65536u);
  EXPECT_EQ(checkpoint_count(1'048'064), 1023u);
  EXPECT_EQ(checkpoint_count(kMaxLength), 65535u);
  for (std::uint32_t n = 1; n < 2000; ++n) EXPECT_GE(checkpoint_count(n), 1u) << n;
}

TEST(Chain, BuildsAnchorAndCheckpointsByWalkingFromTheSeed) {
  const Hash seed = hash_n(1);
  for (const std::uint32_t n : {1u, 2u, 3u, 4u, 5u, 16u, 17u, 100u}) {
    const auto chain = build_chain(seed, n);
    ASSERT_TRUE(chain.ok()) << n;
    EXPECT_EQ(chain->anchor, walk(seed, n)) << n;
    const std::uint32_t c = checkpoint_spacing(n);
    ASSERT_EQ(chain->checkpoints.size(), checkpoint_count(n));
    for (std::uint32_t j = 1; j <= chain->checkpoints.size(); ++j) {
      EXPECT_EQ(chain->checkpoints[j - 1], walk(seed, n - j * c)) << n << " " << j;
      const auto path = checkpoint_path(chain->checkpoints, j);
      ASSERT_TRUE(path.ok());
      EXPECT_TRUE(proves_checkpoint(chain->checkpoints[j - 1], j, checkpoint_count(n), *path, chain->root));
      EXPECT_FALSE(proves_checkpoint(hash_n(0xee), j, checkpoint_count(n), *path, chain->root));
      if (checkpoint_count(n) > 1) {
        const std::uint32_t other = j == 1 ? 2 : 1;
        EXPECT_FALSE(proves_checkpoint(chain->checkpoints[j - 1], other, checkpoint_count(n), *path, chain->root));
      }
    }
    EXPECT_EQ(chain->root, checkpoint_root(chain->checkpoints));
  }
  EXPECT_FALSE(build_chain(seed, 0).ok());
  EXPECT_FALSE(checkpoint_path(std::vector<Hash>{seed}, 0).ok());
  EXPECT_FALSE(checkpoint_path(std::vector<Hash>{seed}, 2).ok());
}

TEST(Chain, WalksInLanesAgreeWithOneByOne) {
  std::vector<Hash> elements;
  std::vector<std::uint32_t> steps;
  for (std::uint8_t i = 0; i < 13; ++i) {
    elements.push_back(hash_n(i));
    steps.push_back(static_cast<std::uint32_t>((i * 7) % 11));
  }
  std::vector<Hash> out(elements.size());
  walk_many(elements, steps, out.data());
  for (std::size_t i = 0; i < elements.size(); ++i) EXPECT_EQ(out[i], walk(elements[i], steps[i])) << i;
}

}  // namespace
}  // namespace sion::streams
