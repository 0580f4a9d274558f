#include "sion/commit/smt.hpp"

#include "sion/base/endian.hpp"
#include "sion/base/executor.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <type_traits>

namespace sion::commit {

using detail::LargeVector;

namespace {

constexpr Hash kEmptyHash{};
constexpr unsigned kMaxPartitions = 8;
// Below this many hashes a second thread costs more than it saves.
constexpr std::size_t kParallelMinimum = 4096;
// Nodes gathered per call of hash_nodes: a multiple of the 8 Keccak lanes,
// small enough for the buffers to stay in L1.
constexpr std::size_t kHashChunk = 64;
// Node indices are 32-bit; a batch of n inserts makes about 2.5 n nodes.
constexpr std::size_t kMaxBatch = std::size_t{1} << 28;

// Work is split by the top bits of keys into a power of two of partitions,
// one thread each.
unsigned partition_count(const base::Executor* executor) {
  const unsigned threads = std::min(base::concurrency(executor), kMaxPartitions);
  unsigned partitions = 1;
  while (partitions * 2 <= threads) partitions *= 2;
  return partitions;
}

unsigned partition_bits(unsigned partitions) {
  unsigned bits = 0;
  while ((1u << bits) < partitions) ++bits;
  return bits;
}

std::uint64_t key_head(const Hash& key) noexcept { return base::load_be<std::uint64_t>(key.data()); }

// Indices of keys in key order: a counting sort on the first 16 bits, then
// each bucket sorted (keys are hashes, so buckets are small), the bucket
// ranges split between partitions. The arrays are the caller's scratch.
struct SortItem {
  std::uint64_t head;
  std::uint32_t index;
};
struct SortArrays {
  LargeVector<SortItem> items;
  LargeVector<SortItem> scattered;
  LargeVector<std::uint32_t> order;
};

template <class KeyOf>
const LargeVector<std::uint32_t>& sorted_order(std::size_t count, const KeyOf& key_of, unsigned partitions,
                                               base::Executor* executor, SortArrays& arrays) {
  using Item = SortItem;
  LargeVector<Item>& items = arrays.items;
  LargeVector<Item>& scattered = arrays.scattered;
  LargeVector<std::uint32_t>& order = arrays.order;
  items.resize(count);
  for (std::size_t i = 0; i < count; ++i) items[i] = {key_head(key_of(i)), static_cast<std::uint32_t>(i)};
  const auto less = [&key_of](const Item& a, const Item& b) {
    if (a.head != b.head) return a.head < b.head;
    return key_of(a.index) < key_of(b.index);
  };
  order.resize(count);
  if (count < kParallelMinimum) {
    std::sort(items.begin(), items.end(), less);
  } else {
    constexpr std::size_t kBuckets = 1u << 16;
    std::vector<std::uint32_t> start(kBuckets + 1, 0);
    for (const Item& item : items) ++start[(item.head >> 48) + 1];
    for (std::size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
    scattered.resize(count);
    {
      std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
      for (const Item& item : items) scattered[next[item.head >> 48]++] = item;
    }
    items.swap(scattered);
    base::run_parallel(executor, partitions, [&](unsigned p) {
      const std::size_t first = kBuckets / partitions * p;
      const std::size_t last = kBuckets / partitions * (p + 1);
      for (std::size_t b = first; b < last; ++b) {
        if (start[b + 1] - start[b] > 1) std::sort(items.begin() + start[b], items.begin() + start[b + 1], less);
      }
    });
  }
  for (std::size_t i = 0; i < count; ++i) order[i] = items[i].index;
  return order;
}

// The batch sorted by key (changes, or entries to insert); duplicate keys
// are refused.
template <class Item>
base::Status sorted_changes(std::span<const Item> items, unsigned partitions, base::Executor* executor,
                            SortArrays& arrays, LargeVector<StateChange>& sorted) {
  if (items.size() > kMaxBatch) {
    return base::fail(base::Errc::invalid_argument, "state tree: a batch holds at most 2^28 changes");
  }
  const auto& order = sorted_order(
      items.size(), [&](std::size_t i) -> const Hash& { return items[i].key; }, partitions, executor, arrays);
  sorted.clear();
  sorted.reserve(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Item& item = items[order[i]];
    if constexpr (std::is_same_v<Item, StateEntry>) {
      sorted.push_back({item.key, item.value_hash});
    } else {
      sorted.push_back(item);
    }
    if (i > 0 && sorted[i].key == sorted[i - 1].key) {
      return base::fail(base::Errc::invalid_argument,
                        "state tree: key " + base::to_hex(sorted[i].key) + " appears twice in one batch");
    }
  }
  return {};
}

}  // namespace

Hash key_prefix(const Hash& key, unsigned depth) noexcept {
  Hash out{};
  const unsigned whole = std::min(depth, kStateKeyBits) / 8;
  std::memcpy(out.data(), key.data(), whole);
  if (depth < kStateKeyBits && depth % 8 != 0) {
    out[whole] = static_cast<std::uint8_t>(key[whole] & (0xffu << (8 - depth % 8)));
  }
  return out;
}

// The parts of a TreeScratch an update uses (TreeScratch::Arrays is
// complete only further down).
SortArrays& sort_arrays_of(TreeScratch& scratch);
LargeVector<StateChange>& sorted_changes_of(TreeScratch& scratch);

// The hashing half of an update or a load: nodes whose hash is stale, by
// partition, hashed bottom-up level by level in Keccak lanes. Partition p
// (< partitions) holds the nodes at depth >= bits whose path starts with p;
// the last holds the few above them, hashed after the others.
class HashSchedule {
 public:
  using MemNode = SparseMerkleTree::MemNode;

  HashSchedule(unsigned partitions, base::Executor* executor)
      : partitions_(partitions), bits_(partition_bits(partitions)), executor_(executor), jobs_(partitions + 1) {}

