// Transports over real sockets on 127.0.0.1 (ephemeral ports): links between
// every pair, ordered delivery, broadcast, reconnecting to a restarted peer,
// the bounded send queue, the test hooks and start()'s checks.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "net_fixture.hpp"
#include "sion/base/endian.hpp"
#include "sion/base/testing/sanitizers.hpp"
#include "sion/net/transport.hpp"

namespace sion::net {
namespace {

using namespace std::chrono_literals;
using testing::bytes_of;
using testing::Cluster;
using testing::eventually;
using testing::options_for;
using testing::Recorder;

// A payload carrying (from, to, sequence) and some filler.
base::Bytes numbered(std::uint32_t from, std::uint32_t to, std::uint32_t sequence, std::size_t filler = 0) {
  base::Bytes out(12 + filler, 0xee);
  base::store_be<std::uint32_t>(out.data(), from);
  base::store_be<std::uint32_t>(out.data() + 4, to);
  base::store_be<std::uint32_t>(out.data() + 8, sequence);
  return out;
}

TEST(Transport, FourValidatorsLinkEveryPairAndDeliverInOrder) {
  constexpr std::uint32_t kCount = 4;
  constexpr std::uint32_t kFrames = 300;
  Cluster cluster(kCount);
  ASSERT_TRUE(cluster.all_connected());
  for (std::uint32_t i = 0; i < kCount; ++i) {
    for (std::uint32_t j = 0; j < kCount; ++j) {
      if (i == j) continue;
      for (std::uint32_t n = 0; n < kFrames; ++n) ASSERT_TRUE(cluster.at(i).send(j, numbered(i, j, n, n % 200)));
    }
  }
  for (std::uint32_t j = 0; j < kCount; ++j) {
    for (std::uint32_t i = 0; i < kCount; ++i) {
      if (i == j) continue;
      ASSERT_TRUE(cluster.recorder(j).wait_frames(i, kFrames)) << i << " -> " << j;
      const auto frames = cluster.recorder(j).frames(i);
      ASSERT_EQ(frames.size(), kFrames);
      for (std::uint32_t n = 0; n < kFrames; ++n) ASSERT_EQ(frames[n], numbered(i, j, n, n % 200)) << n;
    }
  }
  for (std::uint32_t i = 0; i < kCount; ++i) {
    const auto stats = cluster.at(i).stats();
    EXPECT_EQ(stats.connects, kCount - 1);
    EXPECT_EQ(stats.frames_received, (kCount - 1) * kFrames);
    EXPECT_EQ(stats.handshake_failures_total(), 0U);
    EXPECT_EQ(stats.frames_dropped_queue_full, 0U);
    // Validator i dialed the ones above it and accepted the ones below.
    EXPECT_EQ(stats.accepted, i);
  }
  EXPECT_TRUE(eventually([&] { return cluster.at(0).stats().frames_sent == (kCount - 1) * kFrames; }));
}

TEST(Transport, BroadcastReachesEveryone) {
  Cluster cluster(4);
  ASSERT_TRUE(cluster.all_connected());
  EXPECT_EQ(cluster.at(2).broadcast(bytes_of("to all")), 3U);
  for (const std::uint32_t j : {0U, 1U, 3U}) {
    ASSERT_TRUE(cluster.recorder(j).wait_frames(2, 1));
    EXPECT_EQ(cluster.recorder(j).frames(2).front(), bytes_of("to all"));
  }
  EXPECT_EQ(cluster.recorder(2).frames(2).size(), 0U);
}

TEST(Transport, UpAndDownAreReportedAndSelfSendsRefused) {
  Cluster cluster(2);
  ASSERT_TRUE(cluster.all_connected());
  ASSERT_TRUE(cluster.recorder(0).wait_events(1));
  EXPECT_EQ(cluster.recorder(0).events(), std::vector<std::string>{"up 1"});
  EXPECT_FALSE(cluster.at(0).send(0, bytes_of("self")));
  EXPECT_FALSE(cluster.at(0).send(9, bytes_of("nobody")));
  EXPECT_FALSE(cluster.at(0).send(1, {}));
  EXPECT_EQ(cluster.at(0).stats().frames_refused, 3U);
  cluster.at(1).stop();
  ASSERT_TRUE(cluster.recorder(0).wait_events(2));
  EXPECT_EQ(cluster.recorder(0).events().back(), "down 1");
  EXPECT_FALSE(cluster.at(1).send(0, bytes_of("after stop")));
}

TEST(Transport, FramesQueuedBeforeTheLinkGoOutOnceItIsUp) {
  TransportOptions a = options_for(0, 2);
  TransportOptions b = options_for(1, 2);
  Recorder ra, rb;
  Transport ta(std::move(a), ra.handlers());
  Transport tb(std::move(b), rb.handlers());
  ASSERT_TRUE(ta.start().ok());
  ASSERT_TRUE(tb.start().ok());
  for (std::uint32_t n = 0; n < 5; ++n) {
    ASSERT_TRUE(ta.send(1, numbered(0, 1, n)));
    ASSERT_TRUE(tb.send(0, numbered(1, 0, n)));
  }
  EXPECT_FALSE(ta.connected(1));
  // Only now does 0 learn where 1 listens, and dial.
  ASSERT_TRUE(ta.set_peer_address(1, "127.0.0.1", tb.port()).ok());
  ASSERT_TRUE(rb.wait_frames(0, 5));
  ASSERT_TRUE(ra.wait_frames(1, 5));
  for (std::uint32_t n = 0; n < 5; ++n) {
    EXPECT_EQ(rb.frames(0)[n], numbered(0, 1, n));
    EXPECT_EQ(ra.frames(1)[n], numbered(1, 0, n));
  }
}

TEST(Transport, DialerReconnectsToARestartedPeer) {
  Cluster cluster(2);
  ASSERT_TRUE(cluster.all_connected());
  ASSERT_TRUE(cluster.at(0).send(1, bytes_of("before")));
  ASSERT_TRUE(cluster.recorder(1).wait_frames(0, 1));

  cluster.restart(1);
  ASSERT_TRUE(cluster.all_connected());
  ASSERT_TRUE(cluster.at(0).send(1, bytes_of("after")));
  ASSERT_TRUE(cluster.at(1).send(0, bytes_of("back")));
  ASSERT_TRUE(cluster.recorder(1).wait_frames(0, 1));
  EXPECT_EQ(cluster.recorder(1).frames(0).back(), bytes_of("after"));
  ASSERT_TRUE(eventually([&] { return !cluster.recorder(0).frames(1).empty(); }));
  EXPECT_EQ(cluster.recorder(0).frames(1).back(), bytes_of("back"));
  const auto stats = cluster.at(0).stats();
  EXPECT_EQ(stats.connects, 2U);
  EXPECT_EQ(stats.disconnects, 1U);
  EXPECT_GE(stats.dials, 2U);
}

TEST(Transport, TheAcceptingSideSeesARestartedDialer) {
  Cluster cluster(2);
  ASSERT_TRUE(cluster.all_connected());
  cluster.restart(0);
  ASSERT_TRUE(cluster.all_connected());
  ASSERT_TRUE(cluster.at(1).send(0, bytes_of("hello again")));
  ASSERT_TRUE(cluster.recorder(0).wait_frames(1, 1));
  EXPECT_EQ(cluster.at(1).stats().connects, 2U);
}

TEST(Transport, AFullQueueDropsAndCountsInsteadOfBlocking) {
  TransportOptions options = options_for(0, 3);
  options.max_queue_frames = 8;
  options.max_queue_bytes = 1000;
  Transport transport(std::move(options));
  ASSERT_TRUE(transport.start().ok());
  // Peer 1's port is never known, so nothing leaves its queue.
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(transport.send(1, bytes_of("x")));
  const auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(transport.send(1, bytes_of("x")));
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1s);
  // The byte bound, on another peer's queue.
  EXPECT_TRUE(transport.send(2, base::Bytes(600, 1)));
  EXPECT_FALSE(transport.send(2, base::Bytes(600, 2)));
  EXPECT_TRUE(transport.send(2, base::Bytes(400, 3)));
  EXPECT_EQ(transport.stats().frames_dropped_queue_full, 2U);
  EXPECT_EQ(transport.broadcast(bytes_of("y")), 0U);  // both full
  EXPECT_EQ(transport.stats().frames_dropped_queue_full, 4U);
}

TEST(Transport, LinkDelayHoldsFramesAndKeepsOrder) {
  Cluster cluster(2);
  ASSERT_TRUE(cluster.all_connected());
  constexpr auto kDelay = 150ms;
  cluster.at(0).set_link_delay(1, kDelay);
  const auto sent = std::chrono::steady_clock::now();
  for (std::uint32_t n = 0; n < 10; ++n) ASSERT_TRUE(cluster.at(0).send(1, numbered(0, 1, n)));
  cluster.at(0).set_link_delay(1, 0ms);
  // Undelayed, but it may not overtake the delayed ones.
  ASSERT_TRUE(cluster.at(0).send(1, numbered(0, 1, 10)));
  ASSERT_TRUE(cluster.recorder(1).wait_frames(0, 11));
  const auto elapsed = std::chrono::steady_clock::now() - sent;
  EXPECT_GE(elapsed, kDelay);
  if (!base::testing::kSanitized) {
    EXPECT_LT(elapsed, kDelay + 2s);
  }
  const auto frames = cluster.recorder(1).frames(0);
  for (std::uint32_t n = 0; n <= 10; ++n) EXPECT_EQ(frames[n], numbered(0, 1, n));
  // The other direction was never delayed.
  const auto back = std::chrono::steady_clock::now();
  ASSERT_TRUE(cluster.at(1).send(0, bytes_of("quick")));
  ASSERT_TRUE(cluster.recorder(0).wait_frames(1, 1));
  if (!base::testing::kSanitized) {
    EXPECT_LT(std::chrono::steady_clock::now() - back, kDelay);
  }
}

TEST(Transport, BlockedPeerLosesFramesBothWaysWhileTheLinkStays) {
  Cluster cluster(2);
  ASSERT_TRUE(cluster.all_connected());
  cluster.at(0).set_blocked(1, true);
  EXPECT_TRUE(cluster.at(0).send(1, bytes_of("lost out")));
  ASSERT_TRUE(cluster.at(1).send(0, bytes_of("lost in")));
  ASSERT_TRUE(eventually([&] { return cluster.at(0).stats().frames_dropped_blocked == 2; }));
  EXPECT_TRUE(cluster.at(0).connected(1));
  cluster.at(0).set_blocked(1, false);
  ASSERT_TRUE(cluster.at(0).send(1, bytes_of("out")));
  ASSERT_TRUE(cluster.at(1).send(0, bytes_of("in")));
  ASSERT_TRUE(cluster.recorder(1).wait_frames(0, 1));
  ASSERT_TRUE(cluster.recorder(0).wait_frames(1, 1));
  EXPECT_EQ(cluster.recorder(1).frames(0), std::vector<base::Bytes>{bytes_of("out")});
  EXPECT_EQ(cluster.recorder(0).frames(1), std::vector<base::Bytes>{bytes_of("in")});
}

TEST(Transport, LargeFramesUpToTheLimit) {
  Cluster cluster(2, [](TransportOptions& options) { options.max_frame_bytes = 3 * 1024 * 1024; });
  ASSERT_TRUE(cluster.all_connected());
  base::Bytes big(3 * 1024 * 1024);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7);
  ASSERT_TRUE(cluster.at(1).send(0, big));
  EXPECT_FALSE(cluster.at(1).send(0, base::Bytes(big.size() + 1, 0)));
  ASSERT_TRUE(cluster.recorder(0).wait_frames(1, 1));
  EXPECT_EQ(cluster.recorder(0).frames(1).front(), big);
}

