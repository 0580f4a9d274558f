// Lineages and the ids derived from them (docs/agents.md, "Lineage",
// "Objects").
#include "sion/agents/lineage.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "sion/agents/objects.hpp"
#include "sion/crypto/keccak.hpp"
#include "test_values.hpp"

namespace sion::agents {
namespace {

using testing::id_n;

base::Bytes tagged(std::uint8_t tag, base::ByteView data) {
  base::Bytes input(1 + data.size());
  input[0] = tag;
  std::copy(data.begin(), data.end(), input.begin() + 1);
  return input;
}

TEST(Lineage, IdsFollowTheirDefinitions) {
  const Id root = id_n(1);
  const Lineage lineage = *child_lineage(child_of_account(root, 7), 0x01020304u);
  // root (32) || count 2 || 07000000 || 04030201
  const std::array<std::uint8_t, 9> path_bytes = {2, 7, 0, 0, 0, 4, 3, 2, 1};
  base::Bytes encoding(root.size() + path_bytes.size());
  std::copy(root.begin(), root.end(), encoding.begin());
  std::copy(path_bytes.begin(), path_bytes.end(), encoding.begin() + 32);
  EXPECT_EQ(codec::encode(lineage), encoding);
  const Id agent = lineage_id(lineage);
  EXPECT_EQ(agent, crypto::sha3_256(tagged(0x46, encoding)));
  EXPECT_EQ(allotment_id(agent), crypto::sha3_256(tagged(0x47, agent)));
  // The overlay id: 8 bytes of the root's hash, then 24 of the agent's.
  const Id overlay = overlay_id(root, agent);
  const Id by_root = crypto::sha3_256(tagged(0x48, root));
  const Id by_agent = crypto::sha3_256(tagged(0x48, agent));
  EXPECT_TRUE(std::equal(overlay.begin(), overlay.begin() + 8, by_root.begin()));
  EXPECT_TRUE(std::equal(overlay.begin() + 8, overlay.end(), by_agent.begin() + 8));
  EXPECT_EQ(batch_id(agent), crypto::sha3_256(tagged(0x4a, agent)));
  EXPECT_NE(allotment_id(agent), overlay);
  // Every overlay below one root shares the prefix; another root's does not.
  const Id sibling = overlay_id(root, lineage_id(child_of_account(root, 9)));
  EXPECT_TRUE(std::equal(overlay.begin(), overlay.begin() + 8, sibling.begin()));
  EXPECT_NE(overlay, sibling);
  EXPECT_FALSE(std::equal(overlay.begin(), overlay.begin() + 8, overlay_id(id_n(3), agent).begin()));
}

TEST(Lineage, ChildrenStopAtTheMaximumDepth) {
  Lineage lineage = child_of_account(id_n(2), 0);
  EXPECT_EQ(lineage.depth(), 1u);
  for (std::uint32_t i = 1; i < kMaxDepth; ++i) {
    auto child = child_lineage(lineage, i);
    ASSERT_TRUE(child.has_value()) << i;
    lineage = *child;
  }
  EXPECT_EQ(lineage.depth(), kMaxDepth);
  EXPECT_FALSE(child_lineage(lineage, 99).has_value());
  // The encoding of a 17-index path does not decode.
  base::Bytes encoding = codec::encode(lineage);
  encoding[32] = 17;
  encoding.insert(encoding.end(), {0, 0, 0, 0});
  EXPECT_FALSE(codec::decode<Lineage>(encoding).ok());
}

TEST(Lineage, IdsOnThePathAreThePrefixes) {
  Lineage lineage = child_of_account(id_n(3), 5);
  lineage = *child_lineage(lineage, 6);
  lineage = *child_lineage(lineage, 7);
  const auto ids = agent_ids_on_path(lineage);
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0], lineage_id(child_of_account(id_n(3), 5)));
  EXPECT_EQ(ids[1], lineage_id(*child_lineage(child_of_account(id_n(3), 5), 6)));
  EXPECT_EQ(ids[2], lineage_id(lineage));
}

TEST(Lineage, AncestorsArePrefixesUnderTheSameRoot) {
  const Lineage a = child_of_account(id_n(4), 1);
  const Lineage b = *child_lineage(a, 2);
  const Lineage c = *child_lineage(b, 3);
  EXPECT_TRUE(is_proper_ancestor(a, b));
  EXPECT_TRUE(is_proper_ancestor(a, c));
  EXPECT_TRUE(is_proper_ancestor(b, c));
  EXPECT_FALSE(is_proper_ancestor(c, c));
  EXPECT_FALSE(is_proper_ancestor(c, a));
  EXPECT_FALSE(is_proper_ancestor(child_of_account(id_n(4), 9), c));  // a sibling's branch
  EXPECT_FALSE(is_proper_ancestor(child_of_account(id_n(5), 1), *child_lineage(child_of_account(id_n(4), 1), 2)));
}

}  // namespace
}  // namespace sion::agents