  void leaf(std::uint32_t node, const Hash& key) { jobs_[partition_of(key, kStateKeyBits)].leaves.push_back(node); }
  void internal(std::uint32_t node, unsigned depth, const Hash& path) {
    jobs_[partition_of(path, depth)].internal.push_back({node, static_cast<std::uint16_t>(depth)});
  }

  void run(LargeVector<MemNode>& nodes, const LargeVector<StateEntry>& entries) {
    std::size_t total = 0;
    for (const Jobs& jobs : jobs_) total += jobs.leaves.size() + jobs.internal.size();
    if (partitions_ > 1 && total >= kParallelMinimum) {
      base::run_parallel(executor_, partitions_, [&](unsigned p) { hash_jobs(jobs_[p], nodes, entries); });
    } else {
      for (unsigned p = 0; p < partitions_; ++p) hash_jobs(jobs_[p], nodes, entries);
    }
    hash_jobs(jobs_[partitions_], nodes, entries);
  }

 private:
  struct Internal {
    std::uint32_t node;
    std::uint16_t depth;
  };
  struct Jobs {
    LargeVector<std::uint32_t> leaves;
    LargeVector<Internal> internal;
  };

  unsigned partition_of(const Hash& path, unsigned depth) const noexcept {
    if (depth < bits_) return partitions_;
    return bits_ == 0 ? 0 : static_cast<unsigned>(path[0] >> (8 - bits_));
  }

  static void hash_jobs(Jobs& jobs, LargeVector<MemNode>& nodes, const LargeVector<StateEntry>& entries) {
    std::array<Hash, kHashChunk> left;
    std::array<Hash, kHashChunk> right;
    std::array<Hash, kHashChunk> out;
    // H(0x10 || key || value_hash) is hash_node with the leaf tag.
    for (std::size_t done = 0; done < jobs.leaves.size(); done += kHashChunk) {
      const std::size_t n = std::min(kHashChunk, jobs.leaves.size() - done);
      for (std::size_t j = 0; j < n; ++j) {
        const StateEntry& entry = entries[nodes[jobs.leaves[done + j]].left];
        left[j] = entry.key;
        right[j] = entry.value_hash;
      }
      hash_nodes(Domain::state_leaf, left.data(), right.data(), out.data(), n);
      for (std::size_t j = 0; j < n; ++j) nodes[jobs.leaves[done + j]].hash = out[j];
    }
    // Deepest level first (a counting sort on depth): a node's children are
    // final before it is hashed.
    {
      std::array<std::size_t, kStateKeyBits + 2> start{};
      for (const Internal& job : jobs.internal) ++start[kStateKeyBits - job.depth + 1];
      for (std::size_t d = 0; d <= kStateKeyBits; ++d) start[d + 1] += start[d];
      LargeVector<Internal> by_depth(jobs.internal.size());
      for (const Internal& job : jobs.internal) by_depth[start[kStateKeyBits - job.depth]++] = job;
      jobs.internal.swap(by_depth);
    }
    const auto child_hash = [&nodes](std::uint32_t child) -> const Hash& {
      return child == SparseMerkleTree::kNone ? kEmptyHash : nodes[child].hash;
    };
    for (std::size_t level = 0; level < jobs.internal.size();) {
      std::size_t level_end = level;
      while (level_end < jobs.internal.size() && jobs.internal[level_end].depth == jobs.internal[level].depth) {
        ++level_end;
      }
      for (std::size_t done = level; done < level_end; done += kHashChunk) {
        const std::size_t n = std::min(kHashChunk, level_end - done);
        for (std::size_t j = 0; j < n; ++j) {
          const MemNode& node = nodes[jobs.internal[done + j].node];
          left[j] = child_hash(node.left);
          right[j] = child_hash(node.right);
        }
        hash_nodes(Domain::state_node, left.data(), right.data(), out.data(), n);
        for (std::size_t j = 0; j < n; ++j) nodes[jobs.internal[done + j].node].hash = out[j];
      }
      level = level_end;
    }
  }

  unsigned partitions_;
  unsigned bits_;
  base::Executor* executor_;
  std::vector<Jobs> jobs_;
};

// The structural half of an update: walks the tree along the sorted changes,
// touching only subtrees that change, builds new subtrees, re-collapses
// subtrees left with one leaf, and queues every node whose hash changes.
class TreeBuilder {
 public:
  using MemNode = SparseMerkleTree::MemNode;
  static constexpr std::uint32_t kNone = SparseMerkleTree::kNone;

  TreeBuilder(SparseMerkleTree& tree, const LargeVector<StateChange>& changes, std::uint64_t version,
              unsigned partitions, const UpdateOptions& options)
      : tree_(tree),
        changes_(changes),
        version_(version),
        collect_(options.collect),
        schedule_(partitions, options.executor) {
    // Counts of inserts before each change, kept only when some change is a
    // deletion (otherwise every change inserts).
    if (std::any_of(changes.begin(), changes.end(), [](const StateChange& c) { return !c.value_hash; })) {
      inserts_.resize(changes.size() + 1, 0);
      for (std::size_t i = 0; i < changes.size(); ++i) {
        inserts_[i + 1] = inserts_[i] + (changes[i].value_hash ? 1u : 0u);
      }
    }
  }

  // Checks the version, sorts the batch and applies it.
  template <class Item>
  static base::Result<TreeUpdate> apply_batch(SparseMerkleTree& tree, std::span<const Item> batch,
                                              std::uint64_t version, const UpdateOptions& options) {
    if (version <= tree.version_) {
      return base::fail(base::Errc::invalid_argument, "state tree: version " + std::to_string(version) +
                                                          " does not follow the tree's version " +
                                                          std::to_string(tree.version_));
    }
    const unsigned partitions = partition_count(options.executor);
    LargeVector<StateChange>& sorted = sorted_changes_of(tree.scratch_);
    SION_TRY_STATUS(sorted_changes(batch, partitions, options.executor, sort_arrays_of(tree.scratch_), sorted));
    if (tree.nodes_.empty()) {
      // From scratch: about 1.44 n internal nodes (random keys) and n leaves.
      tree.nodes_.reserve(sorted.size() * 5 / 2 + 1);
      tree.entries_.reserve(sorted.size());
    }
    TreeUpdate update = TreeBuilder(tree, sorted, version, partitions, options).run();
    tree.version_ = version;
    return update;
  }

