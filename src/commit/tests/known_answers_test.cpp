// docs/state-tree.md, "Known answers": the values are read from the page
// itself, so an edit that breaks one fails here.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sion/base/testing/doc_values.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/smt.hpp"
#include "sion/commit/smt_proof.hpp"

namespace sion::commit {
namespace {

constexpr std::size_t kObjects = 5;

const base::testing::DocValues& doc() {
  static const base::testing::DocValues values(std::string(SION_SOURCE_DIR) + "/docs/state-tree.md");
  return values;
}

// The 32-byte value under `label`; a failure (and zeros) if there is none.
Hash hash_value(const std::string& label) {
  const auto bytes = doc().bytes(label);
  Hash out{};
  if (!bytes || bytes->size() != out.size()) {
    ADD_FAILURE() << "docs/state-tree.md has no 32-byte value '" << label << "'";
    return out;
  }
  std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

std::string n(std::size_t i) { return std::to_string(i); }

std::vector<StateEntry> documented_entries() {
  std::vector<StateEntry> entries;
  for (std::size_t i = 1; i <= kObjects; ++i)
    entries.push_back({hash_value("key " + n(i)), hash_value("value hash " + n(i))});
  return entries;
}

TEST(KnownAnswers, PageParses) {
  EXPECT_TRUE(doc().problems().empty()) << doc().problems().front();
  // Five of key, object, value hash and leaf each, node 1-2, roots 0 .. 5.
  EXPECT_EQ(doc().labels().size(), 4 * kObjects + 1 + kObjects + 1);
}

TEST(KnownAnswers, ValueHashesAndLeaves) {
  for (std::size_t i = 1; i <= kObjects; ++i) {
    const auto object = doc().bytes("object " + n(i));
    ASSERT_TRUE(object) << i;
    EXPECT_EQ(object->size(), 53u) << i;  // u32 + u64 + length byte + 40 bytes
    const Hash value_hash = hash_value("value hash " + n(i));
    EXPECT_EQ(tagged_hash(Domain::object, *object), value_hash) << i;
    EXPECT_EQ(state_leaf_hash(hash_value("key " + n(i)), value_hash), hash_value("leaf " + n(i))) << i;
  }
  EXPECT_EQ(hash_node(Domain::state_node, hash_value("leaf 1"), hash_value("leaf 2")), hash_value("node 1-2"));
}

// Both ways of computing a root (the tree, and state_root without one) and
// a tree grown one object at a time all give the documented roots.
TEST(KnownAnswers, Roots) {
  const std::vector<StateEntry> entries = documented_entries();
  auto grown = SparseMerkleTree::from_entries({}).value();
  EXPECT_EQ(grown.root_hash(), hash_value("root 0"));
  for (std::size_t count = 0; count <= kObjects; ++count) {
    const std::span<const StateEntry> first(entries.data(), count);
    const Hash root = hash_value("root " + n(count));
    EXPECT_EQ(SparseMerkleTree::from_entries(first).value().root_hash(), root) << count;
    EXPECT_EQ(state_root(first).value(), root) << count;
    if (count == 0) continue;
    const StateChange change{entries[count - 1].key, entries[count - 1].value_hash};
    ASSERT_TRUE(grown.update(std::span(&change, 1), count + 1).ok());
    EXPECT_EQ(grown.root_hash(), root) << count;
  }
}

// Every documented object is provable under root 5.
TEST(KnownAnswers, ProofsUnderTheFullRoot) {
  const std::vector<StateEntry> entries = documented_entries();
  const auto tree = SparseMerkleTree::from_entries(entries).value();
  const Hash root = hash_value("root " + n(kObjects));
  for (const StateEntry& entry : entries) {
    EXPECT_TRUE(verify_state_proof(root, entry.key, entry.value_hash, tree.prove(entry.key)));
  }
  // Keys 1 and 2 part at depth 255: the proof of either has 256 levels.
  EXPECT_EQ(tree.prove(entries[0].key).depth, 256u);
}

}  // namespace
}  // namespace sion::commit
