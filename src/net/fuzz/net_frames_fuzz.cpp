// libFuzzer target: what a peer's bytes do to a link, without sockets. The
// first byte picks the input's kind:
//   0  a frame stream: 4 bytes set the frame limit, 1 byte the chunking, the
//      rest goes through FrameReader in pieces; the frames and the error
//      must be those of a one-shot reference parse, and memory held for a
//      partial frame must follow the bytes that came, not the declared length;
//   1  a Hello: refused with a reason, or re-encodes to the same bytes, and
//      check_hello() accepts or names why not;
//   2  an Auth: the same, then verified against a fixed transcript;
//   3  a responder's whole inbound side: frames at the handshake limit, the
//      first a Hello checked as validator 1 of 3 does, the second an Auth
//      verified under validator 0's fixed key, then payload frames.
// Built with SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus:
// streams, Hellos, a valid Auth and a complete valid handshake with payloads.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "sion/base/endian.hpp"
#include "sion/codec/testing/fuzzing.hpp"
#include "sion/crypto/signature.hpp"
#include "sion/net/frame.hpp"
#include "sion/net/handshake.hpp"

namespace {

using namespace sion;
using namespace sion::net;

enum Kind : std::uint8_t { stream, hello, auth, inbound, kKinds };

constexpr std::uint32_t kPayloadLimit = 1 << 20;

ChainId chain() {
  ChainId id{};
  id.fill(0xc5);
  return id;
}

// Validator 0's ML-DSA-44 key, from a fixed seed.
const crypto::SigningKey& initiator_key() {
  static const crypto::SigningKey key = [] {
    crypto::KeySeed seed{};
    seed.fill(0x01);
    return crypto::SigningKey::from_seed(crypto::Scheme::ml_dsa_44, seed).value();
  }();
  return key;
}

base::Bytes hello_of(std::uint32_t sender, std::uint8_t nonce) {
  Hello h;
  h.chain_id = chain();
  h.sender = sender;
  h.nonce.fill(nonce);
  return encode_hello(h);
}

// What validator 1, the responder, sent: fixed, so a seed can sign over it.
const base::Bytes& responder_hello() {
  static const base::Bytes bytes = hello_of(1, 0x77);
  return bytes;
}

const crypto::Hash256& fixed_transcript() {
  static const crypto::Hash256 hash = transcript_hash(chain(), hello_of(0, 0x66), responder_hello(), Role::initiator);
  return hash;
}

// ---- kind 0 --------------------------------------------------------------

struct Parsed {
  std::vector<base::Bytes> frames;
  std::optional<base::Errc> error;
  std::size_t partial = 0;  // bytes of an unfinished frame at the end
};

// The specification, read straight off docs/net.md, "Framing".
Parsed reference_parse(base::ByteView bytes, std::uint32_t limit) {
  Parsed out;
  while (true) {
    if (bytes.size() < kFrameHeaderBytes) {
      out.partial = bytes.size();
      return out;
    }
    const std::uint32_t length = base::load_be<std::uint32_t>(bytes.data());
    if (length == 0) {
      out.error = base::Errc::invalid_value;
      return out;
    }
    if (length > limit) {
      out.error = base::Errc::length_over_max;
      return out;
    }
    if (bytes.size() - kFrameHeaderBytes < length) {
      out.partial = bytes.size();
      return out;
    }
    out.frames.emplace_back(bytes.begin() + kFrameHeaderBytes, bytes.begin() + kFrameHeaderBytes + length);
    bytes = bytes.subspan(kFrameHeaderBytes + length);
  }
}

void fuzz_stream(base::ByteView data) {
  if (data.size() < 5) return;
  const std::uint32_t limit = 1 + base::load_le<std::uint32_t>(data.data()) % kPayloadLimit;
  std::uint32_t chunking = data[4];
  const base::ByteView bytes = data.subspan(5);
  const Parsed expected = reference_parse(bytes, limit);

  FrameReader reader(limit);
  Parsed got;
  base::ByteView rest = bytes;
  while (!rest.empty() && !got.error) {
    // Piece sizes from 1 to 64 from a small generator, so every boundary
    // (inside a prefix, at its end, inside a payload) gets exercised.
    chunking = chunking * 1103515245U + 12345U;
    base::ByteView piece = rest.first(std::min<std::size_t>(rest.size(), 1 + (chunking >> 16) % 64));
    rest = rest.subspan(piece.size());
    while (!piece.empty()) {
      auto used = reader.feed(piece);
      if (!used) {
        if (used.error().reason.empty() || !reader.failed()) std::abort();
        got.error = used.error().code;
        break;
      }
      if (*used == 0 && !reader.ready()) std::abort();  // no progress
      piece = piece.subspan(*used);
      if (reader.ready()) {
        got.frames.push_back(reader.take());
        if (got.frames.back().empty() || got.frames.back().size() > limit) std::abort();
      }
    }
  }
  if (got.frames != expected.frames || got.error != expected.error) std::abort();
  if (!got.error) {
    if (reader.pending_bytes() != expected.partial) std::abort();
    const std::size_t payload_bytes = expected.partial > kFrameHeaderBytes ? expected.partial - kFrameHeaderBytes : 0;
    if (reader.reserved_bytes() > std::max<std::size_t>(64 * 1024, 2 * payload_bytes)) std::abort();
  }
}

// ---- kinds 1 and 2 ---------------------------------------------------------

void fuzz_hello(base::ByteView data) {
  auto decoded = decode_hello(data);
  if (!decoded) {
    if (decoded.error().reason.empty()) std::abort();
    return;
  }
  const base::Bytes again = encode_hello(*decoded);
  if (!std::equal(again.begin(), again.end(), data.begin(), data.end())) std::abort();
  for (const Role role : {Role::initiator, Role::responder}) {
    HelloRules rules;
    rules.chain_id = chain();
    rules.self = 1;
    rules.validators = 3;
    rules.own_role = role;
    rules.dialed = 2;
    const auto refusal = check_hello(*decoded, rules);
    if (refusal && refusal->reason.empty()) std::abort();
    // Accepted only from a validator in the table other than us, on our chain.
    if (!refusal && (decoded->sender >= 3 || decoded->sender == 1 || decoded->chain_id != chain())) std::abort();
  }
}

void fuzz_auth(base::ByteView data) {
  Auth decoded;
  if (!codec::testing::decode_exactly(data, decoded)) return;
  if (!decode_auth(data)) std::abort();
  (void)crypto::verify(crypto::Scheme::ml_dsa_44, initiator_key().public_key(), fixed_transcript(), decoded.signature);
}

// ---- kind 3 ---------------------------------------------------------------

void fuzz_inbound(base::ByteView data) {
  FrameReader reader(kMaxHandshakeFrameBytes);
  enum class Phase { hello, auth, up } phase = Phase::hello;
  base::Bytes initiator_hello;
  while (!data.empty()) {
    auto used = reader.feed(data);
    if (!used) {
      if (used.error().reason.empty()) std::abort();
      return;  // the link closes
    }
    data = data.subspan(*used);
    if (!reader.ready()) continue;
    base::Bytes frame = reader.take();
    if (phase == Phase::hello) {
      auto decoded = decode_hello(frame);
      if (!decoded) return;
      HelloRules rules;
      rules.chain_id = chain();
      rules.self = 1;
      rules.validators = 3;
      rules.own_role = Role::responder;
      if (check_hello(*decoded, rules)) return;
      initiator_hello = std::move(frame);
      phase = Phase::auth;
    } else if (phase == Phase::auth) {
      auto decoded = decode_auth(frame);
      if (!decoded) return;
      const auto transcript = transcript_hash(chain(), initiator_hello, responder_hello(), Role::initiator);
      // Only validator 0 has a key here; a Hello from validator 2 cannot
      // reach this point (it would be dialing downwards).
      if (!crypto::verify(crypto::Scheme::ml_dsa_44, initiator_key().public_key(), transcript, decoded->signature)) {
        return;
      }
      phase = Phase::up;
      reader.set_max_frame_bytes(kPayloadLimit);
    }
    // Payload frames once up: opaque, nothing more to check.
  }
}

[[maybe_unused]] void fuzz_one(std::uint8_t kind, base::ByteView body) {
  switch (kind) {
    case stream: return fuzz_stream(body);
    case hello: return fuzz_hello(body);
    case auth: return fuzz_auth(body);
    case inbound: return fuzz_inbound(body);
    default: return;
  }
}

[[maybe_unused]] base::Bytes frame_of(base::ByteView payload) { return encode_frame(payload).value(); }

[[maybe_unused]] void append(base::Bytes& out, base::ByteView more) { out.insert(out.end(), more.begin(), more.end()); }

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  codec::testing::CorpusWriter corpus(argv[1], "net");

