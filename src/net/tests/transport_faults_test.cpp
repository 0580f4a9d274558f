// What a transport refuses, over real sockets on 127.0.0.1: impostors, other
// chains, bad indexes, raw bytes that break the framing or the handshake,
// stalls, a flood of half-open connections, a peer that stops reading; and
// that a newer link from the same validator replaces the older one. Good
// links keep working throughout.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "net_fixture.hpp"
#include "sion/net/transport.hpp"

namespace sion::net {
namespace {

using namespace std::chrono_literals;
using testing::bytes_of;
using testing::Cluster;
using testing::eventually;
using testing::hello_bytes;
using testing::options_for;
using testing::raw_handshake;
using testing::RawListener;
using testing::RawSocket;
using testing::Recorder;
using testing::validator;

std::uint64_t failures(const Transport& transport, HandshakeFailure kind) {
  return transport.stats().handshake_failure(kind);
}

TEST(TransportFaults, ImpostorWithAKeyNotInTheTableIsRefused) {
  // Validator 1 as validator 0 knows it, and an impostor at index 1 whose
  // own table names its own (different) key.
  Recorder recorder;
  Transport honest(options_for(0, 2), recorder.handlers());
  TransportOptions fake = options_for(1, 2);
  fake.peers[1].keys = validator(9).keys;
  fake.signer = mldsa_signer(validator(9).mldsa).value();
  Transport impostor(std::move(fake));
  ASSERT_TRUE(honest.start().ok());
  ASSERT_TRUE(impostor.start().ok());
  ASSERT_TRUE(honest.set_peer_address(1, "127.0.0.1", impostor.port()).ok());
  ASSERT_TRUE(eventually([&] { return failures(honest, HandshakeFailure::bad_signature) >= 2; }));
  EXPECT_FALSE(honest.connected(1));
  EXPECT_EQ(honest.stats().connects, 0U);
  EXPECT_TRUE(recorder.events().empty());

  // The same as an initiator, by hand: validator 0 signing with key 9.
  Transport responder(options_for(1, 2));
  ASSERT_TRUE(responder.start().ok());
  const RawSocket raw = RawSocket::connect(responder.port());
  ASSERT_TRUE(raw.valid());
  raw_handshake(raw, 0, *validator(9).mldsa);
  EXPECT_TRUE(raw.closed_by_peer());
  EXPECT_TRUE(eventually([&] { return failures(responder, HandshakeFailure::bad_signature) == 1; }));
  EXPECT_EQ(responder.stats().connects, 0U);
}

TEST(TransportFaults, OtherChainIsRefused) {
  Transport a(options_for(0, 2));
  TransportOptions other = options_for(1, 2);
  other.chain_id[0] ^= 0xff;
  Transport b(std::move(other));
  ASSERT_TRUE(a.start().ok());
  ASSERT_TRUE(b.start().ok());
  ASSERT_TRUE(a.set_peer_address(1, "127.0.0.1", b.port()).ok());
  ASSERT_TRUE(eventually([&] {
    return failures(a, HandshakeFailure::wrong_chain) >= 1 && failures(b, HandshakeFailure::wrong_chain) >= 1;
  }));
  EXPECT_EQ(a.stats().connects + b.stats().connects, 0U);
}

TEST(TransportFaults, UnknownSelfAndUpwardIndexesAreRefused) {
  Transport transport(options_for(1, 3));
  ASSERT_TRUE(transport.start().ok());
  const auto refused = [&](std::uint32_t sender, HandshakeFailure kind) {
    const RawSocket raw = RawSocket::connect(transport.port());
    ASSERT_TRUE(raw.valid());
    ASSERT_TRUE(raw.send_frame(hello_bytes(sender)));
    EXPECT_TRUE(raw.closed_by_peer()) << sender;
    EXPECT_TRUE(eventually([&] { return failures(transport, kind) == 1; })) << handshake_failure_name(kind);
  };
  refused(7, HandshakeFailure::unknown_peer);
  refused(1, HandshakeFailure::self_index);
  refused(2, HandshakeFailure::wrong_direction);  // 2 > 1: validator 1 dials 2, never the reverse
  const RawSocket raw = RawSocket::connect(transport.port());
  ASSERT_TRUE(raw.send_frame(hello_bytes(0, ChainId{})));
  EXPECT_TRUE(raw.closed_by_peer());
  EXPECT_TRUE(eventually([&] { return failures(transport, HandshakeFailure::wrong_chain) == 1; }));
  EXPECT_EQ(transport.stats().handshake_failures_total(), 4U);
}

TEST(TransportFaults, ResponderThatIsNotTheDialedValidatorIsRefused) {
  RawListener listener;
  Transport transport(options_for(0, 3));
  ASSERT_TRUE(transport.start().ok());
  ASSERT_TRUE(transport.set_peer_address(1, "127.0.0.1", listener.port()).ok());
  const RawSocket raw = listener.accept();
  ASSERT_TRUE(raw.valid());
  const auto their_hello = raw.read_frame();
  ASSERT_TRUE(their_hello);
  EXPECT_EQ(decode_hello(*their_hello).value().sender, 0U);
  ASSERT_TRUE(raw.send_frame(hello_bytes(2)));  // validator 2 answering for 1
  EXPECT_TRUE(raw.closed_by_peer());
  EXPECT_TRUE(eventually([&] { return failures(transport, HandshakeFailure::wrong_peer) == 1; }));
}

TEST(TransportFaults, BrokenBytesAndStallsAreClosedAndCountedWhileGoodLinksServe) {
  Cluster cluster(2, [](TransportOptions& options) { options.handshake_timeout = 300ms; });
  ASSERT_TRUE(cluster.all_connected());
  Transport& target = cluster.at(1);
  const std::uint16_t port = target.port();

  const auto closed_after = [&](base::ByteView bytes) {
    const RawSocket raw = RawSocket::connect(port);
    EXPECT_TRUE(raw.valid());
    EXPECT_TRUE(raw.send(bytes));
    return raw.closed_by_peer();
  };
  EXPECT_TRUE(closed_after(base::Bytes{0xff, 0xff, 0xff, 0xff}));  // 4 GiB declared
  EXPECT_TRUE(closed_after(base::Bytes{0x00, 0x00, 0x13, 0x88}));  // 5000: over the handshake limit
  EXPECT_TRUE(closed_after(base::Bytes{0x00, 0x00, 0x00, 0x00}));  // zero length
  base::Bytes garbage = encode_frame(base::Bytes(kHelloBytes, 0x5a)).value();
  EXPECT_TRUE(closed_after(garbage));
  EXPECT_TRUE(closed_after(base::ByteView(encode_frame(hello_bytes(0)).value()).first(30)));  // stalls mid-Hello
  EXPECT_TRUE(closed_after({}));                                                              // says nothing

  ASSERT_TRUE(eventually([&] { return target.stats().handshake_failures_total() == 6; }));
  const auto stats = target.stats();
  EXPECT_EQ(stats.handshake_failure(HandshakeFailure::oversized_frame), 2U);
  EXPECT_EQ(stats.handshake_failure(HandshakeFailure::malformed), 2U);
  EXPECT_EQ(stats.handshake_failure(HandshakeFailure::timeout), 2U);
  EXPECT_EQ(stats.oversized_frames, 2U);
  EXPECT_EQ(stats.malformed_frames, 1U);

  // The good link never noticed.
  EXPECT_TRUE(target.connected(0));
  ASSERT_TRUE(cluster.at(0).send(1, bytes_of("still here")));
  ASSERT_TRUE(cluster.recorder(1).wait_frames(0, 1));
  EXPECT_EQ(cluster.at(1).stats().connects, 1U);
}

TEST(TransportFaults, NewerLinkFromTheSameValidatorReplacesTheOlder) {
  Recorder recorder;
  Transport transport(options_for(2, 3), recorder.handlers());
  ASSERT_TRUE(transport.start().ok());
  const base::Bytes key = mldsa_public_key(validator(2).keys).value();

  const RawSocket first = RawSocket::connect(transport.port());
  ASSERT_TRUE(raw_handshake(first, 0, *validator(0).mldsa, &key));
  ASSERT_TRUE(recorder.wait_events(1));
  const RawSocket second = RawSocket::connect(transport.port());
  ASSERT_TRUE(raw_handshake(second, 0, *validator(0).mldsa, &key));
  ASSERT_TRUE(recorder.wait_events(3));
  EXPECT_EQ(recorder.events(), (std::vector<std::string>{"up 0", "down 0", "up 0"}));
  EXPECT_TRUE(first.closed_by_peer());
  EXPECT_EQ(transport.stats().replaced, 1U);

  ASSERT_TRUE(transport.send(0, bytes_of("to the new link")));
  EXPECT_EQ(second.read_frame(), bytes_of("to the new link"));
  ASSERT_TRUE(second.send_frame(bytes_of("from the new link")));
  ASSERT_TRUE(recorder.wait_frames(0, 1));

  // A zero-length frame on a link that is up closes it too.
  ASSERT_TRUE(second.send(base::Bytes{0, 0, 0, 0}));
  EXPECT_TRUE(second.closed_by_peer());
  ASSERT_TRUE(recorder.wait_events(4));
  EXPECT_EQ(recorder.events().back(), "down 0");
  EXPECT_EQ(transport.stats().malformed_frames, 1U);
  EXPECT_FALSE(transport.connected(0));

  // And a length over max_frame_bytes.
  const RawSocket third = RawSocket::connect(transport.port());
  ASSERT_TRUE(raw_handshake(third, 1, *validator(1).mldsa, &key));
  ASSERT_TRUE(third.send(base::Bytes{0x01, 0x00, 0x00, 0x01}));  // 16 MiB + 1
  EXPECT_TRUE(third.closed_by_peer());
  EXPECT_TRUE(eventually([&] { return transport.stats().oversized_frames == 1; }));
  EXPECT_EQ(transport.stats().handshake_failures_total(), 0U);
}

TEST(TransportFaults, HalfOpenFloodIsBoundedByMaxPendingHandshakes) {
  TransportOptions options = options_for(1, 2);
  options.max_pending_handshakes = 2;
  Transport transport(std::move(options));
  ASSERT_TRUE(transport.start().ok());
  const RawSocket a = RawSocket::connect(transport.port());
  const RawSocket b = RawSocket::connect(transport.port());
  ASSERT_TRUE(eventually([&] { return transport.stats().accepted == 2; }));
  const RawSocket c = RawSocket::connect(transport.port());
  EXPECT_TRUE(c.closed_by_peer());
  EXPECT_EQ(transport.stats().refused_connections, 1U);
}

TEST(TransportFaults, PeerThatStopsReadingLosesItsLink) {
  Recorder recorder;
  TransportOptions options = options_for(1, 2);
  options.write_timeout = 300ms;
  options.max_queue_bytes = 256 * 1024 * 1024;
  Transport transport(std::move(options), recorder.handlers());
  ASSERT_TRUE(transport.start().ok());
  const base::Bytes key = mldsa_public_key(validator(1).keys).value();
  const RawSocket raw = RawSocket::connect(transport.port());
  ASSERT_TRUE(raw_handshake(raw, 0, *validator(0).mldsa, &key));
  ASSERT_TRUE(recorder.wait_events(1));
  // Far more than the socket buffers hold, and never read.
  for (int i = 0; i < 128; ++i) ASSERT_TRUE(transport.send(0, base::Bytes(1024 * 1024, 1)));
  ASSERT_TRUE(recorder.wait_events(2));
  EXPECT_EQ(recorder.events().back(), "down 0");
  EXPECT_EQ(transport.stats().write_timeouts, 1U);
}

}  // namespace
}  // namespace sion::net
