#include "sion/state/object_store.hpp"
#include "sion/base/testing/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "sion/state/kv_store.hpp"

namespace sion::state {
namespace {

ObjectId id_of(std::uint64_t n) {
  ObjectId id{};
  // Spread ids over the key space so paths diverge near the root, as hashes do.
  id = commit::tagged_hash(commit::Domain::object, base::ByteView(reinterpret_cast<const std::uint8_t*>(&n), 8));
  return id;
}

Object object_of(std::uint64_t n, std::uint64_t version) {
  Object object;
  object.type = static_cast<std::uint32_t>(n % 7);
  object.version = version;
  object.data.assign(n % 50, static_cast<std::uint8_t>(n + version));
  return object;
}

using Model = std::map<ObjectId, Object>;

commit::Hash model_root(const Model& model) {
  std::vector<commit::StateEntry> entries;
  for (const auto& [id, object] : model) entries.push_back({id, object_hash(object)});
  auto root = commit::state_root(entries);
  EXPECT_TRUE(root.ok());
  return *root;
}

std::unique_ptr<ObjectStore> open_store(const base::testing::TempDir& dir, std::uint64_t retain = 64) {
  ObjectStoreOptions options;
  options.retain_versions = retain;
  options.sync_writes = false;
  auto store = ObjectStore::open(dir.str(), options);
  EXPECT_TRUE(store.ok()) << store.error().to_string();
  return store.ok() ? std::move(*store) : nullptr;
}

TEST(ObjectStore, NewStoreIsEmptyAtVersionZero) {
  base::testing::TempDir dir;
  auto store = open_store(dir);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->version(), 0u);
  EXPECT_EQ(store->size(), 0u);
  EXPECT_EQ(store->root(), model_root({}));
  auto missing = store->get(id_of(1));
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST(ObjectStore, AppliesWritesAndProvesThem) {
  base::testing::TempDir dir;
  auto store = open_store(dir);
  ASSERT_TRUE(store);
  Model model;
  std::vector<ObjectWrite> writes;
  for (std::uint64_t n = 0; n < 200; ++n) {
    writes.push_back({id_of(n), object_of(n, 1)});
    model[id_of(n)] = object_of(n, 1);
  }
  auto version = store->apply(writes);
  ASSERT_TRUE(version.ok()) << version.error().to_string();
  EXPECT_EQ(*version, 1u);
  EXPECT_EQ(store->root(), model_root(model));

  for (std::uint64_t n : {0u, 57u, 199u, 1000u}) {
    auto proven = store->get_with_proof(id_of(n));
    ASSERT_TRUE(proven.ok());
    EXPECT_EQ(proven->object.has_value(), n < 200);
    std::optional<commit::Hash> value;
    if (proven->object) value = object_hash(*proven->object);
    EXPECT_TRUE(commit::verify_state_proof(store->root(), id_of(n), value, proven->proof));
  }

  // Modify some, delete some.
  writes.clear();
  for (std::uint64_t n = 0; n < 200; n += 3) {
    if (n % 2 == 0) {
      writes.push_back({id_of(n), std::nullopt});
      model.erase(id_of(n));
    } else {
      writes.push_back({id_of(n), object_of(n, 2)});
      model[id_of(n)] = object_of(n, 2);
    }
  }
  ASSERT_TRUE(store->apply(writes).ok());
  EXPECT_EQ(store->version(), 2u);
  EXPECT_EQ(store->root(), model_root(model));
  EXPECT_EQ(store->size(), model.size());

  Model seen;
  ASSERT_TRUE(store
                  ->for_each([&](const ObjectId& id, const Object& object) {
                    seen[id] = object;
                    return true;
                  })
                  .ok());
  EXPECT_EQ(seen, model);
}

TEST(ObjectStore, InvalidWritesChangeNothing) {
  base::testing::TempDir dir;
  auto store = open_store(dir);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->apply(std::vector<ObjectWrite>{{id_of(1), object_of(1, 1)}}).ok());
  const commit::Hash before = store->root();

