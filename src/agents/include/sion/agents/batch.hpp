#pragma once
// Batches of member transactions (docs/agents.md, "Authorization of an
// agent's transaction"): a controller signs one root over up to 65,536
// member payloads; each member carries its place, which proves its payload
// in the batch.

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

#include "sion/agents/lineage.hpp"
#include "sion/agents/objects.hpp"
#include "sion/codec/codec.hpp"
#include "sion/crypto/bundle.hpp"

namespace sion::agents {

inline constexpr std::uint32_t kMaxBatchMembers = 65'536;

// A member's place: its batch, its index and the inclusion path of its
// payload (leaf side first, RFC 9162, Sec. 2.1.3).
struct BatchPlace {
  Id batch{};
  std::uint32_t index = 0;
  codec::List<Id, 16> path;
  static constexpr std::string_view codec_name = "BatchPlace";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("batch", &BatchPlace::batch), codec::field("index", &BatchPlace::index),
                      codec::field("path", &BatchPlace::path)};
  }
  bool operator==(const BatchPlace&) const = default;
};

// A member's authorization: one part, the encoding of its place.
crypto::SignatureBundle member_auth(const BatchPlace& place);
// The place a member's auth holds; nullopt unless it holds exactly one
// part that decodes as a BatchPlace.
std::optional<BatchPlace> member_place(const crypto::SignatureBundle& auth);

// Whether `place` proves `payload` (a TxPayload encoding) as item
// place.index of `batch`'s root over batch.count items (docs/commit-log.md,
// "Batch roots").
bool proves_member(const BatchPlace& place, base::ByteView payload, const AuthBatch& batch);

}  // namespace sion::agents
