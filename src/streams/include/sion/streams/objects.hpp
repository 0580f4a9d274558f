#pragma once
// A payment stream as the ledger holds it (docs/streams.md, "Objects").
// Consensus format: the codec encoding is its one stored form.

#include <cstdint>
#include <string_view>
#include <tuple>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/ledger/objects.hpp"
#include "sion/ledger/overlay.hpp"
#include "sion/streams/chain.hpp"

namespace sion::streams {

using ledger::Amount;
using ledger::Id;

// Opened by OpenStream, moved by each SettleStream, deleted by the
// settlement that finishes it or by CloseStream after expiry.
struct Stream {
  Id payer{};
  Id payee{};
  Amount price = 0;                 // per step
  std::uint32_t length = 0;         // n: the chain's elements above the anchor
  Hash anchor{};                    // x[0]
  Hash checkpoints{};               // root over x[c], ..., x[mc]
  Amount deposit = 0;               // what is left of the deposit
  std::uint64_t expiry_height = 0;  // the last height a settlement may run at
  std::uint32_t settled = 0;        // the settled index: payments 1 .. settled are paid
  Hash settled_element{};           // x[settled]
  static constexpr std::string_view codec_name = "Stream";
  static constexpr auto codec_fields() {
    return std::tuple{
        codec::field("payer", &Stream::payer),     codec::field("payee", &Stream::payee),
        codec::field("price", &Stream::price),     codec::field("length", &Stream::length),
        codec::field("anchor", &Stream::anchor),   codec::field("checkpoints", &Stream::checkpoints),
        codec::field("deposit", &Stream::deposit), codec::field("expiry_height", &Stream::expiry_height),
        codec::field("settled", &Stream::settled), codec::field("settled_element", &Stream::settled_element)};
  }
  bool operator==(const Stream&) const = default;
};

// SHA3-256(0x4e || tx_id): where the stream OpenStream `tx_id` opens lives.
Id stream_id(const Id& opening_tx_id) noexcept;

state::Object to_object(const Stream& stream, std::uint64_t version);
// The reverse; another type, or bytes that do not decode, is corrupt_store.
base::Result<Stream> stream_from(const state::Object& object);

// A stream with its stored version.
struct StoredStream {
  Stream stream;
  std::uint64_t version = 0;
};
// The stream under `id`; nullopt if there is none (or another kind of
// object is there). An error is a read failure or a corrupt store.
base::Result<std::optional<StoredStream>> read_stream(const ledger::Overlay& state, const Id& id);

}  // namespace sion::streams