  std::vector<ObjectWrite> duplicate = {{id_of(2), object_of(2, 1)}, {id_of(2), object_of(3, 1)}};
  auto result = store->apply(duplicate);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.error().is_invalid_input()) << result.error().to_string();

  Object huge;
  huge.data.resize(kMaxObjectBytes + 1);
  result = store->apply(std::vector<ObjectWrite>{{id_of(4), huge}});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.error().is_invalid_input());

  EXPECT_EQ(store->version(), 1u);
  EXPECT_EQ(store->root(), before);
  auto absent = store->get(id_of(2));
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
}

TEST(ObjectStore, RetainedVersionsReopenAfterRestartAndOldOnesArePruned) {
  base::testing::TempDir dir;
  constexpr std::uint64_t kRetain = 5;
  std::vector<commit::Hash> roots = {model_root({})};  // roots[v]
  Model model;
  std::mt19937_64 random(7);
  {
    auto store = open_store(dir, kRetain);
    ASSERT_TRUE(store);
    for (std::uint64_t version = 1; version <= 12; ++version) {
      std::vector<ObjectWrite> writes;
      for (int i = 0; i < 30; ++i) {
        const std::uint64_t n = random() % 100;
        if (std::any_of(writes.begin(), writes.end(), [&](const ObjectWrite& w) { return w.id == id_of(n); })) {
          continue;
        }
        if (random() % 4 == 0) {
          writes.push_back({id_of(n), std::nullopt});
          model.erase(id_of(n));
        } else {
          writes.push_back({id_of(n), object_of(n, version)});
          model[id_of(n)] = object_of(n, version);
        }
      }
      ASSERT_TRUE(store->apply(writes).ok());
      roots.push_back(model_root(model));
      ASSERT_EQ(store->root(), roots.back());
    }
  }
  auto store = open_store(dir, kRetain);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->version(), 12u);
  EXPECT_EQ(store->oldest_version(), 12 - kRetain + 1);
  EXPECT_EQ(store->root(), roots[12]);
  for (std::uint64_t version = 0; version <= 12; ++version) {
    auto root = store->root_at(version);
    if (version < store->oldest_version()) {
      ASSERT_FALSE(root.ok());
      EXPECT_EQ(root.error().code, base::Errc::not_found);
      continue;
    }
    ASSERT_TRUE(root.ok()) << version << ": " << root.error().to_string();
    EXPECT_EQ(*root, roots[version]);
    // Every retained version's nodes are still there: a proof for a key
    // reads all the way down and verifies against that version's root.
    for (std::uint64_t n = 0; n < 100; n += 9) {
      auto proof = store->prove_at(id_of(n), version);
      ASSERT_TRUE(proof.ok()) << proof.error().to_string();
      const bool present_now = model.count(id_of(n)) != 0;
      if (version == 12) {
        std::optional<commit::Hash> value;
        if (present_now) value = object_hash(model[id_of(n)]);
        EXPECT_TRUE(commit::verify_state_proof(*root, id_of(n), value, *proof));
      }
    }
  }
  // And the store keeps working after the reopen.
  ASSERT_TRUE(store->apply(std::vector<ObjectWrite>{{id_of(500), object_of(500, 13)}}).ok());
  model[id_of(500)] = object_of(500, 13);
  EXPECT_EQ(store->root(), model_root(model));
}

