#include "sion/agents/batch.hpp"

#include "sion/commit/batch_root.hpp"

namespace sion::agents {

crypto::SignatureBundle member_auth(const BatchPlace& place) {
  crypto::SignatureBundle auth;
  auth.parts.push_back(codec::encode(place));
  return auth;
}

std::optional<BatchPlace> member_place(const crypto::SignatureBundle& auth) {
  if (auth.parts.size() != 1) return std::nullopt;
  auto place = codec::decode<BatchPlace>(auth.parts[0]);
  if (!place) return std::nullopt;
  return std::move(*place);
}

bool proves_member(const BatchPlace& place, base::ByteView payload, const AuthBatch& batch) {
  if (place.index >= batch.count) return false;
  commit::InclusionProof proof;
  proof.leaf_index = place.index;
  proof.tree_size = batch.count;
  proof.path.assign(place.path.begin(), place.path.end());
  return commit::verify_batch_inclusion(payload, proof, commit::TreeHead{batch.count, batch.root});
}

}  // namespace sion::agents
