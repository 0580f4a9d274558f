#pragma once
// What the net tests share: validator keys from fixed seeds, options for a
// table of N validators on 127.0.0.1, a recorder of what the handlers saw,
// and blocking raw sockets that speak (or break) the wire protocol by hand.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/endian.hpp"
#include "sion/crypto/bundle.hpp"
#include "sion/net/frame.hpp"
#include "sion/net/handshake.hpp"
#include "sion/net/identity.hpp"
#include "sion/net/transport.hpp"

namespace sion::net::testing {

using namespace std::chrono_literals;

inline ChainId test_chain() {
  ChainId id{};
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::uint8_t>(0xc0 + i);
  return id;
}

struct TestValidator {
  crypto::KeyBundle keys;                           // the dual bundle's public keys
  std::shared_ptr<const crypto::SigningKey> mldsa;  // its ML-DSA-44 component
};

// Validator `n`'s keys: SigningBundle::from_seed(dual, seed n), and its
// ML-DSA-44 component re-derived. Cached: keygen is the slow part.
inline const TestValidator& validator(std::uint8_t n) {
  static std::mutex mutex;
  static std::map<std::uint8_t, TestValidator> cache;
  std::lock_guard lock(mutex);
  auto found = cache.find(n);
  if (found != cache.end()) return found->second;
  crypto::KeySeed seed{};
  seed.fill(static_cast<std::uint8_t>(0x40 + n));
  TestValidator v;
  v.keys = crypto::SigningBundle::from_seed(crypto::Profile::dual, seed).value().public_bundle();
  v.mldsa = std::make_shared<const crypto::SigningKey>(
      bundle_component_key(crypto::Profile::dual, seed, crypto::Scheme::ml_dsa_44).value());
  return cache.emplace(n, std::move(v)).first->second;
}

// Options for validator `self` of `count` (validator(i)'s keys at index i),
// no ports known yet, limits small enough for quick tests.
inline TransportOptions options_for(std::uint32_t self, std::uint32_t count) {
  TransportOptions options;
  options.self = self;
  options.chain_id = test_chain();
  for (std::uint32_t i = 0; i < count; ++i) {
    Peer peer;
    peer.keys = validator(static_cast<std::uint8_t>(i)).keys;
    options.peers.push_back(std::move(peer));
  }
  options.signer = mldsa_signer(validator(static_cast<std::uint8_t>(self)).mldsa).value();
  options.handshake_timeout = 2s;
  options.reconnect_min = 20ms;
  options.reconnect_max = 200ms;
  return options;
}

// Everything the handlers saw, for waiting on from the test thread.
class Recorder {
 public:
  TransportHandlers handlers() {
    TransportHandlers h;
    h.on_frame = [this](std::uint32_t peer, base::Bytes payload) {
      std::lock_guard lock(mutex_);
      frames_[peer].push_back(std::move(payload));
      changed_.notify_all();
    };
    h.on_peer_up = [this](std::uint32_t peer) { event("up " + std::to_string(peer)); };
    h.on_peer_down = [this](std::uint32_t peer) { event("down " + std::to_string(peer)); };
    return h;
  }

  std::vector<base::Bytes> frames(std::uint32_t peer) {
    std::lock_guard lock(mutex_);
    return frames_[peer];
  }
  std::vector<std::string> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }
  // Waits until `peer` has sent at least `count` frames.
  bool wait_frames(std::uint32_t peer, std::size_t count, std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return frames_[peer].size() >= count; });
  }
  bool wait_events(std::size_t count, std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return events_.size() >= count; });
  }

 private:
  void event(std::string what) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(what));
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::uint32_t, std::vector<base::Bytes>> frames_;
  std::vector<std::string> events_;
};

