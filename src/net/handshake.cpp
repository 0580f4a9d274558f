#include "sion/net/handshake.hpp"

#include <string>

namespace sion::net {

base::Bytes encode_hello(const Hello& hello) { return codec::encode(hello); }

base::Result<Hello> decode_hello(base::ByteView bytes) {
  SION_TRY(Hello hello, codec::decode<Hello>(bytes));
  if (hello.magic != kHelloMagic) {
    return base::fail(base::Errc::invalid_value, "Hello.magic is " + base::to_hex(hello.magic) + ", not \"SNET\"");
  }
  if (hello.version != kProtocolVersion) {
    return base::fail(base::Errc::invalid_value, "Hello.version " + std::to_string(hello.version) +
                                                     " is not spoken here (only " + std::to_string(kProtocolVersion) +
                                                     ")");
  }
  return hello;
}

base::Bytes encode_auth(const Auth& auth) { return codec::encode(auth); }

base::Result<Auth> decode_auth(base::ByteView bytes) { return codec::decode<Auth>(bytes); }

crypto::Hash256 transcript_hash(const ChainId& chain_id, base::ByteView initiator_hello, base::ByteView responder_hello,
                                Role signer) noexcept {
  crypto::Sha3_256 h;
  h.absorb(base::as_bytes(kTranscriptDomain));
  h.absorb(chain_id);
  h.absorb(initiator_hello);
  h.absorb(responder_hello);
  const std::uint8_t role = static_cast<std::uint8_t>(signer);
  h.absorb({&role, 1});
  h.finalize();
  crypto::Hash256 out;
  h.squeeze(out);
  return out;
}

std::optional<Refusal> check_hello(const Hello& hello, const HelloRules& rules) {
  const std::string who = "validator " + std::to_string(hello.sender);
  if (hello.chain_id != rules.chain_id) {
    return Refusal{HandshakeFailure::wrong_chain, "Hello from " + who + " is for chain " +
                                                      base::to_hex(hello.chain_id) + ", not ours (" +
                                                      base::to_hex(rules.chain_id) + ")"};
  }
  if (hello.sender >= rules.validators) {
    return Refusal{HandshakeFailure::unknown_peer, "Hello names " + who + ", but the peer table has " +
                                                       std::to_string(rules.validators) + " validators"};
  }
  if (hello.sender == rules.self) {
    return Refusal{HandshakeFailure::self_index, "Hello names our own index " + std::to_string(rules.self)};
  }
  if (rules.own_role == Role::initiator && hello.sender != rules.dialed) {
    return Refusal{HandshakeFailure::wrong_peer,
                   "dialed validator " + std::to_string(rules.dialed) + " but the responder says it is " + who};
  }
  if (rules.own_role == Role::responder && hello.sender > rules.self) {
    return Refusal{HandshakeFailure::wrong_direction,
                   who + " dialed us (validator " + std::to_string(rules.self) + "); the lower index dials the higher"};
  }
  return std::nullopt;
}

}  // namespace sion::net