  TreeUpdate run() {
    const Step root = apply(tree_.root_, 0, 0, changes_.size());
    tree_.root_ = root.node;
    place(root.node, 0);
    schedule_.run(tree_.nodes_, tree_.entries_);
    TreeUpdate update;
    update.version = version_;
    update.root = tree_.ref_of(tree_.root_);
    update.stale_nodes = std::move(stale_);
    update.new_nodes.reserve(written_.size());
    for (const Written& w : written_) {
      update.new_nodes.emplace_back(NodeKey{version_, w.depth, key_prefix(w.path, w.depth)}, tree_.stored_form(w.node));
    }
    return update;
  }

 private:
  struct Step {
    std::uint32_t node;
    bool changed;
  };
  struct Written {
    std::uint32_t node;
    std::uint16_t depth;
    Hash path;
  };

  std::size_t inserts(std::size_t begin, std::size_t end) const {
    return inserts_.empty() ? end - begin : inserts_[end] - inserts_[begin];
  }

  // First change in [begin, end) whose key has bit `depth` set; the keys
  // share their first `depth` bits, so the bit splits them in two runs.
  std::size_t split(std::size_t begin, std::size_t end, unsigned depth) const {
    const auto first = changes_.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto last = changes_.begin() + static_cast<std::ptrdiff_t>(end);
    return begin +
           static_cast<std::size_t>(
               std::partition_point(first, last, [depth](const StateChange& c) { return !key_bit(c.key, depth); }) -
               first);
  }

  std::uint32_t new_node() {
    if (!tree_.free_nodes_.empty()) {
      const std::uint32_t index = tree_.free_nodes_.back();
      tree_.free_nodes_.pop_back();
      tree_.nodes_[index] = MemNode{};
      return index;
    }
    tree_.nodes_.emplace_back();
    return static_cast<std::uint32_t>(tree_.nodes_.size() - 1);
  }

  std::uint32_t new_leaf(const Hash& key, const Hash& value_hash) {
    std::uint32_t entry;
    if (!tree_.free_entries_.empty()) {
      entry = tree_.free_entries_.back();
      tree_.free_entries_.pop_back();
      tree_.entries_[entry] = {key, value_hash};
    } else {
      tree_.entries_.push_back({key, value_hash});
      entry = static_cast<std::uint32_t>(tree_.entries_.size() - 1);
    }
    const std::uint32_t node = new_node();
    MemNode& n = tree_.nodes_[node];
    n.leaf = true;
    n.left = entry;
    n.version = version_;
    schedule_.leaf(node, key);
    return node;
  }

  void mark_stale(const MemNode& node, const Hash& path, unsigned depth) {
    if (collect_ && node.version != version_) {
      stale_.push_back(NodeKey{node.version, static_cast<std::uint16_t>(depth), key_prefix(path, depth)});
    }
  }

  void free_node(std::uint32_t index, const Hash& path, unsigned depth) {
    const MemNode& node = tree_.nodes_[index];
    mark_stale(node, path, depth);
    if (node.leaf) tree_.free_entries_.push_back(node.left);
    tree_.free_nodes_.push_back(index);
  }

  // A leaf comes to rest as the child at `depth`: new leaves and leaves that
  // moved (their neighbours left) are written there.
  void place(std::uint32_t index, unsigned depth) {
    if (index == kNone) return;
    MemNode& node = tree_.nodes_[index];
    if (!node.leaf) return;
    const Hash& key = tree_.entries_[node.left].key;
    if (node.version != version_) {
      if (node.depth == depth) return;
      mark_stale(node, key, node.depth);
      node.version = version_;
    }
    node.depth = static_cast<std::uint16_t>(depth);
    if (collect_) written_.push_back({index, node.depth, key});
  }

  // An internal node at `depth` with its new children: written, and hashed.
  void finish_internal(std::uint32_t index, unsigned depth, const Hash& path, std::uint32_t left, std::uint32_t right) {
    MemNode& node = tree_.nodes_[index];
    mark_stale(node, path, depth);
    node.version = version_;
    node.depth = static_cast<std::uint16_t>(depth);
    node.left = left;
    node.right = right;
    place(left, depth + 1);
    place(right, depth + 1);
    schedule_.internal(index, depth, path);
    if (collect_) written_.push_back({index, static_cast<std::uint16_t>(depth), path});
  }

  // A subtree at `depth` holding the inserts of [begin, end) and `extra`.
  std::uint32_t build(std::size_t begin, std::size_t end, unsigned depth, const StateEntry* extra) {
    const std::size_t count = inserts(begin, end) + (extra ? 1 : 0);
    if (count == 0) return kNone;
    if (count == 1) {
      if (extra) return new_leaf(extra->key, extra->value_hash);
      for (std::size_t i = begin; i < end; ++i) {
        if (changes_[i].value_hash) return new_leaf(changes_[i].key, *changes_[i].value_hash);
      }
    }
    assert(depth < kStateKeyBits);
    const std::size_t middle = split(begin, end, depth);
    const bool extra_right = extra && key_bit(extra->key, depth);
    const std::uint32_t left = build(begin, middle, depth + 1, extra_right ? nullptr : extra);
    const std::uint32_t right = build(middle, end, depth + 1, extra_right ? extra : nullptr);
    const std::uint32_t index = new_node();
    tree_.nodes_[index].version = version_;
    finish_internal(index, depth, begin < end ? changes_[begin].key : extra->key, left, right);
    return index;
  }

