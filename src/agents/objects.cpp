#include "sion/agents/objects.hpp"

#include "sion/commit/hash.hpp"

namespace sion::agents {

using ledger::decode_typed_object;
using ledger::ObjectType;
using ledger::typed_object;

Id batch_id(const Id& opening_tx_id) noexcept { return commit::tagged_hash(commit::Domain::auth_batch, opening_tx_id); }

state::Object to_object(const Charter& charter, std::uint64_t version) {
  return typed_object(ObjectType::charter, charter, version);
}
state::Object to_object(const Allotment& allotment, std::uint64_t version) {
  return typed_object(ObjectType::allotment, allotment, version);
}
state::Object to_object(const Restriction& restriction, std::uint64_t version) {
  return typed_object(ObjectType::overlay, restriction, version);
}
state::Object to_object(const AuthBatch& batch, std::uint64_t version) {
  return typed_object(ObjectType::batch, batch, version);
}

base::Result<Charter> charter_from(const state::Object& object) {
  return decode_typed_object<Charter>(object, ObjectType::charter);
}
base::Result<Allotment> allotment_from(const state::Object& object) {
  return decode_typed_object<Allotment>(object, ObjectType::allotment);
}
base::Result<Restriction> restriction_from(const state::Object& object) {
  return decode_typed_object<Restriction>(object, ObjectType::overlay);
}
base::Result<AuthBatch> batch_from(const state::Object& object) {
  return decode_typed_object<AuthBatch>(object, ObjectType::batch);
}

}  // namespace sion::agents