TEST(ObjectStore, PruningBoundsTheNodesKept) {
  base::testing::TempDir dir;
  std::size_t nodes_after_first = 0;
  {
    auto store = open_store(dir, 2);
    ASSERT_TRUE(store);
    // The same 50 objects rewritten 40 times: without pruning the node
    // count would grow with every version.
    for (std::uint64_t version = 1; version <= 40; ++version) {
      std::vector<ObjectWrite> writes;
      for (std::uint64_t n = 0; n < 50; ++n) writes.push_back({id_of(n), object_of(n, version)});
      ASSERT_TRUE(store->apply(writes).ok());
    }
  }
  auto kv = KvStore::open(dir.str());
  ASSERT_TRUE(kv.ok());
  ASSERT_TRUE((*kv)
                  ->scan_prefix(Column::nodes, {},
                                [&](base::ByteView, base::ByteView) {
                                  ++nodes_after_first;
                                  return true;
                                })
                  .ok());
  // Every version rewrites every node of a tree of 50 objects; two retained
  // versions keep at most two such trees.
  std::vector<commit::StateEntry> entries;
  for (std::uint64_t n = 0; n < 50; ++n) entries.push_back({id_of(n), object_hash(object_of(n, 40))});
  auto tree = commit::SparseMerkleTree::from_entries(entries, 1);
  ASSERT_TRUE(tree.ok());
  const std::size_t one_version = tree->all_nodes().new_nodes.size();
  EXPECT_LE(nodes_after_first, 2 * one_version);
  EXPECT_GE(nodes_after_first, one_version);
}

TEST(ObjectStore, BadBytesOnDiskAreCorruptStoreErrors) {
  base::testing::TempDir dir;
  {
    auto store = open_store(dir);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->apply(std::vector<ObjectWrite>{{id_of(1), object_of(1, 1)}, {id_of(2), object_of(2, 1)}}).ok());
  }
  {
    auto kv = KvStore::open(dir.str());
    ASSERT_TRUE(kv.ok());
    KvBatch batch;
    batch.put(Column::objects, id_of(1), std::vector<std::uint8_t>{1, 2, 3});  // does not decode
    batch.put(Column::objects, id_of(2), codec::encode(object_of(2, 99)));     // decodes, wrong hash
    ASSERT_TRUE((*kv)->write(std::move(batch)).ok());
  }
  auto store = open_store(dir);
  ASSERT_TRUE(store);
  for (std::uint64_t n : {1u, 2u}) {
    auto object = store->get(id_of(n));
    ASSERT_FALSE(object.ok());
    EXPECT_EQ(object.error().code, base::Errc::corrupt_store);
    EXPECT_NE(object.error().reason.find(base::to_hex(id_of(n))), std::string::npos) << object.error().reason;
  }
}

TEST(ObjectStore, ACorruptTreeNodeFailsTheOpen) {
  base::testing::TempDir dir;
  {
    auto store = open_store(dir);
    ASSERT_TRUE(store);
    std::vector<ObjectWrite> writes;
    for (std::uint64_t n = 0; n < 20; ++n) writes.push_back({id_of(n), object_of(n, 1)});
    ASSERT_TRUE(store->apply(writes).ok());
  }
  {
    auto kv = KvStore::open(dir.str());
    ASSERT_TRUE(kv.ok());
    std::vector<base::Bytes> keys;
    ASSERT_TRUE((*kv)
                    ->scan_prefix(Column::nodes, {},
                                  [&](base::ByteView key, base::ByteView) {
                                    keys.emplace_back(key.begin(), key.end());
                                    return true;
                                  })
                    .ok());
    ASSERT_FALSE(keys.empty());
    KvBatch batch;
    batch.put(Column::nodes, keys[keys.size() / 2], std::vector<std::uint8_t>{0x07});
    ASSERT_TRUE((*kv)->write(std::move(batch)).ok());
  }
  ObjectStoreOptions options;
  auto store = ObjectStore::open(dir.str(), options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, base::Errc::corrupt_store) << store.error().to_string();
}