  Step apply(std::uint32_t index, unsigned depth, std::size_t begin, std::size_t end) {
    if (begin == end) return {index, false};
    const std::size_t added = inserts(begin, end);
    if (index == kNone) {
      if (added == 0) return {kNone, false};
      tree_.size_ += added;
      return {build(begin, end, depth, nullptr), true};
    }
    const MemNode node = tree_.nodes_[index];
    if (node.leaf) {
      const StateEntry entry = tree_.entries_[node.left];
      const auto first = changes_.begin() + static_cast<std::ptrdiff_t>(begin);
      const auto last = changes_.begin() + static_cast<std::ptrdiff_t>(end);
      const auto hit =
          std::lower_bound(first, last, entry.key, [](const StateChange& c, const Hash& key) { return c.key < key; });
      const bool found = hit != last && hit->key == entry.key;
      if (!found && added == 0) return {index, false};
      if (found && added == 1 && hit->value_hash == entry.value_hash) return {index, false};
      tree_.size_ += added;
      if (found) --tree_.size_;  // replaced by its change, or deleted
      free_node(index, entry.key, depth);
      return {build(begin, end, depth, found ? nullptr : &entry), true};
    }
    const std::size_t middle = split(begin, end, depth);
    const Step left = apply(node.left, depth + 1, begin, middle);
    const Step right = apply(node.right, depth + 1, middle, end);
    if (!left.changed && !right.changed) return {index, false};
    const Hash& path = changes_[begin].key;
    const bool left_leaf = left.node != kNone && tree_.nodes_[left.node].leaf;
    const bool right_leaf = right.node != kNone && tree_.nodes_[right.node].leaf;
    // Fewer than two leaves left below: the subtree collapses to its leaf.
    if ((left.node == kNone && (right.node == kNone || right_leaf)) || (right.node == kNone && left_leaf)) {
      free_node(index, path, depth);
      return {left.node == kNone ? right.node : left.node, true};
    }
    finish_internal(index, depth, path, left.node, right.node);
    return {index, true};
  }

  SparseMerkleTree& tree_;
  const LargeVector<StateChange>& changes_;
  std::uint64_t version_;
  bool collect_;
  HashSchedule schedule_;
  LargeVector<std::uint32_t> inserts_;  // inserts_[i]: changes before i that set a value
  std::vector<NodeKey> stale_;
  std::vector<Written> written_;
};

// Reads a stored tree node by node, checks its structure, and queues every
// node for hashing so that the root can be checked against the stored one.
class TreeLoader {
 public:
  using MemNode = SparseMerkleTree::MemNode;

  TreeLoader(SparseMerkleTree& tree, const NodeReader& reader) : tree_(tree), reader_(reader), schedule_(1, nullptr) {}

  base::Result<std::uint32_t> load(const ChildRef& ref, unsigned depth, const Hash& path) {
    const NodeKey key{ref.version, static_cast<std::uint16_t>(depth), path};
    SION_TRY(const auto read, reader_.read_node(key));
    if (!read.has_value()) return corrupt(key, "is missing");
    tree_.version_ = std::max(tree_.version_, ref.version);
    MemNode node;
    node.version = ref.version;
    node.depth = static_cast<std::uint16_t>(depth);
    if (const auto* leaf = std::get_if<StateLeaf>(&*read)) {
      if (!ref.leaf) return corrupt(key, "is a leaf, its parent says internal");
      if (key_prefix(leaf->key, depth) != path) return corrupt(key, "holds a key off its path");
      node.leaf = true;
      node.left = static_cast<std::uint32_t>(tree_.entries_.size());
      tree_.entries_.push_back({leaf->key, leaf->value_hash});
      ++tree_.size_;
      tree_.nodes_.push_back(node);
      const auto index = static_cast<std::uint32_t>(tree_.nodes_.size() - 1);
      schedule_.leaf(index, leaf->key);
      return index;
    }
    const auto& internal = std::get<InternalNode>(*read);
    if (ref.leaf) return corrupt(key, "is internal, its parent says leaf");
    if (depth == kStateKeyBits) return corrupt(key, "is internal at depth 256");
    const auto is_single_leaf = [](const std::optional<ChildRef>& child) { return !child || child->leaf; };
    if ((!internal.left && is_single_leaf(internal.right)) || (!internal.right && is_single_leaf(internal.left))) {
      return corrupt(key, "holds fewer than two leaves and should have collapsed");
    }
    std::uint32_t children[2] = {SparseMerkleTree::kNone, SparseMerkleTree::kNone};
    const std::optional<ChildRef>* refs[2] = {&internal.left, &internal.right};
    for (unsigned side = 0; side < 2; ++side) {
      if (!*refs[side]) continue;
      Hash child_path = path;
      if (side == 1) child_path[depth / 8] = static_cast<std::uint8_t>(child_path[depth / 8] | (0x80u >> (depth % 8)));
      auto child = load(**refs[side], depth + 1, child_path);
      if (!child) return child;
      children[side] = *child;
    }
    node.left = children[0];
    node.right = children[1];
    tree_.nodes_.push_back(node);
    const auto index = static_cast<std::uint32_t>(tree_.nodes_.size() - 1);
    schedule_.internal(index, depth, path);
    return index;
  }

  void hash() { schedule_.run(tree_.nodes_, tree_.entries_); }

 private:
  static base::Failure corrupt(const NodeKey& key, std::string_view what) {
    return base::fail(base::Errc::corrupt_store, "state tree: node (version " + std::to_string(key.version) +
                                                     ", depth " + std::to_string(key.depth) + ", path " +
                                                     base::to_hex(key.path) + ") " + std::string(what));
  }