TEST(Transport, HandlersMaySendAndTheirExceptionsAreCaught) {
  TransportOptions a = options_for(0, 2);
  TransportOptions b = options_for(1, 2);
  Transport* tb_ptr = nullptr;
  TransportHandlers echo;
  echo.on_frame = [&tb_ptr](std::uint32_t peer, base::Bytes payload) {
    if (payload == bytes_of("throw")) throw std::runtime_error("handler failure");
    tb_ptr->send(peer, std::move(payload));
  };
  Recorder ra;
  Transport ta(std::move(a), ra.handlers());
  Transport tb(std::move(b), echo);
  tb_ptr = &tb;
  ASSERT_TRUE(tb.start().ok());
  ASSERT_TRUE(ta.start().ok());
  ASSERT_TRUE(ta.set_peer_address(1, "127.0.0.1", tb.port()).ok());
  ASSERT_TRUE(ta.send(1, bytes_of("throw")));
  ASSERT_TRUE(ta.send(1, bytes_of("echo")));
  ASSERT_TRUE(ra.wait_frames(1, 1));
  EXPECT_EQ(ra.frames(1).front(), bytes_of("echo"));
  EXPECT_EQ(tb.stats().handler_errors, 1U);
}

TEST(Transport, StartChecksTheOptions) {
  {
    TransportOptions options = options_for(0, 2);
    options.self = 2;
    const auto started = Transport(std::move(options)).start();
    ASSERT_FALSE(started.ok());
    EXPECT_NE(started.error().reason.find("self index 2"), std::string::npos);
  }
  {
    TransportOptions options = options_for(0, 2);
    crypto::KeySeed seed{};
    options.peers[1].keys = crypto::SigningBundle::from_seed(crypto::Profile::cold, seed).value().public_bundle();
    const auto started = Transport(std::move(options)).start();
    ASSERT_FALSE(started.ok());
    EXPECT_EQ(started.error().reason, "peer table entry 1: the key bundle has no ML-DSA-44 key");
  }
  {
    TransportOptions options = options_for(0, 2);
    options.signer = mldsa_signer(testing::validator(1).mldsa).value();
    const auto started = Transport(std::move(options)).start();
    ASSERT_FALSE(started.ok());
    EXPECT_NE(started.error().reason.find("not the ML-DSA-44 key of validator 0"), std::string::npos);
  }
  {
    TransportOptions options = options_for(0, 2);
    options.listen_address = "not an address";
    const auto started = Transport(std::move(options)).start();
    ASSERT_FALSE(started.ok());
    EXPECT_EQ(started.error().code, base::Errc::invalid_argument);
  }
  {
    Transport first(options_for(0, 2));
    ASSERT_TRUE(first.start().ok());
    EXPECT_FALSE(first.start().ok());
    TransportOptions options = options_for(0, 2);
    options.listen_port = first.port();
    Transport second(std::move(options));
    // SO_REUSEADDR does not let two listeners share a port.
    const auto started = second.start();
    ASSERT_FALSE(started.ok());
    EXPECT_EQ(started.error().code, base::Errc::io_error);
    EXPECT_NE(started.error().reason.find("port " + std::to_string(first.port())), std::string::npos);
  }
}

}  // namespace
}  // namespace sion::net
