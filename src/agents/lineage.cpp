#include "sion/agents/lineage.hpp"

#include <algorithm>

#include "sion/commit/hash.hpp"

namespace sion::agents {

Id lineage_id(const Lineage& lineage) { return commit::tagged_hash(commit::Domain::lineage, codec::encode(lineage)); }

Id allotment_id(const Id& agent) noexcept { return commit::tagged_hash(commit::Domain::allotment, agent); }

Id overlay_id(const Id& root, const Id& agent) noexcept {
  constexpr std::size_t kRootPrefix = 8;
  Id id = commit::tagged_hash(commit::Domain::overlay, agent);
  const Id prefix = commit::tagged_hash(commit::Domain::overlay, root);
  std::copy_n(prefix.begin(), kRootPrefix, id.begin());
  return id;
}

std::optional<Lineage> child_lineage(const Lineage& parent, std::uint32_t index) {
  if (parent.depth() >= kMaxDepth) return std::nullopt;
  Lineage child = parent;
  child.path.push_back(index);
  return child;
}

Lineage child_of_account(const Id& root, std::uint32_t index) {
  Lineage child;
  child.root = root;
  child.path.push_back(index);
  return child;
}

std::vector<Id> agent_ids_on_path(const Lineage& lineage) {
  codec::EncodingBatch encodings;
  Lineage prefix;
  prefix.root = lineage.root;
  for (const std::uint32_t index : lineage.path) {
    prefix.path.push_back(index);
    encodings.add(prefix);
  }
  std::vector<Id> ids(lineage.depth());
  commit::tagged_hashes(commit::Domain::lineage, encodings.views(), ids.data());
  return ids;
}

bool is_proper_ancestor(const Lineage& ancestor, const Lineage& descendant) noexcept {
  return ancestor.root == descendant.root && ancestor.depth() < descendant.depth() &&
         std::equal(ancestor.path.begin(), ancestor.path.end(), descendant.path.begin());
}

}  // namespace sion::agents
