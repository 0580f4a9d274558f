#pragma once
// The transaction kinds of payment streams (docs/streams.md, "Kinds"): each
// a codec struct with the functions sion/ledger/kind.hpp asks of a kind,
// found by argument-dependent lookup from exec's dispatch.
//
// OpenStream pays its fee with coins[0], as other kinds do, and may be sent
// by an agent within its caveats. SettleStream and CloseStream pay their
// fee out of the stream (a settlement out of what it settles, a close out
// of the refund): they name no coin, and their rules run at step 7, where a
// settlement or close that does not hold is rejected and pays nothing.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/ledger/authorize.hpp"
#include "sion/ledger/kind.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/ledger/receipt.hpp"
#include "sion/streams/objects.hpp"

namespace sion::streams {

inline constexpr std::size_t kMaxOpenCoins = 64;
// A checkpoint path: a tree over at most 2^32 checkpoints.
inline constexpr std::size_t kMaxPathLength = 32;

struct OpenStream {
  Id payee{};
  Amount price = 0;
  std::uint32_t length = 0;
  Hash anchor{};
  Hash checkpoints{};
  Amount deposit = 0;
  std::uint64_t expiry_height = 0;
  codec::List<Id, kMaxOpenCoins> coins;  // an account's: coins[0] pays the fee; an agent's: none
  static constexpr std::string_view codec_name = "OpenStream";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("payee", &OpenStream::payee),
                      codec::field("price", &OpenStream::price),
                      codec::field("length", &OpenStream::length),
                      codec::field("anchor", &OpenStream::anchor),
                      codec::field("checkpoints", &OpenStream::checkpoints),
                      codec::field("deposit", &OpenStream::deposit),
                      codec::field("expiry_height", &OpenStream::expiry_height),
                      codec::field("coins", &OpenStream::coins)};
  }
  bool operator==(const OpenStream&) const = default;
};

using CheckpointPath = codec::List<Hash, kMaxPathLength>;

// Payee's claim that `element` is x[index]. Walked (no path): `from` is the
// settled index and the element hashes down to the settled element in
// index - from steps. By checkpoint: `from` is the checkpoint at or below
// the index, and the element hashes down to it, which `path` proves in the
// stream's checkpoint tree (the anchor, from 0, needs an empty path).
struct SettleStream {
  Id stream{};
  std::uint32_t from = 0;
  std::uint32_t index = 0;
  Hash element{};
  std::optional<CheckpointPath> path;
  static constexpr std::string_view codec_name = "SettleStream";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("stream", &SettleStream::stream), codec::field("from", &SettleStream::from),
                      codec::field("index", &SettleStream::index), codec::field("element", &SettleStream::element),
                      codec::field("path", &SettleStream::path)};
  }
  bool operator==(const SettleStream&) const = default;
};

struct CloseStream {
  Id stream{};
  static constexpr std::string_view codec_name = "CloseStream";
  static constexpr auto codec_fields() { return std::tuple{codec::field("stream", &CloseStream::stream)}; }
  bool operator==(const CloseStream&) const = default;
};

std::optional<Id> fee_coin(const OpenStream& body) noexcept;
constexpr std::optional<Id> fee_coin(const SettleStream&) noexcept { return std::nullopt; }
constexpr std::optional<Id> fee_coin(const CloseStream&) noexcept { return std::nullopt; }

// OpenStream: its change. SettleStream: the payee's coin, and the payer's
// refund when the settlement finishes the stream. CloseStream: the refund.
constexpr std::uint32_t max_created_objects(const OpenStream&) noexcept { return 1; }
constexpr std::uint32_t max_created_objects(const SettleStream&) noexcept { return 2; }
constexpr std::uint32_t max_created_objects(const CloseStream&) noexcept { return 1; }

// Verify units of a settlement's hashing: one per step walked, one for the
// checkpoint leaf and one per path node (docs/streams.md, "Fees").
std::uint64_t work_units(const SettleStream& body) noexcept;
// The walk a settlement's check makes, a function of the body alone: from
// `element`, index - from steps (none when index <= from). Its end is what
// the rules compare with the settled element or prove as a checkpoint.
inline std::uint32_t walk_steps(const SettleStream& body) noexcept {
  return body.index > body.from ? body.index - body.from : 0;
}

base::Result<ledger::BodyFee> pay_fee_from_body(ledger::Overlay& state, const SettleStream& body,
                                                const ledger::BodyFeeRequest& request);
base::Result<ledger::BodyFee> pay_fee_from_body(ledger::Overlay& state, const CloseStream& body,
                                                const ledger::BodyFeeRequest& request);

// OpenStream's rules; SettleStream's and CloseStream's ran at step 7, so
// theirs only write the receipt.
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const OpenStream& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const SettleStream& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);
base::Result<ledger::Receipt> apply_body(ledger::Overlay& state, const CloseStream& body, const ledger::Authorized& tx,
                                         std::span<const Id> new_ids);

static_assert(ledger::TxKind<OpenStream> && ledger::TxKind<SettleStream> && ledger::TxKind<CloseStream>);

// Agents may open a stream (action pay); settling and closing are the
// payee's and payer's, which are accounts.
template <class Kind>
inline constexpr bool kSentByAgents = std::is_same_v<Kind, OpenStream>;

}  // namespace sion::streams