// Polls `done` every few milliseconds until it holds or `limit` passes.
template <class Predicate>
bool eventually(Predicate done, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

inline base::Bytes bytes_of(std::string_view text) { return base::Bytes(text.begin(), text.end()); }

// `count` transports, validator i at index i, each with a Recorder, started
// on ephemeral ports and then told each other's ports.
class Cluster {
 public:
  using Tweak = std::function<void(TransportOptions&)>;

  explicit Cluster(std::uint32_t count, const Tweak& tweak = {}) : count_(count) {
    for (std::uint32_t i = 0; i < count; ++i) {
      TransportOptions options = options_for(i, count);
      if (tweak) tweak(options);
      recorders_.push_back(std::make_unique<Recorder>());
      transports_.push_back(std::make_unique<Transport>(std::move(options), recorders_.back()->handlers()));
      const auto started = transports_.back()->start();
      EXPECT_TRUE(started.ok()) << (started ? "" : started.error().reason);
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      for (std::uint32_t j = 0; j < count; ++j) {
        if (i != j) {
          EXPECT_TRUE(transports_[i]->set_peer_address(j, "127.0.0.1", transports_[j]->port()).ok());
        }
      }
    }
  }

  Transport& at(std::uint32_t i) { return *transports_[i]; }
  Recorder& recorder(std::uint32_t i) { return *recorders_[i]; }

  // Replaces validator i with a new transport (same identity, same port).
  void restart(std::uint32_t i, const Tweak& tweak = {}) {
    const std::uint16_t port = transports_[i]->port();
    transports_[i].reset();
    TransportOptions options = options_for(i, count_);
    options.listen_port = port;
    for (std::uint32_t j = 0; j < count_; ++j) {
      if (j != i) options.peers[j].port = transports_[j]->port();
    }
    if (tweak) tweak(options);
    recorders_[i] = std::make_unique<Recorder>();
    transports_[i] = std::make_unique<Transport>(std::move(options), recorders_[i]->handlers());
    const auto started = transports_[i]->start();
    EXPECT_TRUE(started.ok()) << (started ? "" : started.error().reason);
  }

  bool all_connected(std::chrono::milliseconds limit = 10s) {
    return eventually(
        [&] {
          for (const auto& transport : transports_) {
            if (transport->connected_peers().size() + 1 != count_) return false;
          }
          return true;
        },
        limit);
  }

 private:
  std::uint32_t count_;
  std::vector<std::unique_ptr<Recorder>> recorders_;  // outlive the transports that call them
  std::vector<std::unique_ptr<Transport>> transports_;
};

// ---- Raw sockets ----------------------------------------------------------

// A blocking socket, closed on destruction.
class RawSocket {
 public:
  explicit RawSocket(int fd = -1) : fd_(fd) {}
  RawSocket(RawSocket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RawSocket& operator=(RawSocket&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.fd_;
      other.fd_ = -1;
    }
    return *this;
  }
  ~RawSocket() { reset(); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Connects to 127.0.0.1:port.
  static RawSocket connect(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return RawSocket();
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd);
      return RawSocket();
    }
    return RawSocket(fd);
  }

  bool send(base::ByteView bytes) const {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes = bytes.subspan(static_cast<std::size_t>(n));
    }
    return true;
  }
  bool send_frame(base::ByteView payload) const { return send(encode_frame(payload).value()); }

  // Exactly `size` bytes, or nothing on close, error or `limit`.
  std::optional<base::Bytes> read_exact(std::size_t size, std::chrono::milliseconds limit = 5s) const {
    base::Bytes out(size);
    std::size_t have = 0;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (have < size) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
      const ssize_t n = ::recv(fd_, out.data() + have, size - have, 0);
      if (n <= 0) return std::nullopt;
      have += static_cast<std::size_t>(n);
    }
    return out;
  }
  std::optional<base::Bytes> read_frame(std::chrono::milliseconds limit = 5s) const {
    auto header = read_exact(kFrameHeaderBytes, limit);
    if (!header) return std::nullopt;
    return read_exact(base::load_be<std::uint32_t>(header->data()), limit);
  }

  // Whether the other side closes (EOF or reset) within `limit`; what it
  // sends before that is read and dropped.
  bool closed_by_peer(std::chrono::milliseconds limit = 5s) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::uint8_t chunk[4096];
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return true;
    }
  }

 private:
  int fd_;
};

// A listening socket on 127.0.0.1, an ephemeral port.
class RawListener {
 public:
  RawListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = 0;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address);
    ::listen(fd_, 8);
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~RawListener() { ::close(fd_); }
  RawListener(const RawListener&) = delete;
  RawListener& operator=(const RawListener&) = delete;
  std::uint16_t port() const { return port_; }
  RawSocket accept(std::chrono::milliseconds limit = 5s) const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return RawSocket();
    return RawSocket(::accept(fd_, nullptr, nullptr));
  }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

inline base::Bytes hello_bytes(std::uint32_t sender, const ChainId& chain = test_chain()) {
  Hello hello;
  hello.chain_id = chain;
  hello.sender = sender;
  hello.nonce.fill(static_cast<std::uint8_t>(0x10 + sender));
  return encode_hello(hello);
}

inline base::Bytes auth_bytes(const crypto::SigningKey& key, const crypto::Hash256& transcript) {
  Auth auth;
  const base::Bytes signature = key.sign(transcript).value();
  std::copy(signature.begin(), signature.end(), auth.signature.begin());
  return encode_auth(auth);
}

// The initiator's side of the handshake by hand, over `socket`, as
// validator `sender` signing with `key`. True once the responder's Auth
// came (and verified under `responder_key`, when given).
inline bool raw_handshake(const RawSocket& socket, std::uint32_t sender, const crypto::SigningKey& key,
                          const base::Bytes* responder_key = nullptr) {
  const base::Bytes own = hello_bytes(sender);
  if (!socket.send_frame(own)) return false;
  const auto theirs = socket.read_frame();
  if (!theirs || !decode_hello(*theirs)) return false;
  if (!socket.send_frame(auth_bytes(key, transcript_hash(test_chain(), own, *theirs, Role::initiator)))) return false;
  const auto auth = socket.read_frame();
  if (!auth) return false;
  const auto decoded = decode_auth(*auth);
  if (!decoded) return false;
  if (responder_key == nullptr) return true;
  return crypto::verify(crypto::Scheme::ml_dsa_44, *responder_key,
                        transcript_hash(test_chain(), own, *theirs, Role::responder), decoded->signature);
}

}  // namespace sion::net::testing
