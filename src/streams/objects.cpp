#include "sion/streams/objects.hpp"

namespace sion::streams {

using ledger::ObjectType;

Id stream_id(const Id& opening_tx_id) noexcept { return commit::tagged_hash(commit::Domain::stream, opening_tx_id); }

state::Object to_object(const Stream& stream, std::uint64_t version) {
  return ledger::typed_object(ObjectType::stream, stream, version);
}

base::Result<Stream> stream_from(const state::Object& object) {
  return ledger::decode_typed_object<Stream>(object, ObjectType::stream);
}

base::Result<std::optional<StoredStream>> read_stream(const ledger::Overlay& state, const Id& id) {
  SION_TRY(const auto object, state.find(id));
  if (object == nullptr || object->type != static_cast<std::uint32_t>(ObjectType::stream)) {
    return std::optional<StoredStream>{};
  }
  SION_TRY(auto stream, stream_from(*object));
  return std::optional<StoredStream>{StoredStream{std::move(stream), object->version}};
}

}  // namespace sion::streams