  SparseMerkleTree& tree_;
  const NodeReader& reader_;
  HashSchedule schedule_;
};

// ---- SparseMerkleTree ------------------------------------------------------------

base::Result<SparseMerkleTree> SparseMerkleTree::from_entries(std::span<const StateEntry> entries,
                                                              std::uint64_t version, base::Executor* executor) {
  SparseMerkleTree tree;
  SION_TRY_STATUS(TreeBuilder::apply_batch(tree, entries, version, UpdateOptions{executor, false}));
  return tree;
}

base::Result<SparseMerkleTree> SparseMerkleTree::load(const NodeReader& reader, const std::optional<ChildRef>& root) {
  SparseMerkleTree tree;
  if (!root) return tree;
  TreeLoader loader(tree, reader);
  SION_TRY(tree.root_, loader.load(*root, 0, Hash{}));
  loader.hash();
  if (tree.root_hash() != root->hash) {
    return base::fail(base::Errc::corrupt_store, "state tree: the stored nodes hash to " +
                                                     base::to_hex(tree.root_hash()) + ", not to the stored root " +
                                                     base::to_hex(root->hash));
  }
  return tree;
}

void SparseMerkleTree::clear() noexcept {
  nodes_.clear();
  entries_.clear();
  free_nodes_.clear();
  free_entries_.clear();
  root_ = kNone;
  version_ = 0;
  size_ = 0;
}

Hash SparseMerkleTree::root_hash() const noexcept { return root_ == kNone ? kEmptyHash : nodes_[root_].hash; }

std::optional<ChildRef> SparseMerkleTree::ref_of(std::uint32_t node) const {
  if (node == kNone) return std::nullopt;
  return ChildRef{nodes_[node].hash, nodes_[node].version, nodes_[node].leaf};
}

std::optional<ChildRef> SparseMerkleTree::root_ref() const noexcept { return ref_of(root_); }

Node SparseMerkleTree::stored_form(std::uint32_t node) const {
  const MemNode& n = nodes_[node];
  if (n.leaf) return StateLeaf{entries_[n.left].key, entries_[n.left].value_hash};
  return InternalNode{ref_of(n.left), ref_of(n.right)};
}

std::optional<Hash> SparseMerkleTree::get(const Hash& key) const noexcept {
  std::uint32_t node = root_;
  for (unsigned depth = 0; node != kNone; ++depth) {
    const MemNode& n = nodes_[node];
    if (n.leaf) {
      const StateEntry& entry = entries_[n.left];
      if (entry.key == key) return entry.value_hash;
      return std::nullopt;
    }
    node = key_bit(key, depth) ? n.right : n.left;
  }
  return std::nullopt;
}

std::pair<std::optional<Hash>, std::optional<Hash>> SparseMerkleTree::neighbours(const Hash& key) const {
  // Follow key's path, remembering the deepest non-empty subtree hanging off
  // it on each side: the neighbour is the extreme key of that subtree,
  // unless the leaf where the path ends is nearer.
  std::uint32_t below = kNone;
  std::uint32_t above = kNone;
  std::uint32_t node = root_;
  for (unsigned depth = 0; node != kNone && !nodes_[node].leaf; ++depth) {
    const MemNode& n = nodes_[node];
    if (key_bit(key, depth)) {
      if (n.left != kNone) below = n.left;
      node = n.right;
    } else {
      if (n.right != kNone) above = n.right;
      node = n.left;
    }
  }
  const auto extreme = [this](std::uint32_t at, bool largest) {
    while (!nodes_[at].leaf) {
      const MemNode& n = nodes_[at];
      const std::uint32_t first = largest ? n.right : n.left;
      at = first != kNone ? first : (largest ? n.left : n.right);
    }
    return entries_[nodes_[at].left].key;
  };
  std::pair<std::optional<Hash>, std::optional<Hash>> out;
  if (node != kNone) {
    const Hash& found = entries_[nodes_[node].left].key;
    if (found < key) out.first = found;
    if (key < found) out.second = found;
  }
  if (!out.first && below != kNone) out.first = extreme(below, true);
  if (!out.second && above != kNone) out.second = extreme(above, false);
  return out;
}

base::Result<TreeUpdate> SparseMerkleTree::update(std::span<const StateChange> changes, std::uint64_t version,
                                                  const UpdateOptions& options) {
  return TreeBuilder::apply_batch(*this, changes, version, options);
}

void SparseMerkleTree::list_nodes(std::uint32_t node, const Hash& path, TreeUpdate& out) const {
  const MemNode& n = nodes_[node];
  out.new_nodes.emplace_back(NodeKey{n.version, n.depth, key_prefix(path, n.depth)}, stored_form(node));
  if (n.leaf) return;
  Hash right_path = path;
  right_path[n.depth / 8] = static_cast<std::uint8_t>(right_path[n.depth / 8] | (0x80u >> (n.depth % 8)));
  if (n.left != kNone) list_nodes(n.left, path, out);
  if (n.right != kNone) list_nodes(n.right, right_path, out);
}

TreeUpdate SparseMerkleTree::all_nodes() const {
  TreeUpdate out;
  out.version = version_;
  out.root = root_ref();
  if (root_ != kNone) list_nodes(root_, Hash{}, out);
  return out;
}

// ---- Proofs -------------------------------------------------------------------------

namespace {

void set_bitmap_bit(StateProof& proof, unsigned depth) {
  if (proof.bitmap.size() <= depth / 8) proof.bitmap.resize(depth / 8 + 1, 0);
  proof.bitmap[depth / 8] = static_cast<std::uint8_t>(proof.bitmap[depth / 8] | (0x80u >> (depth % 8)));
}

void finish_proof(StateProof& proof, unsigned depth) {
  proof.depth = static_cast<std::uint16_t>(depth);
  proof.bitmap.resize((depth + 7) / 8, 0);
}

}  // namespace

StateProof SparseMerkleTree::prove(const Hash& key) const {
  StateProof proof;
  std::uint32_t node = root_;
  unsigned depth = 0;
  while (node != kNone && !nodes_[node].leaf) {
    const MemNode& n = nodes_[node];
    const bool right = key_bit(key, depth);
    const std::uint32_t sibling = right ? n.left : n.right;
    if (sibling != kNone) {
      set_bitmap_bit(proof, depth);
      proof.siblings.push_back(nodes_[sibling].hash);
    }
    node = right ? n.right : n.left;
    ++depth;
  }
  if (node != kNone) proof.leaf = StateLeaf{entries_[nodes_[node].left].key, entries_[nodes_[node].left].value_hash};
  finish_proof(proof, depth);
  return proof;
}

void SparseMerkleTree::prove_range(std::uint32_t node, unsigned depth, const Hash* begin, const Hash* end,
                                   StateMultiProof& proof, std::vector<bool>& shape,
                                   std::size_t& empty_siblings) const {
  if (node == kNone || nodes_[node].leaf) {
    shape.push_back(false);
    shape.push_back(node != kNone);
    if (node != kNone)
      proof.leaves.push_back({entries_[nodes_[node].left].key, entries_[nodes_[node].left].value_hash});
    return;
  }
  shape.push_back(true);
  const Hash* middle = std::partition_point(begin, end, [depth](const Hash& k) { return !key_bit(k, depth); });
  const MemNode& n = nodes_[node];
  const auto side = [&](std::uint32_t child, const Hash* first, const Hash* last) {
    if (first != last) return prove_range(child, depth + 1, first, last, proof, shape, empty_siblings);
    shape.push_back(child != kNone);
    if (child != kNone) {
      proof.siblings.push_back(nodes_[child].hash);
    } else {
      ++empty_siblings;
    }
  };
  side(n.left, begin, middle);
  side(n.right, middle, end);
}

StateMultiProof SparseMerkleTree::prove_many(std::span<const Hash> keys) const {
  std::vector<Hash> sorted(keys.begin(), keys.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  StateMultiProof proof;
  if (sorted.empty()) return proof;
  std::vector<bool> shape;
  std::size_t empty_siblings = 0;
  prove_range(root_, 0, sorted.data(), sorted.data() + sorted.size(), proof, shape, empty_siblings);
  proof.shape.assign((shape.size() + 7) / 8, 0);
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i]) proof.shape[i / 8] = static_cast<std::uint8_t>(proof.shape[i / 8] | (1u << (i % 8)));
  }
  const std::size_t free =
      StateMultiProof::free_empty_siblings(proof.siblings.size(), proof.leaves.size(), sorted.size());
  if (empty_siblings > free) {
    proof.surcharge.assign((empty_siblings - free) * StateMultiProof::kSurchargePerEmptySibling, 0);
  }
  return proof;
}