  // Streams: limit 1000, then frames, a partial one, a zero length, an oversized one.
  const auto stream_seed = [&](std::uint8_t chunking, base::ByteView bytes) {
    base::Bytes body(4);
    base::store_le<std::uint32_t>(body.data(), 999);
    body.push_back(chunking);
    append(body, bytes);
    corpus.write(stream, body);
  };
  base::Bytes frames;
  for (std::uint8_t i = 1; i < 20; ++i) append(frames, frame_of(base::Bytes(i * 13u % 90 + 1, i)));
  stream_seed(7, frames);
  base::Bytes partial = frames;
  append(partial, base::Bytes{0x00, 0x00, 0x01, 0x00, 1, 2, 3});
  stream_seed(200, partial);
  base::Bytes zero = frame_of(base::Bytes{1, 2});
  append(zero, base::Bytes{0, 0, 0, 0});
  stream_seed(1, zero);
  base::Bytes oversized = frame_of(base::Bytes(999, 4));
  append(oversized, base::Bytes{0x00, 0x00, 0x03, 0xe9});  // 1001
  stream_seed(3, oversized);

  corpus.write(hello, hello_of(0, 0x66));
  corpus.write(hello, hello_of(2, 0x01));
  corpus.write(hello, hello_of(7, 0x02));
  Hello other_chain;
  other_chain.sender = 1;
  corpus.write(hello, encode_hello(other_chain));

  Auth valid;
  const base::Bytes signature = initiator_key().sign(fixed_transcript()).value();
  std::copy(signature.begin(), signature.end(), valid.signature.begin());
  corpus.write(auth, encode_auth(valid));

  // A complete handshake as validator 0, then payload frames.
  base::Bytes handshake = frame_of(hello_of(0, 0x66));
  append(handshake, frame_of(encode_auth(valid)));
  corpus.write(inbound, handshake);
  append(handshake, frame_of(base::Bytes(5000, 9)));  // over the handshake limit, within the payload limit
  append(handshake, frame_of(base::Bytes{1}));
  corpus.write(inbound, handshake);
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  codec::testing::dispatch_by_kind(data, size, kKinds, fuzz_one);
  return 0;
}
#endif
