#pragma once
// The handshake that opens every validator link (docs/net.md, "Handshake"):
// both ends send a Hello, then an Auth, an ML-DSA-44 signature (FIPS 204,
// pure interface, empty context) over a transcript hash that binds the chain,
// both Hellos (so both fresh nonces) and the signer's role. Encodings use the
// canonical codec (docs/codec.md); these functions do no I/O.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/net/stats.hpp"

namespace sion::net {

using ChainId = base::ByteArray<32>;
using Nonce = base::ByteArray<32>;

inline constexpr base::ByteArray<4> kHelloMagic = {'S', 'N', 'E', 'T'};
inline constexpr std::uint16_t kProtocolVersion = 1;
inline constexpr std::string_view kTranscriptDomain = "sion/net/handshake/v1";
inline constexpr std::size_t kHelloBytes = 74;
// An ML-DSA-44 signature (FIPS 204, Table 2).
inline constexpr std::size_t kAuthSignatureBytes = 2420;
// The frame limit until a link is up: a Hello or an Auth, with room to spare.
inline constexpr std::uint32_t kMaxHandshakeFrameBytes = 4096;

// Who opened the TCP connection; the role byte of the transcript.
enum class Role : std::uint8_t { initiator = 0, responder = 1 };

struct Hello {
  base::ByteArray<4> magic = kHelloMagic;
  std::uint16_t version = kProtocolVersion;
  ChainId chain_id{};
  std::uint32_t sender = 0;  // the sender's validator index
  Nonce nonce{};             // fresh randomness for every connection
  static constexpr std::string_view codec_name = "Hello";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("magic", &Hello::magic), codec::field("version", &Hello::version),
                      codec::field("chain_id", &Hello::chain_id), codec::field("sender", &Hello::sender),
                      codec::field("nonce", &Hello::nonce)};
  }
  bool operator==(const Hello&) const = default;
};

struct Auth {
  base::ByteArray<kAuthSignatureBytes> signature{};
  static constexpr std::string_view codec_name = "Auth";
  static constexpr auto codec_fields() { return std::tuple{codec::field("signature", &Auth::signature)}; }
  bool operator==(const Auth&) const = default;
};

base::Bytes encode_hello(const Hello& hello);
// Refuses what does not decode (naming the field), a magic other than
// "SNET" and a version other than kProtocolVersion.
base::Result<Hello> decode_hello(base::ByteView bytes);

base::Bytes encode_auth(const Auth& auth);
base::Result<Auth> decode_auth(base::ByteView bytes);

// SHA3-256(kTranscriptDomain || chain_id || initiator_hello || responder_hello
// || role byte): what the side in `signer` signs. The Hellos are their
// encodings exactly as sent.
crypto::Hash256 transcript_hash(const ChainId& chain_id, base::ByteView initiator_hello, base::ByteView responder_hello,
                                Role signer) noexcept;

// What a received Hello must satisfy at one end of a connection.
struct HelloRules {
  ChainId chain_id{};
  std::uint32_t self = 0;        // our validator index
  std::uint32_t validators = 0;  // size of the peer table
  Role own_role = Role::initiator;
  std::uint32_t dialed = 0;  // an initiator's: the index it dialed
};

struct Refusal {
  HandshakeFailure kind = HandshakeFailure::malformed;
  std::string reason;
};

// Nothing when `hello` is acceptable; otherwise why not. The sender must be
// in the table and not us; a responder's must be the dialed one; an
// initiator's must be below ours (the lower index dials the higher).
std::optional<Refusal> check_hello(const Hello& hello, const HelloRules& rules);

}  // namespace sion::net