base::Result<StateProof> prove_stored(const NodeReader& reader, const std::optional<ChildRef>& root, const Hash& key) {
  StateProof proof;
  std::optional<ChildRef> ref = root;
  unsigned depth = 0;
  for (; ref; ++depth) {
    const NodeKey node_key{ref->version, static_cast<std::uint16_t>(depth), key_prefix(key, depth)};
    SION_TRY(const auto read, reader.read_node(node_key));
    if (!read.has_value()) {
      return base::fail(base::Errc::corrupt_store, "state tree: node (version " + std::to_string(ref->version) +
                                                       ", depth " + std::to_string(depth) + ") is missing");
    }
    if (const auto* leaf = std::get_if<StateLeaf>(&*read)) {
      proof.leaf = *leaf;
      break;
    }
    if (depth == kStateKeyBits) return base::fail(base::Errc::corrupt_store, "state tree: internal node at depth 256");
    const auto& internal = std::get<InternalNode>(*read);
    const bool right = key_bit(key, depth);
    const auto& sibling = right ? internal.left : internal.right;
    if (sibling) {
      set_bitmap_bit(proof, depth);
      proof.siblings.push_back(sibling->hash);
    }
    ref = right ? internal.right : internal.left;
  }
  finish_proof(proof, depth);
  return proof;
}

// ---- State root from scratch ----------------------------------------------------
//
// A root needs no tree: with the entries sorted, the tree's shape is fixed
// by the common-prefix lengths of neighbouring keys. Branch j (between
// sorted items j and j + 1) is the node at depth lcp[j]; the branches form
// the Cartesian tree of lcp (smallest at the top, docs/state-tree.md: two
// equal values always have a smaller one between them). A node whose parent
// sits more than one level up heads a one-child chain. Hashing sweeps the
// depths bottom-up: every merge and chain step at one depth is independent
// of the others, so each depth is hashed in Keccak lanes.