// A caller's columns ride in a version's batch: written with it, read
// back, refused for the store's own columns, and gone with it when the
// write fails.
TEST(ObjectStore, ExtraColumnsAreWrittenInTheVersionsBatch) {
  base::testing::TempDir dir;
  const Column headers = extra_column(0);
  const Column index = extra_column(1);
  int writes = 0;
  bool fail_next = false;
  ObjectStoreOptions options;
  options.sync_writes = false;
  options.extra_columns = {"headers", "index"};
  options.write_fault = [&]() -> base::Status {
    ++writes;
    if (fail_next) return base::fail(base::Errc::io_error, "injected");
    return {};
  };
  const base::Bytes key = {1, 2, 3};
  const base::Bytes value = {4, 5};
  {
    auto store = ObjectStore::open(dir.str(), options);
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    KvBatch extra;
    extra.put(headers, key, value);
    extra.put(index, value, key);
    const std::vector<ObjectWrite> objects = {{id_of(1), object_of(1, 1)}};
    ASSERT_EQ((*store)->apply(objects, std::move(extra)).value(), 1u);
    EXPECT_EQ((*store)->read_extra(headers, key).value(), value);
    EXPECT_EQ((*store)->read_extra(index, value).value(), key);
    EXPECT_EQ((*store)->read_extra(Column::meta, key).error().code, base::Errc::invalid_argument);
    std::size_t seen = 0;
    ASSERT_TRUE((*store)
                    ->scan_extra(headers, {}, {},
                                 [&](base::ByteView k, base::ByteView) {
                                   EXPECT_TRUE(std::equal(k.begin(), k.end(), key.begin(), key.end()));
                                   ++seen;
                                   return true;
                                 })
                    .ok());
    EXPECT_EQ(seen, 1u);

    // An extra batch may not touch the store's own columns.
    KvBatch sneaky;
    sneaky.put(Column::meta, key, value);
    EXPECT_EQ((*store)->apply({}, std::move(sneaky)).error().code, base::Errc::invalid_argument);
    EXPECT_EQ((*store)->version(), 1u);

    // A failed write takes the extra puts with it and stops the store.
    fail_next = true;
    KvBatch lost;
    lost.put(headers, value, value);
    const std::vector<ObjectWrite> more = {{id_of(2), object_of(2, 1)}};
    EXPECT_EQ((*store)->apply(more, std::move(lost)).error().code, base::Errc::io_error);
    fail_next = false;
    EXPECT_EQ((*store)->apply(more).error().code, base::Errc::io_error);
  }
  EXPECT_GE(writes, 3);
  auto store = ObjectStore::open(dir.str(), options);
  ASSERT_TRUE(store.ok()) << store.error().to_string();
  EXPECT_EQ((*store)->version(), 1u);
  EXPECT_FALSE((*store)->read_extra(headers, value).value().has_value());
  EXPECT_EQ((*store)->read_extra(headers, key).value(), value);
  // Opening without the columns the store has on disk fails.
  store = base::fail(base::Errc::internal, "closed");
  EXPECT_FALSE(ObjectStore::open(dir.str()).ok());
}

// root_after gives apply's root and changes nothing.
TEST(ObjectStore, RootAfterIsTheRootApplyGives) {
  base::testing::TempDir dir;
  auto store = open_store(dir);
  ASSERT_TRUE(store);
  std::vector<ObjectWrite> writes;
  for (std::uint64_t n = 0; n < 300; ++n) writes.push_back({id_of(n), object_of(n, 1)});
  std::sort(writes.begin(), writes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  ASSERT_TRUE(store->apply(writes).ok());
  std::vector<ObjectWrite> next;
  for (std::uint64_t n = 0; n < 300; n += 4) next.push_back({id_of(n), std::nullopt});
  for (std::uint64_t n = 2; n < 300; n += 8) next.push_back({id_of(n), object_of(n, 2)});
  for (std::uint64_t n = 300; n < 320; ++n) next.push_back({id_of(n), object_of(n, 1)});
  const commit::Hash before = store->root();
  auto predicted = store->root_after(next);
  ASSERT_TRUE(predicted.ok()) << predicted.error().to_string();
  EXPECT_EQ(store->root(), before);
  EXPECT_EQ(store->version(), 1u);
  ASSERT_TRUE(store->apply(next).ok());
  EXPECT_EQ(store->root(), *predicted);
  next.push_back(next.front());
  EXPECT_FALSE(store->root_after(next).ok());  // a duplicate id
}

}  // namespace
}  // namespace sion::state