namespace {

constexpr std::uint16_t kLeafItem = 0xffff;
constexpr std::uint32_t kBranchRef = 0x80000000u;  // a ref with this bit names a branch, else an item

// The hash of one subtree as a reduction returns it.
struct SubRoot {
  Hash hash{};
  bool empty = true;
  bool leaf = false;
};

// Reduces items in key order to the hash of the subtree at depth `floor`
// holding them. Item j: keys[j] a key below it, hashes[j] its hash (updated
// in place by chain steps), depths[j] kLeafItem or the depth of the internal
// node it is (nullptr: all leaves). lcp[j] is the common-prefix length of
// items j and j + 1, every one >= floor. Scratch is kept between calls.
class RootReducer {
 public:
  SubRoot reduce(const Hash* keys, Hash* hashes, const std::uint16_t* depths, const std::uint16_t* lcp,
                 std::size_t count, unsigned floor) {
    if (count == 0) return {};
    const std::size_t branches = count - 1;
    keys_ = keys;
    item_hashes_ = hashes;
    left_.resize(branches);
    right_.resize(branches);
    stop_.resize(branches);
    branch_hashes_.resize(branches);

    // Cartesian tree of lcp (Gabow, Bentley and Tarjan's stack method).
    stack_.clear();
    for (std::uint32_t j = 0; j < branches; ++j) {
      std::uint32_t last = kNone;
      while (!stack_.empty() && lcp[stack_.back()] > lcp[j]) {
        last = stack_.back();
        stack_.pop_back();
      }
      left_[j] = last == kNone ? j : (last | kBranchRef);
      right_[j] = j + 1;
      if (!stack_.empty()) right_[stack_.back()] = j | kBranchRef;
      stack_.push_back(j);
    }
    // A chain runs from just above a node to just below its parent: stop is
    // the depth of its last node.
    std::uint32_t root = 0;
    if (branches > 0) {
      root = stack_.front() | kBranchRef;
      stop_[stack_.front()] = static_cast<std::uint16_t>(floor);
      for (std::uint32_t j = 0; j < branches; ++j) {
        for (const std::uint32_t child : {left_[j], right_[j]}) {
          if (child & kBranchRef) stop_[child & ~kBranchRef] = static_cast<std::uint16_t>(lcp[j] + 1);
        }
      }
    }

    // Merges by depth (a counting sort on lcp), and internal items waiting
    // for their chain to start, deepest first.
    std::array<std::uint32_t, kStateKeyBits + 1> start{};
    for (std::size_t j = 0; j < branches; ++j) ++start[lcp[j] + 1u];
    for (std::size_t d = 0; d < kStateKeyBits; ++d) start[d + 1] += start[d];
    by_depth_.resize(branches);
    {
      std::array<std::uint32_t, kStateKeyBits + 1> next = start;
      for (std::uint32_t j = 0; j < branches; ++j) by_depth_[next[lcp[j]]++] = j;
    }
    int top = branches > 0 ? static_cast<int>(lcp[by_depth_.back()]) : -1;
    waiting_.clear();
    if (depths != nullptr) {
      for (std::uint32_t j = 0; j < count; ++j) {
        if (depths[j] == kLeafItem) continue;
        unsigned parent = floor;  // the depth its chain stops at
        if (j > 0) parent = std::max(parent, lcp[j - 1] + 1u);
        if (j + 1 < count) parent = std::max(parent, lcp[j] + 1u);
        if (depths[j] > parent) waiting_.push_back({j, depths[j], static_cast<std::uint16_t>(parent)});
      }
      std::sort(waiting_.begin(), waiting_.end(), [](const Waiting& a, const Waiting& b) { return a.depth > b.depth; });
      if (!waiting_.empty()) top = std::max(top, static_cast<int>(waiting_.front().depth) - 1);
    }

    active_.clear();
    std::size_t next_waiting = 0;
    for (int d = top; d >= static_cast<int>(floor); --d) {
      const auto depth = static_cast<unsigned>(d);
      for (; next_waiting < waiting_.size() && waiting_[next_waiting].depth == depth + 1; ++next_waiting) {
        active_.push_back({waiting_[next_waiting].item, waiting_[next_waiting].stop});
      }
      // Chain steps: the node one level down becomes the only child of a
      // node at this depth, on the side of its keys' bit.
      for (const Active& a : active_) {
        const Hash& h = hash_of(a.ref);
        if (key_bit(key_of(a.ref), depth)) {
          queue(kEmptyHash, h, a.ref);
        } else {
          queue(h, kEmptyHash, a.ref);
        }
      }
      for (std::uint32_t i = start[depth]; i < start[depth + 1]; ++i) {
        const std::uint32_t j = by_depth_[i];
        queue(hash_of(left_[j]), hash_of(right_[j]), j | kBranchRef);
      }
      flush();
      std::erase_if(active_, [depth](const Active& a) { return a.stop == depth; });
      for (std::uint32_t i = start[depth]; i < start[depth + 1]; ++i) {
        const std::uint32_t j = by_depth_[i];
        if (stop_[j] < depth) active_.push_back({j | kBranchRef, stop_[j]});
      }
    }

    SubRoot result;
    result.empty = false;
    result.leaf = branches == 0 && (depths == nullptr || depths[0] == kLeafItem);
    result.hash = hash_of(root);
    return result;
  }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  struct Waiting {
    std::uint32_t item;
    std::uint16_t depth;
    std::uint16_t stop;
  };
  struct Active {
    std::uint32_t ref;
    std::uint16_t stop;
  };

  Hash& hash_of(std::uint32_t ref) noexcept {
    return (ref & kBranchRef) ? branch_hashes_[ref & ~kBranchRef] : item_hashes_[ref];
  }
  // A key below the node: for branch j, item j's (the leftmost of its right
  // end is as good; every key below shares the bits above the branch).
  const Hash& key_of(std::uint32_t ref) const noexcept { return keys_[ref & ~kBranchRef]; }

  void queue(const Hash& left, const Hash& right, std::uint32_t target) {
    left_in_[queued_] = left;
    right_in_[queued_] = right;
    targets_[queued_] = target;
    if (++queued_ == kHashChunk) flush();
  }
  void flush() {
    if (queued_ == 0) return;
    hash_nodes(Domain::state_node, left_in_.data(), right_in_.data(), out_.data(), queued_);
    for (std::size_t i = 0; i < queued_; ++i) hash_of(targets_[i]) = out_[i];
    queued_ = 0;
  }

  const Hash* keys_ = nullptr;
  Hash* item_hashes_ = nullptr;
  LargeVector<std::uint32_t> left_;
  LargeVector<std::uint32_t> right_;
  LargeVector<std::uint16_t> stop_;
  LargeVector<Hash> branch_hashes_;
  LargeVector<std::uint32_t> by_depth_;
  std::vector<std::uint32_t> stack_;
  std::vector<Waiting> waiting_;
  std::vector<Active> active_;
  std::array<Hash, kHashChunk> left_in_;
  std::array<Hash, kHashChunk> right_in_;
  std::array<Hash, kHashChunk> out_;
  std::array<std::uint32_t, kHashChunk> targets_;
  std::size_t queued_ = 0;
};

}  // namespace

// The arrays of the batch operations, kept by their owner from call to call.
struct TreeScratch::Arrays {
  SortArrays sort;
  LargeVector<StateChange> sorted_changes;  // an update's batch in key order
  // state_root:
  LargeVector<Hash> keys;          // sorted
  LargeVector<Hash> leaf_hashes;   // in key order
  LargeVector<std::uint16_t> lcp;  // lcp[i]: common-prefix bits of keys i and i + 1
  std::vector<RootReducer> reducers;
};

TreeScratch::TreeScratch() noexcept = default;
TreeScratch::~TreeScratch() = default;
TreeScratch::TreeScratch(TreeScratch&&) noexcept = default;
TreeScratch& TreeScratch::operator=(TreeScratch&&) noexcept = default;
void TreeScratch::release() noexcept { arrays_.reset(); }

TreeScratch::Arrays& TreeScratch::arrays() {
  if (!arrays_) arrays_ = std::make_unique<Arrays>();
  return *arrays_;
}

SortArrays& sort_arrays_of(TreeScratch& scratch) { return scratch.arrays().sort; }
LargeVector<StateChange>& sorted_changes_of(TreeScratch& scratch) { return scratch.arrays().sorted_changes; }

base::Result<Hash> state_root(std::span<const StateEntry> entries, base::Executor* executor, TreeScratch* kept) {
  if (entries.size() > kMaxBatch) {
    return base::fail(base::Errc::invalid_argument, "state tree: a batch holds at most 2^28 changes");
  }
  const std::size_t count = entries.size();
  const unsigned partitions = count < kParallelMinimum ? 1 : partition_count(executor);
  const unsigned bits = partition_bits(partitions);
  // Building touches about 130 bytes per object; on the benchmark VM fresh
  // pages cost more than a sort, so a caller that builds roots one after
  // another keeps the arrays.
  TreeScratch fresh;
  TreeScratch::Arrays& scratch = (kept != nullptr ? *kept : fresh).arrays();
  const auto& order = sorted_order(
      count, [&](std::size_t i) -> const Hash& { return entries[i].key; }, partitions, executor, scratch.sort);
  scratch.keys.resize(count);
  scratch.leaf_hashes.resize(count);
  scratch.lcp.resize(count);
  scratch.reducers.resize(partitions);

  // Keys in order, leaf hashes and prefix lengths: even slices per thread.
  const unsigned slices = count < kParallelMinimum ? 1 : partitions;
  std::vector<std::size_t> duplicate(slices, count);
  base::for_slices(executor, count, slices, [&](unsigned slice, std::size_t first, std::size_t last) {
    std::array<Hash, kHashChunk> values;
    for (std::size_t done = first; done < last; done += kHashChunk) {
      const std::size_t n = std::min(kHashChunk, last - done);
      for (std::size_t j = 0; j < n; ++j) {
        const StateEntry& entry = entries[order[done + j]];
        scratch.keys[done + j] = entry.key;
        values[j] = entry.value_hash;
      }
      hash_nodes(Domain::state_leaf, scratch.keys.data() + done, values.data(), scratch.leaf_hashes.data() + done, n);
    }
    for (std::size_t i = first; i < last && i + 1 < count; ++i) {
      const unsigned shared = common_prefix_bits(entries[order[i]].key, entries[order[i + 1]].key);
      if (shared == kStateKeyBits) duplicate[slice] = std::min(duplicate[slice], i);
      scratch.lcp[i] = static_cast<std::uint16_t>(shared);
    }
  });
  for (const std::size_t at : duplicate) {
    if (at != count) {
      return base::fail(base::Errc::invalid_argument,
                        "state tree: key " + base::to_hex(scratch.keys[at]) + " appears twice in one batch");
    }
  }

  // Partition p holds the keys whose first `bits` bits are p: a subtree at
  // depth `bits`, reduced on its own thread.
  std::vector<std::size_t> bounds(partitions + 1, count);
  bounds[0] = 0;
  for (unsigned p = 1; p < partitions; ++p) {
    const auto at = std::partition_point(scratch.keys.begin(), scratch.keys.end(), [&](const Hash& key) {
      return static_cast<unsigned>(key[0] >> (8 - bits)) < p;
    });
    bounds[p] = static_cast<std::size_t>(at - scratch.keys.begin());
  }
  std::vector<SubRoot> parts(partitions);
  base::run_parallel(executor, partitions, [&](unsigned p) {
    const std::size_t first = bounds[p];
    parts[p] = scratch.reducers[p].reduce(scratch.keys.data() + first, scratch.leaf_hashes.data() + first, nullptr,
                                          scratch.lcp.data() + first, bounds[p + 1] - first, bits);
  });
  if (partitions == 1) return parts[0].hash;

  // The levels above the partitions, from their subtree roots.
  std::vector<Hash> keys;
  std::vector<Hash> hashes;
  std::vector<std::uint16_t> depths;
  std::vector<std::uint16_t> lcp;
  for (unsigned p = 0; p < partitions; ++p) {
    if (parts[p].empty) continue;
    if (!keys.empty())
      lcp.push_back(static_cast<std::uint16_t>(common_prefix_bits(keys.back(), scratch.keys[bounds[p]])));
    keys.push_back(scratch.keys[bounds[p]]);
    hashes.push_back(parts[p].hash);
    depths.push_back(parts[p].leaf ? kLeafItem : static_cast<std::uint16_t>(bits));
  }
  return scratch.reducers[0].reduce(keys.data(), hashes.data(), depths.data(), lcp.data(), keys.size(), 0).hash;
}

}  // namespace sion::commit
